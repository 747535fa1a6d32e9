"""A tiny OpenAI-compatible chat-completions server on loopback for the LLM-path tests.

``script(request_json) -> reply`` decides each reply, so a test can read the tool results the agent
sent back and answer from them. Both plain JSON and SSE streaming (``"stream": true``) replies are
produced, as the real API does. A reply is one of:

- ``{"tool_calls": [(name, args), ...]}``: tool calls in the API's own field;
- ``{"content": str}``: text (with ``"finish_reason": "length"`` a reply cut at max_tokens);
- ``{"raw_tool_calls": [(name, arguments_text), ...]}``: tool calls whose arguments are sent as
  given (malformed JSON, as small models write it);
- ``{"status": 500}``: an HTTP error with an OpenAI-style error body;
- ``{"body": "text"}``: a 200 reply whose body is not JSON;
- ``{"sleep": s, ...}``: wait ``s`` seconds before replying (a stalled endpoint);
- ``{"drop_after": n, "content": str}``: stream ``n`` pieces, then close the connection;
- ``{"piece_delay": s, ...}``: wait ``s`` seconds before each streamed piece (a slow model).

Failures as real models and servers produce them (issue 27): the product's handling of each is
what the tests pin.
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
        self.closed = threading.Event()  # set when the server stops: a sleeping reply gives up
        self.finished = 0  # replies written to the end (a stream cut by the client does not count)
        self.cut = 0  # replies the client hung up on while they were being written
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
                if reply.get("sleep") and outer.closed.wait(reply["sleep"]):
                    return
                try:
                    if "status" in reply:
                        self._raw(reply["status"], json.dumps({"error": {"message": "internal error", "type": "server_error"}}))
                    elif "body" in reply:
                        self._raw(200, reply["body"])
                    elif body.get("stream"):
                        self._sse(body, reply)
                    else:
                        self._json(body, reply)
                    outer.finished += 1
                except (BrokenPipeError, ConnectionResetError):  # the client hung up (the agent stopped the reply)
                    outer.cut += 1

            def _raw(self, status, text):
                data = text.encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _message(self, reply):
                if "tool_calls" in reply or "raw_tool_calls" in reply:
                    pairs = [(n, json.dumps(a)) for n, a in reply.get("tool_calls", [])] + list(reply.get("raw_tool_calls", []))
                    calls = [{"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": a}}
                             for i, (n, a) in enumerate(pairs)]
                    return {"role": "assistant", "content": None, "tool_calls": calls}, "tool_calls"
                return {"role": "assistant", "content": reply["content"]}, reply.get("finish_reason", "stop")

            def _json(self, body, reply):
                message, finish = self._message(reply)
                data = json.dumps({"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": body.get("model", "x"),
                                   "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                                   "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})
                self._raw(200, data)

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
                    piece = max(8, len(text) // 2000)  # a 300,000-character reply in a few thousand pieces
                    deltas += [{"role": "assistant", "content": ""}] + [{"content": text[i:i + piece]}
                                                                       for i in range(0, len(text), piece)]
                for i, delta in enumerate(deltas + [{}]):
                    if reply.get("drop_after") is not None and i >= reply["drop_after"]:
                        self.wfile.flush()
                        self.close_connection = True
                        self.connection.shutdown(2)  # the stream ends mid-answer, without [DONE]
                        return
                    if reply.get("piece_delay") and outer.closed.wait(reply["piece_delay"]):
                        return
                    chunk = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0, "model": body.get("model", "x"),
                             "choices": [{"index": 0, "delta": delta, "finish_reason": finish if i == len(deltas) else None}]}
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.closed.set()
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


def tool_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    """Every tool message's JSON content the agent sent in this request, oldest first."""
    out = []
    for m in body.get("messages", []):
        if m.get("role") == "tool":
            try:
                out.append(json.loads(m["content"]))
            except ValueError:
                out.append({"error": {"code": "text", "message": m["content"]}})
    return out


def sequence(*replies: dict[str, Any]) -> Script:
    """A script that gives ``replies`` in order, then repeats the last one."""
    state = {"i": 0}

    def script(body: dict[str, Any]) -> dict[str, Any]:
        i = min(state["i"], len(replies) - 1)
        state["i"] += 1
        return replies[i]

    return script
