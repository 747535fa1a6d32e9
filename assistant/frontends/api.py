"""HTTP API for other agents and scripts: the registry's tools as REST routes, the agent as
``POST /v1/ask``, and the MCP server over streamable HTTP at ``/mcp``, in one FastAPI app.

Every error has the one shape ``{"error": {"code", "message", "field", "valid"}}`` with a 4xx
status for bad input; a 500 means a bug. API keys, the body-size limit and the time limit apply to
every route (``/healthz`` and ``/readyz`` are open so load balancers can probe them).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from fastapi_offline import FastAPIOffline
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.exceptions import HTTPException
from starlette.routing import Route

from ..answer import Answer, ChatTurn
from ..errors import SizingError, ToolError, validation_error
from ..httpguard import Guard, HostPolicy, json_error
from ..tools import REGISTRY, Registry
from ..tools.runner import ToolRunner

log = logging.getLogger(__name__)

# Registry error codes that are not "the input was understood but cannot be answered" (422).
STATUS_BY_CODE = {
    "unknown_tool": 404, "not_found": 404, "no_table_row": 404, "invalid_json": 400, "too_large": 413,
    "unauthorized": 401, "timeout": 504, "agent_unavailable": 503, "internal_error": 500,
}
CODE_BY_STATUS = {400: "bad_request", 401: "unauthorized", 404: "not_found", 405: "method_not_allowed",
                  413: "too_large", 415: "unsupported_media_type", 422: "invalid_arguments", 504: "timeout"}
# Open without a key: the probe, and the docs (the page has an Authorize button for the key; the
# schema is the tool listing, not data). Other front ends add to app.state.open_paths (Slack's signed events).
OPEN_PATHS = ("/healthz", "/readyz", "/docs", "/docs/oauth2-redirect", "/redoc", "/openapi.json")
DOCS_STATIC = "/static-offline-docs"  # fastapi_offline's Swagger UI and ReDoc files
SECURITY_SCHEME = {"type": "http", "scheme": "bearer", "description": "An API key from SIZING_API_KEYS: "
                   "Authorization: Bearer KEY. In /docs, enter it under Authorize."}
MAX_HISTORY_TURNS = 200


def status_for(code: str) -> int:
    return STATUS_BY_CODE.get(code, 422)


def error_response(code: str, message: str, status: int | None = None, *, field: str | None = None,
                   valid: Any = None, headers: dict[str, str] | None = None) -> Response:
    return json_error(code, message, status or status_for(code), field=field, valid=valid, headers=headers)


class AskRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, description="The question, Chinese or English.")
    history: list[ChatTurn] = Field(default_factory=list, max_length=MAX_HISTORY_TURNS,
                                    description="Earlier turns of the conversation, oldest first.")


def _package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("sizing-assistant")
    except PackageNotFoundError:
        return "0"


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(HTTPException)
    async def http_error(_request, exc: HTTPException):
        return error_response(CODE_BY_STATUS.get(exc.status_code, "http_error"), str(exc.detail), exc.status_code,
                              headers=getattr(exc, "headers", None))

    @app.exception_handler(RequestValidationError)
    async def request_validation_error(_request, exc: RequestValidationError):
        errs = list(exc.errors())
        if any(e.get("type") == "json_invalid" for e in errs):
            return error_response("invalid_json", "The request body is not valid JSON.", 400, valid="a JSON object")
        parts, field = [], None
        for e in errs[:5]:
            loc = ".".join(str(p) for p in e.get("loc", ()) if p != "body") or "body"
            field = field or loc
            parts.append(f"{loc}: {e.get('msg')}")
        return error_response("invalid_arguments", "; ".join(parts) or "invalid request", 422, field=field)

    @app.exception_handler(Exception)
    async def internal_error(_request, exc: Exception):  # a bug, never the caller's input
        log.exception("unhandled error")
        return error_response("internal_error", f"Internal error: {type(exc).__name__}.", 500)


def _openapi(app: FastAPI, registry: Registry, keyed: bool) -> Callable[[], dict]:
    """FastAPI's schema plus one operation per tool with its request and result models from the
    registry (the tool routes are plain Starlette routes, which FastAPI does not document). With API
    keys, the bearer scheme and a 401 response on every operation behind it."""
    from fastapi.openapi.utils import get_openapi
    from pydantic.json_schema import JsonSchemaMode, models_json_schema

    def build() -> dict:
        if app.openapi_schema:
            return app.openapi_schema
        schema = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
        pairs: list[tuple[type[BaseModel], JsonSchemaMode]] = [(ToolError, "serialization"), (AskRequest, "validation")]
        for t in registry:
            pairs += [(t.args_model, "validation"), (t.result_model, "serialization")]
        refs, defs = models_json_schema(pairs, ref_template="#/components/schemas/{model}")
        components = schema.setdefault("components", {}).setdefault("schemas", {})
        components.update(defs.get("$defs", {}))
        error = {"description": "The canonical error", "content": {"application/json": {"schema": refs[(ToolError, "serialization")]}}}
        for t in registry:
            schema["paths"][f"/v1/tools/{t.name}"] = {"post": {
                "tags": ["tools"], "summary": t.name, "description": t.description, "operationId": f"tool_{t.name}",
                "requestBody": {"required": False, "content": {"application/json": {"schema": refs[(t.args_model, "validation")]}}},
                "responses": {"200": {"description": "The tool's result", "content": {"application/json": {
                    "schema": refs[(t.result_model, "serialization")]}}}, "4XX": error},
            }}
        ask = schema["paths"].get("/v1/ask", {}).get("post")
        if ask is not None:
            ask["requestBody"] = {"required": True, "content": {"application/json": {"schema": refs[(AskRequest, "validation")]}}}
        if keyed:
            _declare_bearer(schema, error)
        app.openapi_schema = schema
        return schema

    return build


def _declare_bearer(schema: dict, error: dict) -> None:
    schema["components"]["securitySchemes"] = {"bearer": SECURITY_SCHEME}
    unauthorized = {**error, "description": "No or a wrong API key (WWW-Authenticate: Bearer)"}
    for path, item in schema["paths"].items():
        if path in OPEN_PATHS:
            continue
        for op in item.values():
            op["security"] = [{"bearer": []}]
            op.setdefault("responses", {})["401"] = unauthorized


def answer_budget_s(request_timeout_s: float) -> float:
    """The LLM's share of one /v1/ask request: all of it but a quarter (at most 5 s) for the offline fallback."""
    return max(0.5, request_timeout_s - min(5.0, request_timeout_s / 4))


