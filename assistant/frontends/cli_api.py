"""`sizing serve` (REST + MCP over HTTP on uvicorn) and `sizing mcp` (MCP over stdio)."""

from __future__ import annotations

import os
from typing import Annotated

import typer

API_PORT = 8000
FACTORY = "assistant.frontends.server:app_factory"


def register(app: typer.Typer) -> None:
    @app.command("serve")
    def serve_cmd(
        host: Annotated[str | None, typer.Option(help="Address to bind (default: SIZING_HOST or 127.0.0.1).")] = None,
        port: Annotated[int, typer.Option(help="Port to listen on.")] = API_PORT,
        workers: Annotated[int, typer.Option(min=1, help="Worker processes (each builds its own app; no shared state).")] = 1,
        access_log: Annotated[bool, typer.Option(help="Log every request.")] = True,
    ):
        """Serve the HTTP API: /v1/tools, /v1/tools/{name}, /v1/ask, /healthz, /docs and MCP at /mcp."""
        import uvicorn

        from ..settings import Settings

        if host:
            os.environ["SIZING_HOST"] = host  # worker processes read their settings from the environment
        from ..httpguard import http_protocol

        settings = Settings()
        opts = dict(host=settings.host, port=port, access_log=access_log, log_level="info", timeout_graceful_shutdown=5,
                    http=http_protocol(settings.body_timeout_s))
        if workers > 1:
            uvicorn.run(FACTORY, factory=True, workers=workers, **opts)
        else:
            from .server import build_app

            uvicorn.run(build_app(settings), **opts)

    @app.command("mcp")
    def mcp_cmd():
        """Serve the tools, notes and system prompt over MCP on stdin/stdout (for agent hosts)."""
        import anyio

        from ..context import Context
        from .mcp_server import build_mcp_server, run_stdio

        server = build_mcp_server(Context.create())
        anyio.run(run_stdio, server)
