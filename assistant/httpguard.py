"""The one HTTP policy of every server this project runs (REST and MCP in `sizing serve`, the Slack
bridge in `sizing slack`): Host and Origin checks with CORS, API keys, and a bounded request body.

A pure ASGI middleware (a BaseHTTPMiddleware would cost throughput). It reads the whole body itself
before the app sees the request, so one place answers for what a hostile or broken client does:
too large (413), too slow (408 after ``body_timeout_s``), or gone mid-body (one log line, nothing
else). The apps behind it then get a complete body and never meet a disconnect while reading it.
"""

from __future__ import annotations

import asyncio
import functools
import hmac
import ipaddress
import logging
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

import anyio
from starlette.responses import Response
from uvicorn.protocols.http.h11_impl import H11Protocol

from .errors import ErrorBody, ToolError

log = logging.getLogger(__name__)

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
CORS_ALLOW_HEADERS = "Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID"
CORS_EXPOSE_HEADERS = "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate"


def json_error(code: str, message: str, status: int, *, field: str | None = None, valid: Any = None,
               headers: dict[str, str] | None = None) -> Response:
    """The canonical error (errors.ToolError) as an HTTP response."""
    body = ToolError(error=ErrorBody(code=code, message=message, field=field, valid=valid))
    return Response(body.model_dump_json(), status_code=status, media_type="application/json", headers=headers)


