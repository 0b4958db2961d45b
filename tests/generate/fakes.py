"""Small fake OpenAI-compatible and Anthropic-compatible servers on 127.0.0.1, driven by
scripts, for the real `openai` and `anthropic` SDKs: good answers, broken ones, 429s, 5xx,
garbage, slow answers."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    text: str = ""
    status: int = 200
    delay: float = 0.0  # seconds before answering (slow answers, timeouts)
    raw: str | None = None  # a body sent as is (garbage)
    finish: str = "stop"  # stop | length
    usage: bool = True
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Request:
    path: str
    body: dict[str, Any]
    headers: dict[str, str]

    @property
    def system(self) -> str:
        if "system" in self.body:  # anthropic
            return (
                self.body["system"]
                if isinstance(self.body["system"], str)
                else json.dumps(self.body["system"])
            )
        return next(
            (m["content"] for m in self.body.get("messages", []) if m["role"] == "system"), ""
        )

    @property
    def user(self) -> str:
        msgs = [m for m in self.body.get("messages", []) if m["role"] == "user"]
        content = msgs[-1]["content"] if msgs else ""
        return content if isinstance(content, str) else "".join(c.get("text", "") for c in content)


Script = Callable[[Request], Reply]


def _openai_body(reply: Reply, model: str) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": reply.text},
                "finish_reason": reply.finish,
                "logprobs": None,
            }
        ],
    }
    if reply.usage:
        p, c = 100 + len(reply.text) // 50, max(1, len(reply.text) // 4)
        body["usage"] = {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}
    return body


def _anthropic_body(reply: Reply, model: str) -> dict[str, Any]:
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": reply.text}],
        "stop_reason": "max_tokens" if reply.finish == "length" else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 120, "output_tokens": max(1, len(reply.text) // 4)},
    }


class FakeServer:
    """`kind` is "openai" (POST /v1/chat/completions) or "anthropic" (POST /v1/messages)."""

    def __init__(self, kind: str, script: Script):
        self.kind = kind
        self.script = script
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except ValueError:
                    body = {}
                req = Request(self.path, body, {k.lower(): v for k, v in self.headers.items()})
                with server._lock:
                    server.requests.append(req)
                reply = server.script(req)
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.raw is not None:
                    payload = reply.raw.encode()
                elif reply.status != 200:
                    payload = json.dumps(
                        {"error": {"message": f"fake error {reply.status}", "type": "fake"}}
                    ).encode()
                else:
                    make = _openai_body if server.kind == "openai" else _anthropic_body
                    payload = json.dumps(make(reply, body.get("model", "fake"))).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}" + ("/v1" if self.kind == "openai" else "")

    def __enter__(self) -> FakeServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def sequence(*replies: Reply) -> Script:
    """Answers in order; the last one repeats."""
    items = list(replies)
    lock = threading.Lock()

    def script(_: Request) -> Reply:
        with lock:
            return items.pop(0) if len(items) > 1 else items[0]

    return script


def code(text: str, rationale: str = "covers the documented contract") -> str:
    return f"Here is the file.\n\n```python\n{text.strip()}\n```\n\nRationale: {rationale}\n"


def review_json(
    tests: list[tuple[str, str, str, str]] = (), verdict: str = "ACCEPT", missing: list[str] = ()
) -> str:
    """tests: (name, verdict, confidence, reason)."""
    return json.dumps(
        {
            "tests": [
                {
                    "test": n,
                    "verdict": v,
                    "confidence": c,
                    "reason": r,
                    "recommendation": "" if v == "OK" else f"fix {n}",
                }
                for n, v, c, r in tests
            ],
            "file": {
                "verdict": verdict,
                "summary": f"file {verdict.lower()}",
                "missing_scenarios": list(missing),
            },
        }
    )


class Replayed:
    """A recorded run (`--record` JSONL) as an OpenAI server script: the answer recorded for the
    same prompt (hash of system + user text), else the next unserved answer of the same purpose in
    recorded order (prompts change when assay's prompts do); counts how each was found. A
    revision in recorded order is one recorded for the target of the answer served last (one
    target at a time: `--jobs 1`), never another target's: when one target keeps tests from an
    earlier answer than it did live, the next target's prompts differ (its file is numbered
    otherwise), and the order alone served it the first target's unused revisions. None left for
    that target: `missing`."""

    def __init__(self, records: list[dict[str, Any]]):
        self.records = records
        self.served: set[int] = set()
        self.by_hash = self.by_order = self.missing = 0
        self.last_subject: str | None = None
        self._lock = threading.Lock()

    def __call__(self, req: Request) -> Reply:
        digest = hashlib.sha256(f"{req.system}\0{req.user}".encode()).hexdigest()
        purpose = _purpose(req)
        with self._lock:
            hit = next((i for i, r in enumerate(self.records) if r["hash"] == digest), None)
            if hit is not None:
                self.by_hash += 1
            else:
                hit = next(
                    (
                        i
                        for i, r in enumerate(self.records)
                        if i not in self.served
                        and r.get("purpose", "write")
                        .replace("rewrite", "write")
                        .replace("review-revise", "revise")
                        == purpose
                        and (
                            purpose != "revise"
                            or self.last_subject is None
                            or r.get("subject", self.last_subject) == self.last_subject
                        )
                    ),
                    None,
                )
                if hit is None:
                    self.missing += 1
                    return Reply(status=400)
                self.by_order += 1
            self.served.add(hit)
            rec = self.records[hit]
            if purpose != "review":
                self.last_subject = rec.get("subject", self.last_subject)
        return Reply(rec["text"], finish=rec.get("finish", "stop"))


def _purpose(req: Request) -> str:
    """write | revise | review, from the prompt's text (the server sees no purpose)."""
    if not req.system.startswith("You write"):  # the reviewer's and bug-check's system prompts
        return "review"
    return "revise" if "\nFeedback:" in req.user else "write"