def create_app(ctx, settings, assistant_factory: Callable[[Any], Any] | None = None, *,
               registry: Registry = REGISTRY, runner: ToolRunner | None = None, host: str | None = None) -> FastAPI:
    """The REST app. ``assistant_factory(ctx)`` builds the agent for /v1/ask (default
    ``assistant.agent.Assistant``); ``runner`` is the tool runner to share with other front ends
    mounted on the same app (server.py mounts MCP at /mcp with it); ``host`` is the bind address
    (default ``settings.host``), which decides the default Host policy (httpguard.HostPolicy)."""
    runner = runner or ToolRunner(ctx, registry, timeout_s=settings.request_timeout_s, cache_size=settings.tool_cache_size)
    # FastAPIOffline serves Swagger UI and ReDoc from the package instead of a CDN: /docs works offline.
    app = FastAPIOffline(
        title="Sizing assistant API", version=_package_version(), swagger_ui_parameters={"persistAuthorization": True},
        description="The sizing assistant's deterministic tools (the same ones the chat uses) and the agent. "
        "`sizing serve` also serves MCP over streamable HTTP at /mcp.",
    )
    _install_error_handlers(app)
    app.state.open_paths = set(OPEN_PATHS)  # the same set object: routes added later can be opened
    app.add_middleware(Guard, api_keys=list(settings.api_keys), max_body_bytes=settings.max_body_bytes,
                       body_timeout_s=settings.body_timeout_s, open_paths=app.state.open_paths, open_prefixes=(DOCS_STATIC,),
                       policy=HostPolicy(host or settings.host, settings.allowed_hosts, settings.cors_origins))
    app.openapi = _openapi(app, registry, keyed=bool(settings.api_keys))  # type: ignore[method-assign]
    tool_count = len(registry.names())

    @app.get("/healthz", tags=["meta"], summary="Liveness probe (no API key needed)")
    async def healthz() -> dict[str, Any]:
        return {"status": "ok", "tools": tool_count}

    @app.get("/v1/tools", tags=["tools"], summary="Every tool: name, description, input and output JSON schema")
    async def list_tools() -> dict[str, Any]:
        return {"tools": registry.schemas()}

    async def run_tool(request: Request) -> Response:
        out = await runner.call(request.path_params["name"], await request.body())
        status = 200 if out.error_code is None else status_for(out.error_code)
        return Response(out.json, status_code=status, media_type="application/json")

    # A plain Starlette route, not a FastAPI one: it reads raw JSON and hands it to the registry, so
    # FastAPI's parameter machinery would only add cost (about half the route's time). Unknown names
    # reach the registry too, which answers 404 unknown_tool with the valid names.
    app.router.routes.append(Route("/v1/tools/{name}", run_tool, methods=["POST"], name="call_tool"))

    assistant_lock = threading.Lock()
    holder: dict[str, Any] = {}

    def the_assistant():
        with assistant_lock:  # built once: importing the agent (LangChain) takes about a second
            if "assistant" not in holder:
                if assistant_factory is None:
                    from ..agent import Assistant

                    # the LLM's budget ends before the request's time limit, leaving the offline planner time to
                    # answer in its place: no LLM request outlives the HTTP request that made it
                    holder["assistant"] = Assistant(ctx, budget_s=answer_budget_s(settings.request_timeout_s))
                else:
                    holder["assistant"] = assistant_factory(ctx)
        return holder["assistant"]

    def ask_sync(question: str, history: list[ChatTurn]) -> Answer:
        return the_assistant().ask(question, history=history or None)

    def warm_up() -> None:
        """Build the agent at start-up, so /readyz says ready only when /v1/ask can answer at once."""
        try:
            assistant = the_assistant()
            if hasattr(assistant, "warm_up"):  # (a factory's stand-in may have none)
                assistant.warm_up()
            holder["warm"] = True
        except Exception as e:  # e.g. the configured LLM cannot be built: /readyz says why, /v1/ask answers 503
            holder["error"] = f"{type(e).__name__}: {e}"
            log.error("The agent could not be built: %s", holder["error"])

    inner = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(a):
        threading.Thread(target=warm_up, name="agent-warm-up", daemon=True).start()
        async with inner(a) as state:
            yield state

    app.router.lifespan_context = lifespan

    @app.get("/readyz", tags=["meta"], summary="Readiness probe: 200 once /v1/ask can answer, else 503 (no API key needed)",
             responses={503: {"description": "Still starting, or the agent cannot be built (the reason is given)"}})
    async def readyz() -> Response:
        if "warm" in holder:  # the agent built, and with an LLM its offline fallback too
            return Response('{"status":"ready"}', media_type="application/json")
        body = {"status": "unavailable", "reason": holder["error"]} if "error" in holder else {"status": "starting"}
        return Response(json.dumps(body), status_code=503, media_type="application/json", headers={"Retry-After": "1"})

    @app.post("/v1/ask", tags=["agent"], response_model=Answer,
              summary="Ask the assistant a question; the answer comes with the tool calls behind it",
              responses={400: {"model": ToolError}, 422: {"model": ToolError}, 503: {"model": ToolError},
                         504: {"model": ToolError}})
    async def ask(request: Request) -> Response:
        # Read and validate the body here, as the tool routes do: any content type, the canonical errors.
        try:
            body = AskRequest.model_validate_json((await request.body()) or b"{}")
        except ValidationError as e:
            if any(err["type"] == "json_invalid" for err in e.errors()):
                return error_response("invalid_json", "The request body is not valid JSON.", 400, valid="a JSON object")
            err = validation_error(e, AskRequest)
            return error_response(err.code, err.message, field=err.field, valid=err.valid)
        try:
            with anyio.fail_after(settings.request_timeout_s):
                answer = await anyio.to_thread.run_sync(ask_sync, body.question, body.history, abandon_on_cancel=True)
        except TimeoutError:
            return error_response("timeout", f"No answer within {settings.request_timeout_s:g} s.")
        except ImportError as e:
            return error_response("agent_unavailable", f"The agent is not available: {e}.")
        except SizingError as e:  # e.g. the configured LLM cannot be built (503)
            return error_response(e.code, e.message, e.status, field=e.field, valid=e.valid)
        return Response(answer.model_dump_json(), media_type="application/json")

    app.state.ctx, app.state.settings, app.state.tool_runner = ctx, settings, runner
    return app
