"""`sizing slack`: the Slack bridge in its own process, over the HTTP Events API or Socket Mode."""

from __future__ import annotations

import logging
from typing import Annotated

import typer

DEFAULT_PORT = 3000  # the same as slack.DEFAULT_PORT; not imported so `sizing --help` stays fast


def register(app: typer.Typer) -> None:
    @app.command("slack")
    def slack_cmd(
        host: Annotated[str | None, typer.Option(help="Address to bind in HTTP mode (default: SIZING_HOST or 127.0.0.1).")] = None,
        port: Annotated[int, typer.Option(help="Port of the Events API in HTTP mode (request URL: http://HOST:PORT/slack/events).")] = DEFAULT_PORT,
        socket_mode: Annotated[
            bool | None,
            typer.Option("--socket-mode/--http", help="Socket Mode or the HTTP Events API. Default: Socket Mode when "
                         "SLACK_APP_TOKEN is set, else HTTP."),
        ] = None,
    ):
        """Answer Slack mentions and direct messages with the assistant (tokens from SLACK_BOT_TOKEN,
        SLACK_SIGNING_SECRET, SLACK_APP_TOKEN)."""
        from ..settings import Settings
        from .slack import SlackSettingsError, require_settings, run_http, run_socket_mode

        settings = Settings()
        use_socket = bool(settings.slack_app_token) if socket_mode is None else socket_mode
        try:
            require_settings(settings, socket_mode=use_socket)
        except SlackSettingsError as e:
            typer.echo(f"error: {e}", err=True)
            raise typer.Exit(2) from None
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
        if use_socket:
            typer.echo("Slack bridge: Socket Mode (no public URL needed). Ctrl-C to stop.", err=True)
            run_socket_mode(settings)
        else:
            bind = host or settings.host
            typer.echo(f"Slack bridge: Events API at http://{bind}:{port}/slack/events. Ctrl-C to stop.", err=True)
            run_http(settings, bind, port)
