"""The `sizing` command line as a typer app. Heavy libraries (LangChain, Gradio, FastAPI) are imported
inside the commands that need them; `cli.py` answers a plain `sizing call` without importing this."""

from __future__ import annotations

import csv
import importlib
import io
import json
import sys
from typing import Annotated

import typer

from .cli import context, print_json, registry, run_call

app = typer.Typer(add_completion=False, no_args_is_help=True, help="LLM sizing assistant for Ascend NPUs and GPUs.")

# Modules that add their own commands with `register(app)`; each imports its heavy deps lazily.
COMMAND_MODULES = ["cli_agent", "cli_estimate", "cli_config", "cli_api", "cli_web", "cli_slack"]


@app.command("tools")
def tools_cmd(as_json: Annotated[bool, typer.Option("--json", help="Print the full JSON schemas.")] = False):
    """List the tools: names, descriptions and JSON schemas."""
    schemas = registry().schemas()
    if as_json:
        print_json(schemas)
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
    raise typer.Exit(run_call(name, stdin, args))


@app.command("tables")
def tables_cmd(
    name: Annotated[str | None, typer.Argument(help="Table name; omit to list the tables.")] = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="csv, json or md.")] = "csv",
):
    """Print a knowledge-base table (the vendor tables and catalogs) as CSV, JSON or markdown."""
    ctx = context()
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
        print_json(rows)
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
    importlib.import_module(f"{__package__}.{_mod}").register(app)
