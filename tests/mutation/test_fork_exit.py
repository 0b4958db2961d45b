"""A forked child never returns into its parent's code, even when the parent stopped reading it.

Seen on the field bench at load 30: the baseline dropped a child and closed its pipe; the child's
last write raised BrokenPipeError, which left `fork` in the child, and the child ran on as the
mutation worker (`assay mutate` failed with the child's traceback).
"""

from __future__ import annotations

import os

from assay._assay_sandbox.fork import fork


def test_a_child_whose_parent_closed_its_pipe_exits(tmp_path):
    escaped = tmp_path / "escaped"
    go_r, go_w = os.pipe()
    parent = os.getpid()

    def body(report):
        os.read(go_r, 1)  # until the parent has closed its end
        return "x" * 100_000

    child = fork(body)
    if os.getpid() != parent:  # the child came back from `fork`
        escaped.write_text("ran the parent's code")
        os._exit(0)
    os.close(child.fd)
    os.write(go_w, b"g")
    _, status = os.waitpid(child.pid, 0)
    os.close(go_r)
    os.close(go_w)
    assert not escaped.exists()
    assert os.waitstatus_to_exitcode(status) == 3
