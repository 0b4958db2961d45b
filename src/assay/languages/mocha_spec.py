"""Which files a package's mocha takes as test files, read from its config as mocha reads it
(`.mocharc.{cjs,js,yaml,yml,jsonc,json}`, found upwards from the package, and package.json's
"mocha", and the mocha command of package.json's `test` script: `"test": "mocha test/unit"`; their
`spec`s together, else mocha's default `./test`), so that a directory's walk gives them:
`test/route.js` has no test name, and a package whose config named `spec: tests/**/*.js` had its
files found by none. A spec the package names (config or command line) also keeps out the files
it does not name, test-named or not: mocha never runs them. Read statically (a config file is the
project's code: it runs only in the sandbox); a `.mocharc.js` whose `spec` is no literal leaves
the name rule alone."""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path, PurePosixPath

from assay.languages.node_checks import package_json, script_runner
from assay.languages.tooling import under

# mocha's own order (lib/cli/config.js): the first found in a directory, nearest directory first
CONFIG_FILES = (
    ".mocharc.cjs",
    ".mocharc.js",
    ".mocharc.yaml",
    ".mocharc.yml",
    ".mocharc.jsonc",
    ".mocharc.json",
)
DEFAULT_SPEC = ("./test",)  # lib/cli/run.js's positional default
DEFAULT_EXTENSIONS = ("js", "cjs", "mjs")  # lib/mocharc.json
_KEYS = ("spec", "extension", "ignore", "recursive")
_STRING = r"""(?:'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*"|`[^`$]*`)"""
_JS_VALUE = re.compile(
    rf"""(?:^|[{{,\s])['"]?({"|".join(_KEYS)})['"]?\s*:\s*"""
    rf"""({_STRING}|\[\s*(?:{_STRING}\s*,?\s*)*\]|true|false)?"""
)
_JSON_NOISE = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.S)
_GLOB = re.compile(r"\*\*/|\*\*|\*|\?|\[[^\]/]*\]|\{[^{}]*\}|[^*?\[{]+|.")


@dataclass(frozen=True)
class Spec:
    """What the package's mocha runs: its spec paths and globs (relative to the package), the
    extensions a directory's files need, whether directories are walked recursively, the globs
    left out."""

    spec: tuple[str, ...]
    extensions: tuple[str, ...]
    recursive: bool
    ignore: tuple[str, ...]
    named: bool = False  # the spec is the package's own (config, command line), not the default

    def takes(self, rel: PurePosixPath, is_dir: bool = False) -> bool:
        """Whether mocha run in the package takes the file at `rel` (package-relative)."""
        path = rel.as_posix()
        if any(_matches(g, path) for g in self.ignore):
            return False
        exts = tuple("." + e.lstrip(".") for e in self.extensions)
        for entry in self.spec:
            if _magic(entry):
                if _matches(entry, path):
                    return True
                continue
            if path == entry or (path.endswith(exts) and path[: -len(rel.suffix)] == entry):
                return True
            if is_dir or not path.endswith(exts):
                continue
            parent = rel.parent.as_posix()
            if parent == entry or (self.recursive and path.startswith(entry.rstrip("/") + "/")):
                return True
        return False


def _clean(entry: str) -> str:
    entry = entry.strip()
    while entry.startswith("./"):
        entry = entry[2:]
    return entry.rstrip("/") or "."


def _magic(entry: str) -> bool:
    return any(c in entry for c in "*?[{")


@lru_cache(maxsize=64)
def _pattern(glob: str) -> re.Pattern[str]:
    """A glob as mocha's `glob` package reads it (`**`, `*`, `?`, `[...]`, `{a,b}`), anchored."""
    out = []
    for part in _GLOB.findall(_clean(glob)):
        if part == "**/":
            out.append("(?:[^/]+/)*")
        elif part == "**":
            out.append(".*")
        elif part == "*":
            out.append("[^/]*")
        elif part == "?":
            out.append("[^/]")
        elif part.startswith("[") and len(part) > 1:
            out.append("[" + part[1:-1].replace("!", "^", 1 if part[1:2] == "!" else 0) + "]")
        elif part.startswith("{") and len(part) > 1:
            out.append(
                "(?:" + "|".join(_pattern(a).pattern[:-2] for a in part[1:-1].split(",")) + ")"
            )
        else:
            out.append(re.escape(part))
    return re.compile("".join(out) + r"\Z")