def _host_name(host: str) -> str:
    """'127.0.0.1:8000' -> '127.0.0.1', '[::1]:8000' -> '::1', 'example.com' -> 'example.com'."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def is_loopback(host: str) -> bool:
    name = _host_name(host)
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


class HostPolicy:
    """Which Host headers and Origins are served. ``allowed_hosts`` empty: loopback names only when
    the server is bound to loopback (a DNS-rebinding page cannot reach it), any otherwise; ``*``: any.
    ``cors_origins`` empty: same origin only (a browser page of another site is refused with 403 and
    gets no CORS headers); ``*``: any origin."""

    def __init__(self, bind_host: str, allowed_hosts: Iterable[str] = (), cors_origins: Iterable[str] = ()):
        hosts = [h.strip().lower() for h in allowed_hosts if h.strip()]
        self.any_host = "*" in hosts
        self.hosts = {_host_name(h) for h in hosts if h != "*"}
        self.loopback_only = not hosts and is_loopback(bind_host)
        origins = [o.strip().rstrip("/").lower() for o in cors_origins if o.strip()]
        self.any_origin = "*" in origins
        self.origins = set(origins) - {"*"}

    def host_ok(self, host: str) -> bool:
        if self.any_host:
            return True
        if self.loopback_only:
            return is_loopback(host)
        return not self.hosts or _host_name(host) in self.hosts

    def cross_origin_ok(self, origin: str) -> bool:
        return self.any_origin or origin.rstrip("/").lower() in self.origins

    def origin_ok(self, origin: str, host: str) -> bool:
        """Same origin (the page was served by this server) or a configured CORS origin."""
        return urlsplit(origin).netloc.lower() == host.lower() or self.cross_origin_ok(origin)


class Guard:
    """Host/Origin, then CORS preflight, then API keys, then the body (see the module docstring)."""

    def __init__(self, app, *, api_keys: list[str], max_body_bytes: int, body_timeout_s: float,
                 open_paths: set[str], policy: HostPolicy, open_prefixes: tuple[str, ...] = ()):
        self.app, self.max_body, self.body_timeout_s = app, max_body_bytes, body_timeout_s
        self.open_paths, self.open_prefixes, self.policy = open_paths, open_prefixes, policy
        self.keys = [k.encode() for k in api_keys]

    def _authorized(self, headers: dict[bytes, bytes]) -> bool:
        scheme, _, token = headers.get(b"authorization", b"").partition(b" ")
        if scheme.lower() != b"bearer":
            return False
        # compare_digest against every key: the time taken does not tell which key was close.
        return any([hmac.compare_digest(token.strip(), k) for k in self.keys])

    def _open(self, path: str) -> bool:
        return path in self.open_paths or path.startswith(self.open_prefixes)

    def _unauthorized(self, had_token: bool):
        # RFC 6750: a bad token is error="invalid_token"; no token gets the bare challenge.
        challenge = 'Bearer realm="sizing-assistant"' + (', error="invalid_token"' if had_token else "")
        return json_error("unauthorized", "A valid API key is required: send the header Authorization: Bearer KEY.", 401,
                          headers={"WWW-Authenticate": challenge})

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket"):  # lifespan
            return await self.app(scope, receive, send)
        headers = dict(scope["headers"])
        host = headers.get(b"host", b"").decode("latin-1")
        origin = headers.get(b"origin", b"").decode("latin-1")
        refusal = None
        if not self.policy.host_ok(host):
            refusal = json_error("misdirected_request", f"Host {host!r} is not served here.", 421,
                                 valid="the Host names in SIZING_ALLOWED_HOSTS")
        elif origin and not self.policy.origin_ok(origin, host):
            refusal = json_error("forbidden_origin", f"Requests from the origin {origin!r} are not allowed.", 403,
                                 valid="same origin, or an origin in SIZING_CORS_ORIGINS")
        if refusal is None and scope["type"] == "http" and scope["method"] == "OPTIONS" and origin \
                and b"access-control-request-method" in headers:
            return await self._preflight(origin, send)
        if refusal is None and self.keys and not self._open(scope["path"]) and not self._authorized(headers):
            refusal = self._unauthorized(b"authorization" in headers)
        if scope["type"] == "websocket":
            if refusal is not None:
                return await send({"type": "websocket.close", "code": 1008})
            return await self.app(scope, receive, send)
        # A 401 to an allowed origin carries the CORS headers too: without them a browser app sees a
        # network error instead of "a valid API key is required".
        if origin and (refusal is None or refusal.status_code == 401) and self.policy.cross_origin_ok(origin):
            send = self._with_cors(origin, send)
        if refusal is not None:
            return await refusal(scope, receive, send)
        await self._with_body(scope, receive, send, headers)

    async def _preflight(self, origin: str, send) -> None:
        cors = [(b"access-control-allow-origin", origin.encode("latin-1")), (b"vary", b"Origin"),
                (b"access-control-allow-methods", b"GET, POST, DELETE, OPTIONS"),
                (b"access-control-allow-headers", CORS_ALLOW_HEADERS.encode()),
                (b"access-control-max-age", b"600"), (b"content-length", b"0")]
        await send({"type": "http.response.start", "status": 204, "headers": cors})
        await send({"type": "http.response.body", "body": b""})

    @staticmethod
    def _with_cors(origin: str, send):
        async def cors_send(message):
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []),
                                                  (b"access-control-allow-origin", origin.encode("latin-1")),
                                                  (b"vary", b"Origin"),
                                                  (b"access-control-expose-headers", CORS_EXPOSE_HEADERS.encode())]}
            await send(message)

        return cors_send

    async def _with_body(self, scope, receive, send, headers: dict[bytes, bytes]) -> None:
        declared = headers.get(b"content-length")
        if declared is not None and not declared.strip().isdigit():
            return await json_error("bad_request", "Invalid Content-Length.", 400)(scope, receive, send)
        if declared is not None and int(declared) > self.max_body:
            return await self._too_large(scope, receive, send)
        chunks, size = [], 0
        with anyio.move_on_after(self.body_timeout_s) as timer:
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    log.info("%s %s: client disconnected after %d bytes of the body", scope["method"], scope["path"], size)
                    return
                size += len(message.get("body", b""))
                if size > self.max_body:
                    return await self._too_large(scope, receive, send)
                chunks.append(message.get("body", b""))
                if not message.get("more_body", False):
                    break
        if timer.cancelled_caught:
            log.info("%s %s: body incomplete after %g s (%d bytes); answered 408", scope["method"], scope["path"],
                     self.body_timeout_s, size)
            resp = json_error("request_timeout", f"The request body did not arrive within {self.body_timeout_s:g} s.", 408,
                              headers={"Connection": "close"})
            return await resp(scope, receive, send)
        body, replayed = b"".join(chunks), False

        async def replay():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # after the body: the disconnect, when it comes

        await self.app(scope, replay, send)

    async def _too_large(self, scope, receive, send) -> None:
        resp = json_error("too_large", f"The request body is larger than {self.max_body} bytes.", 413,
                          valid=f"at most {self.max_body} bytes", headers={"Connection": "close"})
        await resp(scope, receive, send)


class H11HeaderDeadline(H11Protocol):
    """uvicorn's h11 protocol with a deadline for the request line and headers: uvicorn has none, so a
    client that sends half a request line and stops holds the connection for ever. The clock starts
    at the first byte of a request (idle keep-alive connections are uvicorn's, closed after
    ``timeout_keep_alive``); the body has its own limit in the Guard. Pass it as uvicorn's ``http``,
    e.g. ``http=functools.partial(H11HeaderDeadline, header_timeout_s=10)``."""

    def __init__(self, *args: Any, header_timeout_s: float = 10.0, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.header_timeout_s = header_timeout_s
        self._deadline: float | None = None
        self._timer: asyncio.TimerHandle | None = None

    def _waiting_for_headers(self) -> bool:
        return self.cycle is None or self.cycle.response_complete

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._deadline = self.loop.time() + self.header_timeout_s  # a connection that says nothing is also slow
        self._timer = self.loop.call_at(self._deadline, self._too_slow)

    def data_received(self, data: bytes) -> None:
        if self._waiting_for_headers() and self._deadline is None:
            self._deadline = self.loop.time() + self.header_timeout_s
        super().data_received(data)
        if not self._waiting_for_headers():  # the headers are complete: the request is the app's now
            self._deadline = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._deadline is not None and not self.transport.is_closing():
            self._timer = self.loop.call_at(self._deadline, self._too_slow)

    def _too_slow(self) -> None:
        self._timer = None
        if self._waiting_for_headers() and self._deadline is not None and not self.transport.is_closing():
            log.info("Closed a connection whose request headers did not arrive within %g s", self.header_timeout_s)
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
        super().connection_lost(exc)


def http_protocol(header_timeout_s: float) -> Any:
    """What to pass as uvicorn's ``http``: h11 with the header deadline (a module-level partial, so
    uvicorn's worker processes can unpickle it)."""
    return functools.partial(H11HeaderDeadline, header_timeout_s=header_timeout_s)
