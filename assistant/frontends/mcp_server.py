"""The tool registry as an MCP server: every tool (same name, description and input schema, marked
read-only), the notes and vendor tables as resources, and the system prompt as a prompt.

Why the official ``mcp`` 2.x low-level ``Server`` and not fastmcp 4.x or ``MCPServer``: both of those
derive a tool's input schema from a Python function signature, so a ``fn(ctx, args: Model)`` tool
would be published as ``{"args": {...}}`` (or need one hand-written wrapper per tool) and the schema
could drift from the registry's. The low-level server takes ``tools/list`` and ``tools/call``
handlers, so one generic adapter publishes ``Tool.input_schema()`` verbatim and routes every call
through ``Registry.call`` (validation, the canonical error shape). It is also the SDK whose client
the tests drive, and it serves stdio and streamable HTTP from the same object.

Tool calls go through ``assistant.tools.runner.ToolRunner``, the adapter the REST routes use too
(time limit, result cache). ``mount_http`` adds this server to an ASGI app at /mcp; the composition
of front ends into one process is in server.py.
"""

from __future__ import annotations

import logging
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import yaml

from ..errors import ErrorBody, SizingError, ToolError
from ..notes import note_dirs
from ..tools import REGISTRY, Registry
from ..tools.runner import ToolRunner

log = logging.getLogger(__name__)

SERVER_NAME = "sizing-assistant"
PROMPT_NAME = "system_prompt"
NOTE_URI = "sizing://notes/{}"
TABLE_URI = "sizing://tables/{}"
INSTRUCTIONS = (
    "Deterministic sizing tools for fine-tuning and serving LLMs on Ascend NPUs (ModelArts Snt9B / "
    "Snt9B23) and GPUs. Every number comes from the vendor tables or a documented estimate, with its "
    "source. Bad input returns a tool error (isError) whose text is {\"error\": {code, message, field, valid}}, "
    "with what would be accepted."
)
# ------------------------------------------------------------------ resources and the prompt
def _front_matter(text: str) -> dict[str, Any]:
    if not text.startswith("---"):
        return {}
    try:
        meta = yaml.safe_load(text.split("---", 2)[1])
    except (yaml.YAMLError, IndexError):
        return {}
    return meta if isinstance(meta, dict) else {}


def knowledge_resources(knowledge_dir: Path) -> dict[str, tuple[Any, Path]]:
    """URI -> (Resource, file) for every note (markdown) and vendor table (CSV). English notes are
    sizing://notes/NAME, their Chinese versions sizing://notes/zh/NAME."""
    from mcp import types

    out: dict[str, tuple[Any, Path]] = {}
    for lang, folder in note_dirs(knowledge_dir / "notes").items():
        prefix = "" if lang == "en" else f"{lang}/"
        for p in sorted(folder.glob("*.md")) if folder.is_dir() else []:
            if p.name.lower() == "readme.md":
                continue
            meta = _front_matter(p.read_text(encoding="utf-8"))
            kind = "Note" if lang == "en" else f"Note ({lang}, same sections as {NOTE_URI.format(p.name)})"
            desc = f"{kind}: {meta.get('title', p.stem)}." + (f" Source: {meta['source']}" if meta.get("source") else "")
            uri = NOTE_URI.format(prefix + p.name)
            out[uri] = (types.Resource(name=prefix + p.stem, title=str(meta.get("title", p.stem)), uri=uri, description=desc,
                                       mime_type="text/markdown", size=p.stat().st_size), p)
    tables = knowledge_dir / "tables"
    for p in sorted(tables.glob("*.csv")) if tables.is_dir() else []:
        uri = TABLE_URI.format(p.name)
        out[uri] = (types.Resource(name=p.stem, uri=uri, description=f"Vendor table {p.name}, transcribed with a source per row.",
                                   mime_type="text/csv", size=p.stat().st_size), p)
    return out


def system_prompt_path(settings) -> Path:
    return Path(settings.prompts_dir) / "system.md"