def _matches(glob: str, path: str) -> bool:
    return _pattern(glob).match(path) is not None


def _strings(value: object, split: bool = False) -> tuple[str, ...] | None:
    """A config's list option; `extension`'s strings are comma lists, `spec`'s are globs."""
    if isinstance(value, str):
        return tuple(v for v in (value.split(",") if split else [value]) if v.strip())
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    return None


def _from_json(text: str) -> dict[str, object] | None:
    """A `.mocharc.json(c)`'s keys (comments dropped, as mocha's jsonc reading does)."""
    bare = _JSON_NOISE.sub(lambda m: m.group(0) if m.group(0).startswith('"') else " ", text)
    try:
        data = json.loads(bare)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _literal(text: str) -> object:
    text = text.strip()
    if text in ("true", "false"):
        return text == "true"
    if text.startswith("["):
        return [_literal(s) for s in re.findall(_STRING, text)]
    if text[:1] in "'\"`" and text[-1:] == text[:1]:
        return text[1:-1]
    return None


def _from_js(text: str) -> dict[str, object] | None:
    """The keys of a `.mocharc.js` that are literals; None when `spec` is set by code."""
    found: dict[str, object] = {}
    for key, value in _JS_VALUE.findall(text):
        found.setdefault(key, _literal(value) if value else None)
    return None if "spec" in found and found["spec"] is None else found


def _from_yaml(text: str) -> dict[str, object] | None:
    """The top-level keys mocha's spec needs from a `.mocharc.yml`: a scalar, a flow list
    (`[a, b]`) or a block list (`- a` lines); None when `spec` is written otherwise."""
    found: dict[str, object] = {}
    key = None
    for line in text.splitlines():
        bare = re.sub(r"\s+#.*$", "", line).rstrip()
        if not bare.strip() or bare.lstrip().startswith("#"):
            continue
        if key and (item := re.match(r"\s*-\s+(.*)$", bare)):
            listed = found[key]
            if isinstance(listed, list):
                listed.append(_yaml_scalar(item.group(1)))
            continue
        key = None
        top = re.match(r"([\w-]+)\s*:\s*(.*)$", bare)
        if not top or top.group(1) not in _KEYS:
            continue
        name, value = top.groups()
        if not value:
            key, found[name] = name, []
        elif value.startswith("["):
            found[name] = [_yaml_scalar(v) for v in value.strip("[]").split(",") if v.strip()]
        else:
            found[name] = _yaml_scalar(value)
    return None if found.get("spec") == [] else found


def _yaml_scalar(value: str) -> object:
    value = value.strip()
    if value in ("true", "false"):
        return value == "true"
    if value[:1] in "'\"" and value[-1:] == value[:1]:
        return value[1:-1]
    return value


def _rc(root: Path, package: PurePosixPath) -> dict[str, object] | None:
    """The config file mocha finds from the package up (within the project), read; {} for none,
    None when it cannot be read for its spec."""
    for directory in (package, *package.parents):
        for name in CONFIG_FILES:
            path = root / directory / name
            if not path.is_file():
                continue
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                return None
            if name.endswith(("js", "cjs")):
                return _from_js(text)
            if name.endswith(("yaml", "yml")):
                return _from_yaml(text)
            return _from_json(text)
    return {}


# mocha's options that take a value (lib/cli/run-option-metadata.js); the rest are flags
_VALUED = {
    *("--config", "--package", "--reporter", "--ui", "--grep", "--fgrep", "--timeout", "--slow"),
    *("--retries", "--jobs", "--require", "--file", "--extension", "--ignore", "--exclude"),
    *("--reporter-option", "--reporter-options", "--spec", "--global", "--globals"),
    *("--watch-files", "--watch-ignore", "--node-option", "--timeouts"),
    *("-R", "-u", "-g", "-f", "-t", "-s", "-j", "-r", "-O", "-n"),
}
_CLI_KEYS = {
    "--spec": "spec",
    "--extension": "extension",
    "--ignore": "ignore",
    "--exclude": "ignore",
}
_SCRIPT_WRAPPERS = {"npx", "cross-env", "nyc", "c8", "dotenv", "exec"}


