"""What `sizing serve` runs: the REST app, MCP at /mcp, and the front ends that ride on the same HTTP
server when they are configured (Slack's Events API at /slack/events). Composition lives here, not in
the front ends, because front ends do not import each other."""

from __future__ import annotations

import logging

from ..context import Context
from ..settings import Settings

log = logging.getLogger(__name__)


def mount_optional_frontends(app, ctx, settings: Settings) -> None:
    """Add the routes of other front ends that share this server."""
    if settings.slack_signing_secret:
        try:
            from .slack import EVENTS_PATH, mount_slack

            mount_slack(app, ctx, settings)
        except (ImportError, ValueError, OSError) as e:  # a Slack misconfiguration must not take the API down
            log.error("Slack settings are present but Slack could not be mounted: %s", e)
        else:
            # Slack signs its requests (checked by bolt) and cannot send our bearer key.
            app.state.open_paths.add(EVENTS_PATH)


def compose_app(ctx, settings: Settings, assistant_factory=None, *, registry=None, host: str | None = None):
    """REST (api.py) with MCP at /mcp (mcp_server.py) sharing one tool runner (time limit and result
    cache), plus the optional front ends. ``host`` is the bind address (the default Host policy)."""
    from ..tools import REGISTRY
    from ..tools.runner import ToolRunner
    from .api import create_app
    from .mcp_server import mount_http

    registry = registry or REGISTRY
    runner = ToolRunner(ctx, registry, timeout_s=settings.request_timeout_s, cache_size=settings.tool_cache_size)
    app = create_app(ctx, settings, assistant_factory, registry=registry, runner=runner, host=host)
    mount_http(app, ctx, settings, runner, registry)
    mount_optional_frontends(app, ctx, settings)
    return app


def build_app(settings: Settings | None = None):
    """The whole `sizing serve` app for one process; ``settings.host`` is the bind address."""
    settings = settings or Settings()
    return compose_app(Context.create(settings), settings)


def app_factory():
    """uvicorn ``--factory`` target: each worker process builds its own app from the environment
    (SIZING_* variables), so `--workers N` needs nothing shared."""
    return build_app()
