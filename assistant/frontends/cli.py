"""`sizing` command line. Heavy libraries (LangChain, Gradio, FastAPI) are imported inside the
commands that need them so that `sizing call` starts fast."""

from __future__ import annotations

import csv
import importlib
import io
import json
import os
import sys
from typing import Annotated

import typer

from ..errors import SizingError

for _k, _v in {"GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1",
               "ANONYMIZED_TELEMETRY": "False", "DO_NOT_TRACK": "1", "FASTMCP_SHOW_SERVER_BANNER": "false",
               "FASTMCP_CHECK_FOR_UPDATES": "off", "LANGCHAIN_TRACING_V2": "false"}.items():
    os.environ.setdefault(_k, _v)

app = typer.Typer(add_completion=False, no_args_is_help=True, help="LLM sizing assistant for Ascend NPUs and GPUs.")

# Modules that add their own commands with `register(app)`; each imports its heavy deps lazily.
COMMAND_MODULES = ["cli_agent", "cli_estimate", "cli_config", "cli_api", "cli_web", "cli_slack"]


def _context():
    from ..context import Context

    return Context.create()


def _registry():
    from ..tools import REGISTRY

    return REGISTRY


def _print_json(obj) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


@app.command("tools")
def tools_cmd(as_json: Annotated[bool, typer.Option("--json", help="Print the full JSON schemas.")] = False):
    """List the tools: names, descriptions and JSON schemas."""
    schemas = _registry().schemas()
    if as_json:
        _print_json(schemas)
        return
    for s in schemas:
        typer.echo(f"{s['name']}: {s['description']}")
        typer.echo("  args: " + json.dumps(s["input_schema"].get("properties", {}), ensure_ascii=False))


@app.command("call")
def call_cmd(
    name: Annotated[str, typer.Argument(help="Tool name (see `sizing tools`).")],
    stdin: Annotated[str | None, typer.Argument(help="'-' to read one JSON argument object per line from stdin.")] = None,
    args: Annotated[str, typer.Option("--args", help="Arguments as a JSON object.")] = "{}",
):
    """Call one tool and print its result (or the canonical error) as JSON."""
    reg, ctx = _registry(), _context()
    if stdin == "-":
        code = 0
        for line in sys.stdin:
            if not line.strip():
                continue
            out = reg.call_json(name, line, ctx)
            code = code or (1 if "error" in out else 0)
            _print_json(out)
        raise typer.Exit(code)
    if stdin is not None:
        _print_json(SizingError("invalid_arguments", f"Unexpected argument {stdin!r}; use '-' for stdin or --args.").to_model().model_dump())
        raise typer.Exit(2)
    out = reg.call_json(name, args, ctx)
    _print_json(out)
    raise typer.Exit(1 if "error" in out else 0)


@app.command("tables")
def tables_cmd(
    name: Annotated[str | None, typer.Argument(help="Table name; omit to list the tables.")] = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="csv, json or md.")] = "csv",
):
    """Print a knowledge-base table (the vendor tables and catalogs) as CSV, JSON or markdown."""
    ctx = _context()
    tables = ctx.kb.tables()
    if name is None:
        for t in tables:
            typer.echo(t)
        return
    if name not in tables:
        typer.echo(f"Unknown table {name!r}. Valid: {', '.join(tables)}", err=True)
        raise typer.Exit(2)
    if fmt not in {"csv", "json", "md"}:
        typer.echo(f"Unknown format {fmt!r}. Valid: csv, json, md", err=True)
        raise typer.Exit(2)
    rows = ctx.kb.table_rows(name)
    cols = list(rows[0]) if rows else []
    if fmt == "json":
        _print_json(rows)
    elif fmt == "csv":
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=cols, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
        sys.stdout.write(buf.getvalue())
    else:
        def cell(v):
            return "" if v is None else str(v).replace("|", "\\|")
        typer.echo("| " + " | ".join(cols) + " |")
        typer.echo("|" + "---|" * len(cols))
        for r in rows:
            typer.echo("| " + " | ".join(cell(r[c]) for c in cols) + " |")


@app.command("settings")
def settings_cmd():
    """Print every setting: environment variable, default and description (markdown table)."""
    from ..settings import Settings

    typer.echo("| variable | default | description |\n|---|---|---|")
    for env, default, desc in Settings.documentation():
        typer.echo(f"| `{env}` | `{default}` | {desc} |")


for _mod in COMMAND_MODULES:
    try:
        importlib.import_module(f"{__package__}.{_mod}").register(app)
    except ModuleNotFoundError as _e:  # a front end not built yet must not break the others
        if _e.name != f"{__package__}.{_mod}":
            raise


def main() -> None:
    for stream in (sys.stdout, sys.stderr):  # the C locale without UTF-8 mode makes them ASCII: answers are not
        if isinstance(stream, io.TextIOWrapper) and stream.encoding.lower().replace("-", "") != "utf8":
            stream.reconfigure(encoding="utf-8", errors="replace")
    if sys.getfilesystemencoding().lower().replace("-", "") != "utf8":  # argv arrived as escaped bytes: read UTF-8
        sys.argv = [os.fsencode(a).decode("utf-8", "replace") for a in sys.argv]
    try:
        app()
    except SizingError as e:  # e.g. no writable folder for the knowledge base: one line, not a traceback
        print(f"error: {e.message}", file=sys.stderr)
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