# ------------------------------------------------------------------ the server
def build_mcp_server(ctx, registry: Registry = REGISTRY, runner: ToolRunner | None = None):
    """An ``mcp`` low-level Server over ``registry``; serve it with ``run_stdio`` or ``streamable_http_app``."""
    from importlib.metadata import PackageNotFoundError, version

    from mcp import types
    from mcp.server.lowlevel import Server
    from mcp.shared.exceptions import MCPError
    from mcp_types import INVALID_PARAMS

    settings = ctx.settings
    runner = runner or ToolRunner(ctx, registry, timeout_s=settings.request_timeout_s, cache_size=settings.tool_cache_size)
    # Built once: the registry is fixed after import, so the listing is too. Tools read a closed,
    # read-only knowledge base: no side effects, same answer for the same arguments.
    listing = [
        types.Tool(name=t.name, description=t.description, input_schema=t.input_schema(),
                   output_schema=t.output_schema(),
                   annotations=types.ToolAnnotations(read_only_hint=t.read_only, destructive_hint=False,
                                                     idempotent_hint=True, open_world_hint=False))
        for t in registry
    ]
    schemas = {t.name: t.input_schema for t in listing}

    async def list_tools(_ctx, _params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listing)

    async def call_tool(_ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name not in registry:
            # The spec: a tool that does not exist is a protocol error, not a tool result.
            err = SizingError("unknown_tool", f"There is no tool named {params.name!r}.", field="name", valid=registry.names())
            raise MCPError(INVALID_PARAMS, err.message, data=err.to_model().model_dump(mode="json"))
        out = await runner.call(params.name, params.arguments or {})
        if out.error_code is not None:
            # The canonical error as text only: structured content must match the tool's output
            # schema, and clients that check it (the TypeScript SDK) would hide the error otherwise.
            return types.CallToolResult(content=[types.TextContent(text=out.json)], is_error=True)
        return types.CallToolResult(content=[types.TextContent(text=out.json)], structured_content=out.data)

    async def list_resources(_ctx, _params) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[r for r, _ in knowledge_resources(settings.knowledge_dir).values()])

    async def read_resource(_ctx, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        found = knowledge_resources(settings.knowledge_dir).get(str(params.uri))
        if found is None:
            raise MCPError(INVALID_PARAMS, f"Unknown resource {params.uri!r}; see resources/list.")
        res, path = found
        return types.ReadResourceResult(contents=[
            types.TextResourceContents(uri=res.uri, mime_type=res.mime_type, text=path.read_text(encoding="utf-8"))
        ])

    prompt = types.Prompt(
        name=PROMPT_NAME, title="Sizing assistant system prompt",
        description="The system prompt the sizing assistant's agent runs with: use the tools for every number, cite sources.",
        arguments=[types.PromptArgument(name="question", description="Optional first user question, appended after the prompt.", required=False)],
    )

    async def list_prompts(_ctx, _params) -> types.ListPromptsResult:
        # The prompt is a file another part of the project owns; without it there is nothing to offer.
        return types.ListPromptsResult(prompts=[prompt] if system_prompt_path(settings).is_file() else [])

    async def get_prompt(_ctx, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        path = system_prompt_path(settings)
        if params.name != PROMPT_NAME or not path.is_file():
            raise MCPError(INVALID_PARAMS, f"Unknown prompt {params.name!r}; see prompts/list.")
        messages = [types.PromptMessage(role="user", content=types.TextContent(text=path.read_text(encoding="utf-8")))]
        question = (params.arguments or {}).get("question")
        if question:
            messages.append(types.PromptMessage(role="user", content=types.TextContent(text=question)))
        return types.GetPromptResult(description=prompt.description, messages=messages)

    try:
        pkg_version = version("sizing-assistant")
    except PackageNotFoundError:
        pkg_version = "0"
    return Server(
        SERVER_NAME, version=pkg_version, instructions=INSTRUCTIONS,
        get_tool_input_schema=schemas.get,
        on_list_tools=list_tools, on_call_tool=call_tool,
        on_list_resources=list_resources, on_read_resource=read_resource,
        on_list_prompts=list_prompts, on_get_prompt=get_prompt,
    )


async def run_stdio(server) -> None:
    """Serve over this process's stdin/stdout until the client closes them."""
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def streamable_http_app(server, settings):
    """(ASGI app, session manager) for MCP over streamable HTTP. The manager's ``run()`` must be
    entered in the hosting app's lifespan.

    Stateless with JSON responses: no session lives in one process, so any uvicorn worker or replica
    behind a load balancer can answer any request (DESIGN: every process is stateless), and the
    tools return one result each, so there is nothing to stream.
    """
    from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager

    # No security_settings: the SDK's Host/Origin check is off because the app this is mounted in
    # applies one policy to every route, REST and /mcp alike (assistant.httpguard.HostPolicy).
    manager = StreamableHTTPSessionManager(app=server, json_response=True, stateless=True,
                                           max_request_body_size=settings.max_body_bytes)
    return StreamableHTTPASGIApp(manager), manager


class StatelessMcpEndpoint:
    """The MCP app minus its GET stream (an ASGI object, so Starlette routes every method to it).

    The stateless server never sends unprompted messages, so it offers no SSE stream; the spec allows
    405 for GET, and an open GET would only hold a connection."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["method"] == "GET":
            from starlette.responses import Response

            body = ToolError(error=ErrorBody(code="method_not_allowed",
                                             message="This MCP endpoint has no SSE stream; send POST requests."))
            resp = Response(body.model_dump_json(), status_code=405, media_type="application/json",
                            headers={"Allow": "POST, DELETE"})
            return await resp(scope, receive, send)
        await self.app(scope, receive, send)


def mount_http(app, ctx, settings, runner: ToolRunner, registry: Registry = REGISTRY, path: str = "/mcp") -> None:
    """Serve MCP over streamable HTTP at ``path`` of a Starlette/FastAPI ``app``: adds the route and
    runs the session manager inside the app's lifespan (wrapping the lifespan it already has)."""
    server = build_mcp_server(ctx, registry, runner)
    mcp_app, manager = streamable_http_app(server, settings)
    inner = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(a):
        async with inner(a), manager.run():
            yield

    app.router.lifespan_context = lifespan
    app.add_route(path, StatelessMcpEndpoint(mcp_app), include_in_schema=False)
