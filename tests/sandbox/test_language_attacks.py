"""The hostile corpus in Go, Rust, Java, JavaScript and TypeScript: one small test file each that
writes a relative path (it must be accepted: the working directory is the writable copy), and on
the way tries the host's Unix socket and leaves files in /tmp and /dev/shm; both checked from the
host side. Each skips when its toolchain is absent; gates 1 and 2 only, the cheapest route."""

from __future__ import annotations

import os
import shutil
import socket
import uuid
from pathlib import Path

import pytest

from assay.api import verify
from assay.config import SandboxConfig, Settings
from assay.report.text import render
from assay.sandbox import Sandbox, bwrap
from tests.conftest import tree_digest
from tests.languages.conftest import copy_example

GO = """package price

import (
	"net"
	"os"
	"testing"
)

func TestRelativeWriteAndAttacks(t *testing.T) {
	if c, err := net.Dial("unix", "{sock}"); err == nil {
		c.Write([]byte("escaped"))
		c.Close()
	}
	os.WriteFile("/dev/shm/{mark}", []byte("left"), 0o644)
	os.WriteFile("/tmp/{mark}", []byte("left"), 0o644)
	if err := os.WriteFile("out.txt", []byte("ok"), 0o644); err != nil {
		t.Fatal(err)
	}
}
"""

RUST = """use std::io::Write;

#[test]
fn relative_write_and_attacks() {
    if let Ok(mut s) = std::os::unix::net::UnixStream::connect("{sock}") {
        let _ = s.write_all(b"escaped");
    }
    let _ = std::fs::write("/dev/shm/{mark}", "left");
    let _ = std::fs::write("/tmp/{mark}", "left");
    std::fs::write("out.txt", "ok").unwrap();
    assert_eq!(std::fs::read_to_string("out.txt").unwrap(), "ok");
}
"""

JAVA = """package com.acme;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class AttackTest {
    @Test
    void relativeWriteAndAttacks() throws Exception {
        try (SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            c.connect(UnixDomainSocketAddress.of("{sock}"));
            c.write(ByteBuffer.wrap("escaped".getBytes()));
        } catch (Exception e) {
        }
        for (String where : new String[] {"/dev/shm/{mark}", "/tmp/{mark}"}) {
            try {
                Files.writeString(Path.of(where), "left");
            } catch (Exception e) {
            }
        }
        Files.writeString(Path.of("out.txt"), "ok");
        assertEquals("ok", Files.readString(Path.of("out.txt")));
    }
}
"""

JAVASCRIPT = """const test = require("node:test");
const assert = require("node:assert");
const fs = require("node:fs");
const net = require("node:net");

test("relative write and attacks", async () => {
  await new Promise((done) => {
    const c = net.connect("{sock}", () => { c.end("escaped"); done(); });
    c.on("error", () => done());
  });
  for (const where of ["/dev/shm/{mark}", "/tmp/{mark}"]) {
    try { fs.writeFileSync(where, "left"); } catch (e) {}
  }
  fs.writeFileSync("out.txt", "ok");
  assert.strictEqual(fs.readFileSync("out.txt", "utf8"), "ok");
});
"""

# the example has no @types/node (`types: []`): node's modules come in untyped
TYPESCRIPT = """import { expect, it } from "vitest";
// @ts-ignore: node's own module, untyped here
import * as fs from "node:fs";
// @ts-ignore: node's own module, untyped here
import * as net from "node:net";

it("relative write and attacks", async () => {
  await new Promise<void>((done) => {
    const c = net.connect("{sock}", () => { c.end("escaped"); done(); });
    c.on("error", () => done());
  });
  for (const where of ["/dev/shm/{mark}", "/tmp/{mark}"]) {
    try { fs.writeFileSync(where, "left"); } catch (e) {}
  }
  fs.writeFileSync("out.txt", "ok");
  expect(fs.readFileSync("out.txt", "utf8")).toBe("ok");
});
"""


def _go(dest: Path) -> tuple[Path, str, str]:
    return copy_example("go", dest), "price/attack_test.go", GO


def _rust(dest: Path) -> tuple[Path, str, str]:
    return copy_example("rust", dest), "tests/attack.rs", RUST


def _java(dest: Path) -> tuple[Path, str, str]:
    return copy_example("java", dest), "src/test/java/com/acme/AttackTest.java", JAVA


def _javascript(dest: Path) -> tuple[Path, str, str]:
    root = dest / "js"
    (root / "test").mkdir(parents=True)
    (root / "package.json").write_text('{"name": "js", "version": "1.0.0"}\n')
    return root, "test/attack.test.js", JAVASCRIPT


def _typescript(dest: Path) -> tuple[Path, str, str]:
    return copy_example("ts", dest), "test/attack.test.ts", TYPESCRIPT


LANGUAGES = {
    "go": (_go, "go"),
    "rust": (_rust, "cargo"),
    "java": (_java, "mvn"),
    "javascript": (_javascript, "node"),
    "typescript": (_typescript, "node"),
}


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["builtin", "bwrap"])
@pytest.mark.parametrize("lang", LANGUAGES)
def test_relative_write_is_accepted_and_the_attacks_fail(lang, backend, tmp_path, monkeypatch):
    """Slow: one verify of a file through gates 1-2 with the language's toolchain (a build and a
    run; 15-30 s each on a loaded machine), under each backend."""
    make, tool = LANGUAGES[lang]
    if shutil.which(tool) is None:
        pytest.skip(f"`{tool}` not on PATH")
    if not Sandbox(SandboxConfig(), protect=tmp_path).use_unshare:
        pytest.skip("no namespaces here: the weaker profile does not claim these")
    if backend == "bwrap" and (why := bwrap.usable()):
        pytest.skip(why)
    monkeypatch.delenv(bwrap.ENV_VAR, raising=False)
    sock = tmp_path / "host.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(sock))
    server.listen(5)
    server.setblocking(False)
    mark = f"assay-attack-{uuid.uuid4().hex[:8]}"
    root, rel, source = make(tmp_path)
    (root / rel).write_text(source.replace("{sock}", str(sock)).replace("{mark}", mark))
    before = tree_digest(root)
    settings = Settings(gates=["compile", "green"], cache=False)
    settings.sandbox.timeout_s = 120
    settings.sandbox.backend = backend
    try:
        report = verify([root / rel], settings)
        with pytest.raises(BlockingIOError):
            server.accept()
    finally:
        server.close()
    assert tree_digest(root) == before
    f = report.files[0]
    assert f.verdict.value == "accepted", "\n".join(g.feedback for g in f.gates)
    profile = "node" if lang in ("javascript", "typescript") else lang  # its own limits
    assert f.limits["profile"] == profile
    assert f"limits ({profile}): memory" in render(report)
    # Go's shared build cache keeps the built-in view (bwrap 0.8 has no overlay mounts)
    ran = "bwrap" if backend == "bwrap" and lang != "go" else "built-in"
    assert str(f.limits["backend"]).startswith(ran), f.limits
    for where in ("/tmp", "/dev/shm"):
        assert not os.path.exists(os.path.join(where, mark)), where
