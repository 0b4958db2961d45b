"""Go: the packages of the modules a project requires, built into assay's shared build cache
(`go_cache`), outside the sandbox, once per `go` command, go.mod, go.sum and set of packages.

A workspace's build writes a layer of its own over the shared cache, thrown away after the run: a
package only that layer held was compiled, and vetted (`go vet` computes the facts of every
dependency), again by every workspace, where `go test` finds it in the user's cache
(frankban/quicktest: go-cmp and kr/pretty, 1.4 s of CPU of a 3.2 s verify, against 0.3-0.7 s for
`go test`). Their cache entries depend on the package's files in the module cache (at the same path
in the sandbox), the compiler, the flags and the environment: the same for every workspace.

What is built: the packages that the user's own files of the tested package import (and those of
the module's own packages they import, followed), never what the candidate alone imports (that
is built in its workspace, as before), in a module of assay's own with the project's go.mod and
go.sum and one file importing them, vetted outside the sandbox with the sandboxed runs'
environment. Only code from the module cache is compiled; none of it runs (a Go build runs no code
of the package; cgo's flags pass the go command's allow-list). Left to the workspace: a project
whose go.mod replaces a module by a local path (project code), one inside a go.work, `internal`
packages (no other module may import them).
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

from assay.languages.go_cache import GO_CACHE, go_identity, hold_fresh
from assay.sandbox import assay_cache

WARMED = "assay-warmed-mods"  # in the shared cache: one empty file per warm-up done
# `replace X => ./dir` (or `../dir`, `/abs`): a module from the project's tree, not the module cache
_LOCAL_REPLACE = re.compile(r"=>\s*(?:\.\.?(?:/|\s|$)|/)", re.M)
_lock = threading.Lock()


def importable(packages: Iterable[str]) -> list[str]:
    """The packages a module of assay's own may import: no `internal` or `vendor` element."""
    return sorted(p for p in set(packages) if not {"internal", "vendor"} & set(p.split("/")))


def local_code(module_dir: Path, root: Path) -> bool:
    """Whether the module's build reads packages from the project's tree besides its own: a
    `replace` by a local path, or a go.work from the module's directory up to the project's root."""
    try:
        gomod = (module_dir / "go.mod").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return True
    if _LOCAL_REPLACE.search(gomod):
        return True
    for directory in [module_dir, *module_dir.parents]:
        if (directory / "go.work").exists():
            return True
        if directory == root:
            break
    return False


def warm_requirements(
    module_dir: Path, root: Path, packages: Iterable[str], env_of: Callable[[Path], dict[str, str]]
) -> None:
    """Build `packages` (of the modules the go.mod in `module_dir` requires) into the shared cache
    with the environment `env_of(home)` gives (the sandboxed runs'), unless done before for the
    same `go` command, go.mod, go.sum and packages (a file in the cache says so). A package that
    does not build here (a `main` package, one the module cache lacks) is left to each workspace,
    as before; the warm-up is not tried again."""
    wanted = importable(packages)
    go = shutil.which("go")
    if not wanted or go is None or local_code(module_dir, root):
        return
    cache = Path(GO_CACHE.format(assay_cache=assay_cache()))
    try:
        files = {"go.mod": (module_dir / "go.mod").read_bytes()}
        if (module_dir / "go.sum").exists():
            files["go.sum"] = (module_dir / "go.sum").read_bytes()
        h = hashlib.sha256(go_identity(go).encode())
    except OSError:
        return
    for name, data in sorted(files.items()):
        h.update(f"\0{name}\0{len(data)}\0".encode() + data)
    h.update("\0".join(["", *wanted, ""]).encode())
    marker = cache / WARMED / h.hexdigest()[:32]
    with _lock:
        if marker.exists():
            return
        with tempfile.TemporaryDirectory(prefix="assay-go-mods-") as tmp:
            env = env_of(Path(tmp) / "home")
            module = Path(tmp) / "module"
            module.mkdir()
            for name, data in files.items():
                (module / name).write_bytes(data)
            if not _vet(go, module, wanted, env) and len(wanted) > 1:
                for path in wanted:  # one that does not build here spoils no other
                    _vet(go, module, [path], env)
        hold_fresh(cache, force=True)  # the new entries dated ahead like the others
        with contextlib.suppress(OSError):
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.touch()


def _vet(go: str, module: Path, packages: list[str], env: dict[str, str]) -> bool:
    """`go vet` of a package of assay's own that imports `packages`: compiles them and computes
    their vet facts, as a workspace's `go vet` and `go test -c` need them."""
    pkg = module / "assaywarm"
    shutil.rmtree(pkg, ignore_errors=True)
    pkg.mkdir()
    blank = "".join(f'\t_ "{path}"\n' for path in packages)
    (pkg / "warm.go").write_text(f"package assaywarm\n\nimport (\n{blank})\n")
    try:
        done = subprocess.run(
            [go, "vet", "./assaywarm"],
            cwd=module,
            env={**env, "GOWORK": "off"},
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=600,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0
