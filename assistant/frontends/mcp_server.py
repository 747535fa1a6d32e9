"""The tool registry as an MCP server: every tool (same name, description and input schema, marked
read-only), the notes and vendor tables as resources, and the system prompt as a prompt.

Why the official ``mcp`` 2.x low-level ``Server`` and not fastmcp 4.x or ``MCPServer``: both of those
derive a tool's input schema from a Python function signature, so a ``fn(ctx, args: Model)`` tool
would be published as ``{"args": {...}}`` (or need one hand-written wrapper per tool) and the schema
could drift from the registry's. The low-level server takes ``tools/list`` and ``tools/call``
handlers, so one generic adapter publishes ``Tool.input_schema()`` verbatim and routes every call
through ``Registry.call`` (validation, the canonical error shape). It is also the SDK whose client
the tests drive, and it serves stdio and streamable HTTP from the same object.

``ToolRunner`` is the single adapter from the registry to both servers (this one and the REST
routes in api.py): it runs the sync tool off the event loop under the per-request time limit and
remembers results, which is sound because tools are pure functions of their arguments and of a
knowledge base that is read-only for the life of the process.
"""

from __future__ import annotations

import json
import logging
from collections import OrderedDict
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import anyio
import yaml
from pydantic import BaseModel

from ..errors import SizingError, ToolError
from ..notes import note_dirs
from ..tools import REGISTRY, Registry

log = logging.getLogger(__name__)

SERVER_NAME = "sizing-assistant"
PROMPT_NAME = "system_prompt"
NOTE_URI = "sizing://notes/{}"
TABLE_URI = "sizing://tables/{}"
INSTRUCTIONS = (
    "Deterministic sizing tools for fine-tuning and serving LLMs on Ascend NPUs (ModelArts Snt9B / "
    "Snt9B23) and GPUs. Every number comes from the vendor tables or a documented estimate, with its "
    "source. Bad input returns {\"error\": {code, message, field, valid}} with what would be accepted."
)
# A result is remembered only when its key is this small: bounded memory per entry.
MAX_CACHED_KEY_BYTES = 8_192


@dataclass(frozen=True)
class ToolOutcome:
    """One tool call's result (or canonical error), serialised lazily for REST (JSON text) and MCP
    (a dict)."""

    model: BaseModel

    @property
    def error_code(self) -> str | None:
        return self.model.error.code if isinstance(self.model, ToolError) else None

    @cached_property
    def json(self) -> str:
        return self.model.model_dump_json()

    @cached_property
    def data(self) -> dict[str, Any]:
        return self.model.model_dump(mode="json")


class ToolRunner:
    """Registry -> async call with a time limit and an LRU of results (see the module docstring)."""

    def __init__(self, ctx, registry: Registry = REGISTRY, *, timeout_s: float, cache_size: int = 0):
        self.ctx, self.registry, self.timeout_s, self.cache_size = ctx, registry, timeout_s, cache_size
        self._cache: OrderedDict[tuple[str, bytes], ToolOutcome] = OrderedDict()

    @staticmethod
    def _key(args: bytes | str | dict | None) -> bytes:
        if isinstance(args, bytes):
            return args
        if isinstance(args, str):
            return args.encode()
        try:
            return json.dumps(args, sort_keys=True, ensure_ascii=False).encode()
        except (TypeError, ValueError, RecursionError):
            return b""  # not cacheable; the registry reports what is wrong with it

    async def call(self, name: str, args: bytes | str | dict | None) -> ToolOutcome:
        key = (name, self._key(args)) if self.cache_size else None
        if key is not None and (hit := self._cache.get(key)) is not None:
            self._cache.move_to_end(key)
            return hit
        try:
            with anyio.fail_after(self.timeout_s):
                # abandon_on_cancel: a tool past its time limit keeps its thread, but the caller is freed.
                result = await anyio.to_thread.run_sync(self.registry.call, name, args, self.ctx, abandon_on_cancel=True)
        except TimeoutError:
            err = SizingError("timeout", f"The tool {name} did not finish within {self.timeout_s:g} s.", status=504)
            return ToolOutcome(err.to_model())
        outcome = ToolOutcome(result)
        if key is not None and key[1] and len(key[1]) <= MAX_CACHED_KEY_BYTES and outcome.error_code != "internal_error":
            self._cache[key] = outcome
            if len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return outcome


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
        return types.CallToolResult(content=[types.TextContent(text=out.json)], structured_content=out.data,
                                    is_error=out.error_code is not None)

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


def streamable_http_app(server, settings, host: str | None = None):
    """(ASGI app, session manager) for MCP over streamable HTTP. The manager's ``run()`` must be
    entered in the hosting app's lifespan.

    Stateless with JSON responses: no session lives in one process, so any uvicorn worker or replica
    behind a load balancer can answer any request (DESIGN: every process is stateless), and the
    tools return one result each, so there is nothing to stream.
    """
    from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
    from mcp.server.transport_security import TransportSecuritySettings

    host = host or settings.host
    security = None
    if host in ("127.0.0.1", "localhost", "::1"):
        # Bound to loopback: refuse other Host/Origin headers (DNS rebinding), as the SDK does by default.
        security = TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*", "127.0.0.1", "localhost"],
            allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
        )
    manager = StreamableHTTPSessionManager(app=server, json_response=True, stateless=True, security_settings=security,
                                           max_request_body_size=settings.max_body_bytes)
    return StreamableHTTPASGIApp(manager), manager
