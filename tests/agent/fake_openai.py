"""A tiny OpenAI-compatible chat-completions server on loopback for the LLM-path tests.

``script(request_json) -> {"tool_calls": [(name, args), ...]} | {"content": str}`` decides each
reply, so a test can read the tool results the agent sent back and answer from them. Both plain
JSON and SSE streaming (``"stream": true``) replies are produced, as the real API does.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Script = Callable[[dict[str, Any]], dict[str, Any]]


class FakeOpenAI:
    def __init__(self, script: Script, port: int):
        self.script = script
        self.requests: list[dict[str, Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep the test output clean
                pass

            def do_POST(self):  # noqa: N802 - http.server's naming
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                outer.requests.append(body)
                if not self.path.endswith("/chat/completions"):
                    self.send_error(404)
                    return
                reply = outer.script(body)
                if body.get("stream"):
                    self._sse(body, reply)
                else:
                    self._json(body, reply)

            def _message(self, reply):
                if "tool_calls" in reply:
                    calls = [{"id": f"call_{i}", "type": "function",
                              "function": {"name": n, "arguments": json.dumps(a)}} for i, (n, a) in enumerate(reply["tool_calls"])]
                    return {"role": "assistant", "content": None, "tool_calls": calls}, "tool_calls"
                return {"role": "assistant", "content": reply["content"]}, "stop"

            def _json(self, body, reply):
                message, finish = self._message(reply)
                data = json.dumps({"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": body.get("model", "x"),
                                   "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                                   "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _sse(self, body, reply):
                message, finish = self._message(reply)
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                deltas = []
                if finish == "tool_calls":
                    deltas.append({"role": "assistant", "tool_calls": [
                        {"index": i, **tc} for i, tc in enumerate(message["tool_calls"])]})
                else:
                    text = message["content"]
                    deltas += [{"role": "assistant", "content": ""}] + [{"content": text[i:i + 8]} for i in range(0, len(text), 8)]
                for i, delta in enumerate(deltas + [{}]):
                    chunk = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0, "model": body.get("model", "x"),
                             "choices": [{"index": 0, "delta": delta, "finish_reason": finish if i == len(deltas) else None}]}
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


def last_tool_result(body: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON content of the most recent tool message the agent sent, if any."""
    for m in reversed(body.get("messages", [])):
        if m.get("role") == "tool":
            try:
                return json.loads(m["content"])
            except ValueError:  # LangChain's own text for an unknown tool
                return {"error": {"code": "text", "message": m["content"]}}
        if m.get("role") == "user":
            return None
    return None