def _cli(pkg: dict) -> dict[str, object] | None:
    """The spec options of the mocha command package.json's `test` script runs (`mocha
    --recursive 'test/**/*.spec.js'`, `nyc mocha test/unit`): positional specs and `--spec`,
    `--extension`, `--ignore`, `--recursive`; {} for no such command, None when its words do not
    parse (a shell construct)."""
    scripts = pkg.get("scripts")
    script = scripts.get("test") if isinstance(scripts, dict) else None
    if not isinstance(script, str):
        return {}
    for command in re.split(r"&&|\|\||[;|]", script):
        try:
            words = shlex.split(command)
        except ValueError:
            return None
        for i, word in enumerate(words):
            name = word.rsplit("/", 1)[-1]
            if name in ("mocha", "_mocha"):
                return _options(words[i + 1 :])
            if not (name in _SCRIPT_WRAPPERS or word.startswith("-") or re.match(r"\w+=", word)):
                break
    return {}


def _options(words: list[str]) -> dict[str, object]:
    found: dict[str, list[str] | bool] = {}
    spec: list[str] = []
    value_of: str | None = None
    for word in words:
        if value_of is not None:
            if value_of in _CLI_KEYS:
                listed = found.setdefault(_CLI_KEYS[value_of], [])
                if isinstance(listed, list):
                    listed.append(word)
            value_of = None
        elif word.startswith("-"):
            flag, eq, value = word.partition("=")
            if flag == "--recursive":
                found["recursive"] = True
            elif flag in _CLI_KEYS and eq:
                listed = found.setdefault(_CLI_KEYS[flag], [])
                if isinstance(listed, list):
                    listed.append(value)
            elif flag in _VALUED and not eq:
                value_of = flag
        else:
            spec.append(word)
    listed = found.setdefault("spec", [])
    if isinstance(listed, list):
        listed[:0] = spec
    return {k: v for k, v in found.items() if v != []}


def mocha_spec(root: Path, package: PurePosixPath) -> Spec | None:
    """The package's mocha spec, None when its config says it in a way not read here."""
    rc = _rc(root, package)
    pkg_json = package_json(root, package.as_posix())
    pkg = pkg_json.get("mocha")
    cli = _cli(pkg_json)
    if rc is None or cli is None or (pkg is not None and not isinstance(pkg, dict)):
        return None
    # the command line first: its flag wins over a config's, as in mocha
    configs = [c for c in (cli, rc, pkg or {}) if c]
    spec: list[str] = []
    for config in configs:
        if "spec" in config and (given := _strings(config["spec"])) is None:
            return None
        spec += given if "spec" in config and given else []
    # list options are combined (yargs' combine-arrays), a flag is the config file's first
    extensions = [e for c in configs for e in _strings(c.get("extension"), True) or ()]
    ignore = [g for c in configs for g in _strings(c.get("ignore")) or ()]
    recursive = next((c["recursive"] for c in configs if "recursive" in c), False)
    return Spec(
        spec=tuple(_clean(s) for s in spec or DEFAULT_SPEC),
        extensions=tuple(extensions) or DEFAULT_EXTENSIONS,
        recursive=recursive is True,
        ignore=tuple(_clean(s) for s in ignore),
        named=bool(spec),
    )


def takes_file(root: Path, package: PurePosixPath, rel: PurePosixPath) -> bool | None:
    """Whether the package's mocha runs the file at project-relative `rel` (a directory's walk
    takes it, test name or not); False: a spec the package names leaves it out (`"test": "mocha
    test/unit"` never runs a `test/integration/x.test.js`); None: no opinion
    (mocha is not the package's runner, or its spec is only mocha's default)."""
    pkg = package_json(root, package.as_posix())
    deps = {**pkg.get("dependencies", {}), **pkg.get("devDependencies", {})}
    if "mocha" not in deps:
        return None
    by_script = script_runner(pkg)
    if by_script not in ("mocha", None) or (by_script is None and {"vitest", "jest"} & set(deps)):
        return None  # another runner runs the package's tests
    spec = mocha_spec(root, package)
    if spec is None:
        return None
    if spec.takes(PurePosixPath(under(package.as_posix(), rel.as_posix()))):
        return True
    return False if spec.named else None
