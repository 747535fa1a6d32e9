"""`sizing web`: the Gradio chat on loopback (what `make run` starts). Gradio is imported only when
the command runs."""

from __future__ import annotations

from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    @app.command("web")
    def web_cmd(
        host: Annotated[str | None, typer.Option(help="Interface to bind (default SIZING_HOST or 127.0.0.1).")] = None,
        port: Annotated[int | None, typer.Option(help="Port (default SIZING_PORT or 7860).")] = None,
        llm: Annotated[str | None, typer.Option(help="Chat model: 'offline' or a provider string (default SIZING_LLM).")] = None,
    ):
        """Start the web chat (streamed answers with tool steps, Plan and Tables tabs)."""
        from ..errors import SizingError
        from ..settings import Settings
        from .web import quiet_env, run

        quiet_env()
        overrides = {k: v for k, v in {"host": host, "port": port, "llm": llm}.items() if v is not None}
        settings = Settings(**overrides)
        typer.echo(f"Sizing assistant web chat on http://{settings.host}:{settings.port} (chat model: {settings.llm})")
        try:
            run(settings, settings.host, settings.port)
        except SizingError as e:  # e.g. the LLM cannot be set up and fallback is off: one line, no traceback
            typer.echo(f"error: {e.message}", err=True)
            raise typer.Exit(2) from None
        except OSError as e:  # port in use, bad host
            typer.echo(f"error: cannot serve on {settings.host}:{settings.port}: {e}", err=True)
            raise typer.Exit(2) from None
