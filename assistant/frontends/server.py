"""What `sizing serve` runs: the API app (REST + MCP) plus the front ends that ride on the same HTTP
server when they are configured (Slack's Events API at /slack/events). Composition lives here, not in
api.py, because front ends do not import each other."""

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
        except (ImportError, ValueError) as e:  # a Slack misconfiguration must not take the API down
            log.error("Slack settings are present but Slack could not be mounted: %s", e)
        else:
            # Slack signs its requests (checked by bolt) and cannot send our bearer key.
            app.state.open_paths.add(EVENTS_PATH)


def build_app(settings: Settings | None = None):
    """The whole `sizing serve` app for one process; ``settings.host`` is the bind address."""
    from .api import create_app

    settings = settings or Settings()
    ctx = Context.create(settings)
    app = create_app(ctx, settings, host=settings.host)
    mount_optional_frontends(app, ctx, settings)
    return app


def app_factory():
    """uvicorn ``--factory`` target: each worker process builds its own app from the environment
    (SIZING_* variables), so `--workers N` needs nothing shared."""
    return build_app()
