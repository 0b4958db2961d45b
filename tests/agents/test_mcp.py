"""`assay mcp` answered by the MCP SDK's own client over stdio: the tools list, verify's verdicts
(the same as the library's), mutate's survivors, and a bad path as a tool error."""

from __future__ import annotations

import os
import sys

import pytest

from assay import api
from assay.agents import diff_scoped
from tests.conftest import run_cli


async def _session_calls(root, calls):
    """Start `assay mcp` in `root` and make each (tool, arguments) call in turn."""
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    server = StdioServerParameters(command=sys.executable, args=["-m", "assay", "mcp"], cwd=root)
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = await session.list_tools()
        results = [await session.call_tool(name, args) for name, args in calls]
        return {t.name: t for t in tools.tools}, results


def test_the_sdk_client_gets_the_cli_verdicts_and_survivors(calc_repo):
    pytest.importorskip("mcp", reason="the MCP SDK (assay[mcp]) is not installed")
    import anyio

    root = calc_repo
    weak = {"targets": ["calc.py"], "tests": ["tests/test_weak.py"]}
    tools, (verified, mutated, listed, missing, scoped) = anyio.run(
        _session_calls,
        root,
        [
            ("verify", {"paths": ["tests"]}),
            ("mutate", weak),
            ("survivors", weak),  # the same run, from the cache
            ("verify", {"paths": ["tests/test_nothing.py"]}),
            ("verify", {"since": "HEAD"}),
        ],
    )
    assert set(tools) == {"verify", "mutate", "survivors", "generate"}
    assert tools["verify"].output_schema["title"] == "VerifyAnswer"

    answer = verified.structured_content
    by_path = {f["path"]: f for f in answer["files"]}
    library = api.verify([root / "tests"], root=root)  # what `assay verify` prints
    assert {f.path: f.verdict.value for f in library.files} == {
        p: f["verdict"] for p, f in by_path.items()
    }
    assert by_path["tests/test_good.py"]["verdict"] == "accepted"
    assert by_path["tests/test_weak.py"]["verdict"] != "accepted"
    assert by_path["tests/test_weak.py"]["feedback"].startswith("REJECT")
    assert answer["exit_code"] == library.exit_code == 1

    survived = mutated.structured_content
    assert survived["passed"] is False
    assert survived["survivors_total"] == len(survived["survivors"]) > 0
    assert {s["file"] for s in survived["survivors"]} == {"calc.py"}

    assert listed.structured_content["total"] == survived["survivors_total"]
    assert listed.structured_content["survivors"][0] == survived["survivors"][0]

    assert missing.is_error
    assert "no such file or directory" in missing.content[0].text
    if not diff_scoped(api.verify):  # `since` passed through only where the library takes it
        assert scoped.is_error
        assert "no diff scope" in scoped.content[0].text


def test_without_the_sdk_assay_mcp_says_what_to_install(tmp_path):
    """An environment without the `mcp` package (here: one that shadows it with a missing one)."""
    (tmp_path / "mcp").mkdir()
    (tmp_path / "mcp" / "__init__.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'mcp'\", name='mcp')\n"
    )
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    done = run_cli("mcp", cwd=tmp_path, env=env)
    assert done.returncode == 2
    assert (
        done.stderr.strip() == "assay: error: assay mcp needs the MCP SDK: pip install 'assay[mcp]'"
    )
