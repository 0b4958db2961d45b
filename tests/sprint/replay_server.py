"""A local HTTP server (127.0.0.1) that replays recorded API pages: each exchange of a recording
is served once, in order, to the first request whose path and query match it. `{base}` in bodies
and headers becomes the server's URL (next-page links point back here)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

PAGES = Path(__file__).parent / "pages"


class ReplayServer:
    def __init__(self, recording: str):
        self.exchanges = json.loads((PAGES / recording).read_text())
        self.used = [False] * len(self.exchanges)
        self.requests: list[dict] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                parts = urlsplit(self.path)
                query = dict(parse_qsl(parts.query))
                server.requests.append({"path": parts.path, "query": query,
                                        "headers": dict(self.headers)})  # fmt: skip
                status, headers, body = server.answer(parts.path, query)
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                data = body.encode()
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def answer(self, path: str, query: dict[str, str]) -> tuple[int, dict[str, str], str]:
        for n, ex in enumerate(self.exchanges):
            wanted = {k: str(v) for k, v in ex.get("query", {}).items()}
            if not self.used[n] and ex["path"] == path and wanted.items() <= query.items():
                self.used[n] = True
                fill = lambda text: text.replace("{base}", self.url)  # noqa: E731
                headers = {k: fill(v) for k, v in ex.get("headers", {}).items()}
                return ex.get("status", 200), headers, fill(json.dumps(ex.get("body")))
        return 599, {}, json.dumps({"message": f"not recorded: {path} {query}"})

    def __enter__(self) -> ReplayServer:
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
