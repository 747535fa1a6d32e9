"""The "Tables" tab: the vendor tables and catalogs from the knowledge base, with a text filter, the
sources of the shown rows and a CSV download of exactly what is shown."""

from __future__ import annotations

import csv
import hashlib
import html
import os
import threading
from pathlib import Path
from typing import Any

from ..answer import source_as_known
from .web_downloads import download_url

# The tables a person can browse, in this order, with a one-line caption.
TABLES = {
    "min_cards": "Minimum cards (Snt9B) / DIE (Snt9B23) for MindSpeed-LLM and LLaMA-Factory — ModelArts, 2025-06-24",
    "recipes_llamafactory": "LLaMA-Factory recipes on ModelArts: ZeRO stage, offload, gradient accumulation, nodes × cards",
    "vllm_min_cards": "vLLM inference: minimum cards and tested max-model-len (32 GB / 64 GB cards)",
    "models": "Model catalog: shapes from public configs (inferred values marked)",
    "hardware": "Hardware catalog: memory and devices per node",
}


def available_tables(ctx) -> list[str]:
    present = set(ctx.kb.tables())
    return [t for t in TABLES if t in present]


def filter_rows(rows: list[dict[str, Any]], query: str) -> list[dict[str, Any]]:
    """Rows where every whitespace-separated word of ``query`` occurs (case-insensitive) in some cell."""
    words = [w.lower() for w in (query or "").split()]
    if not words:
        return rows
    out = []
    for r in rows:
        cells = " ".join("" if v is None else str(v) for v in r.values()).lower()
        if all(w in cells for w in words):
            out.append(r)
    return out


def repeated_columns(rows: list[dict[str, Any]], columns: list[str], share: float = 0.5) -> dict[str, str]:
    """{column: earlier column} for text columns that repeat an earlier one in more than ``share`` of
    the rows where either has text (e.g. the vendor table's model spelling beside the catalog id:
    mostly the same name). Numbers and flags are never "the same as" another column: two empty
    cells are no repeat, True equals 1 in Python, and 128 experts are not 128 head_dim."""
    found: dict[str, str] = {}
    for i, c in enumerate(columns):
        for k in columns[:i]:
            filled = [r for r in rows if _is_text(r.get(c)) or _is_text(r.get(k))]
            if k not in found and filled and all(_is_text(r.get(c)) or r.get(c) is None for r in rows) \
                    and sum(r.get(c) == r.get(k) for r in filled) > share * len(filled):
                found[c] = k
                break
    return found


def _is_text(v: Any) -> bool:
    return isinstance(v, str) and v != ""


def blank_repeats(rows: list[dict[str, Any]], columns: list[str]) -> tuple[list[str], list[dict[str, Any]], list[str]]:
    """(columns, rows, notes): a column equal to an earlier one in every row is dropped; one equal in
    most rows keeps only the cells that differ (a blank cell means "same as" the earlier column)."""
    repeats = repeated_columns(rows, columns)
    dropped = {c for c, k in repeats.items() if all(r.get(c) == r.get(k) for r in rows)}
    blanked = {c: k for c, k in repeats.items() if c not in dropped}
    out = [{**r, **{c: (None if r.get(c) == r.get(k) else r.get(c)) for c, k in blanked.items()}} for r in rows]
    notes = [f"A blank {c} cell is the same as {k}." for c, k in blanked.items()]
    return [c for c in columns if c not in dropped], out, notes


def sort_rows(rows: list[dict[str, Any]], column: str | None, descending: bool) -> list[dict[str, Any]]:
    """Rows ordered by one column, numbers as numbers, empty cells last either way."""
    if not column:
        return rows
    filled = [r for r in rows if r.get(column) not in (None, "")]
    empty = [r for r in rows if r.get(column) in (None, "")]

    def key(r: dict[str, Any]) -> tuple[int, float, str]:
        v = r[column]
        if isinstance(v, int | float) and not isinstance(v, bool):
            return (0, float(v), "")
        return (1, 0.0, str(v).lower())

    return sorted(filled, key=key, reverse=descending) + empty


def sources_of(rows: list[dict[str, Any]]) -> list[str]:
    """The distinct sources of the rows as users know them (the vendor page and date, not the file it
    was transcribed into)."""
    seen: list[str] = []
    for r in rows:
        s = source_as_known(str(r.get("source") or ""))
        if s and s not in seen:
            seen.append(s)
    return seen


def write_csv(files_dir: Path, table: str, view: str, rows: list[dict[str, Any]], columns: list[str]) -> Path:
    """Write the shown rows once per (table, filter and order): the knowledge base is read-only, so
    the same view always gives the same file and typing in the filter box cannot fill the disk."""
    key = hashlib.sha1(f"{table}\0{view}".encode()).hexdigest()[:16]
    folder = files_dir / "tables" / key
    path = folder / f"{table}.csv"
    if path.exists():
        return path
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{os.getpid()}-{threading.get_ident()}.tmp"  # two sessions may write at once
    with tmp.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=columns, lineterminator="\n", extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    os.replace(tmp, path)
    return path


def csv_link(files_dir: Path, path: Path | None) -> str:
    """The Download CSV link: a relative address under the app's download route, the table's name as the file's."""
    if path is None:
        return ""
    href = download_url(files_dir, path, "").lstrip("/")
    return f'<a class="csv-link" href="{html.escape(href)}" download="{html.escape(path.name)}">Download CSV</a>'


def table_columns(ctx, table: str) -> list[str]:
    rows = ctx.kb.table_rows(table) if table in available_tables(ctx) else []
    return blank_repeats(rows, list(rows[0]))[0] if rows else []


def table_view(ctx, files_dir: Path, table: str, query: str, sort_by: str | None = None, descending: bool = False):
    """(DataFrame, caption markdown, CSV path) for one table, filter and order: the grid, the
    caption's count and the CSV always hold the same rows in the same order."""
    import pandas as pd

    if table not in available_tables(ctx):
        return pd.DataFrame(), f"Unknown table {table!r}. Valid: {', '.join(available_tables(ctx))}", None
    all_rows = ctx.kb.table_rows(table)
    columns, all_rows, notes = blank_repeats(all_rows, list(all_rows[0]) if all_rows else [])
    sort_by = sort_by if sort_by in columns else None
    rows = sort_rows(filter_rows(all_rows, query), sort_by, descending)
    df = pd.DataFrame(rows, columns=columns)
    srcs = sources_of(rows)
    order = f", sorted by {sort_by} {'descending' if descending else 'ascending'}" if sort_by else ""
    caption = [f"**{TABLES.get(table, table)}**", "",
               f"{len(rows)} of {len(all_rows)} rows" + (f" match “{query.strip()}”" if (query or "").strip() else "")
               + order + "." + "".join(f" {n}" for n in notes)]
    if srcs:
        caption += ["", "Sources: " + "; ".join(srcs[:8]) + (f" (+{len(srcs) - 8} more)" if len(srcs) > 8 else "")]
    view = f"{' '.join((query or '').lower().split())}\0{sort_by}\0{descending}"
    return df, "\n".join(caption), write_csv(files_dir, table, view, rows, columns)


def render_tables_tab(ctx, files_dir: Path) -> None:
    """Build the tab's components and events inside the caller's Blocks context. Sorting is done
    here, not in the grid (its own sort and filter menus are hidden), so the CSV follows it."""
    import gradio as gr

    tables = available_tables(ctx)
    first = tables[0] if tables else None
    df0, cap0, csv0 = table_view(ctx, files_dir, first, "") if first else (None, "No tables in the knowledge base.", None)
    with gr.Row(elem_id="table-controls"):
        name = gr.Dropdown(tables, value=first, label="Table", min_width=160, elem_id="table-name")
        query = gr.Textbox(label="Filter (every word must occur in the row)", placeholder="e.g. qwen2.5-72b lora Snt9B",
                           min_width=200, elem_id="table-filter")
        sort_by = gr.Dropdown(table_columns(ctx, first) if first else [], value=None, label="Sort by",
                              min_width=140, elem_id="table-sort")
        descending = gr.Checkbox(False, label="Descending", min_width=100, elem_id="table-desc")
        # a link to the app's download route (a relative address: right behind a proxy's path too), not a
        # DownloadButton, whose address is the file's path on the server
        download = gr.HTML(csv_link(files_dir, csv0), min_width=140, elem_id="table-csv", padding=False)
    caption = gr.Markdown(cap0, elem_id="table-caption")
    grid = gr.Dataframe(df0, interactive=False, max_height=560, max_chars=60, wrap=True, elem_id="table-grid",
                        buttons=["fullscreen", "copy"])

    def show(table: str, text: str, column: str | None, desc: bool):
        df, cap, path = table_view(ctx, files_dir, table, text, column, desc)
        return df, cap, csv_link(files_dir, path)

    def switch(table: str):  # a new table starts unfiltered and unsorted
        df, cap, path = table_view(ctx, files_dir, table, "")
        return (df, cap, csv_link(files_dir, path), "",
                gr.update(choices=table_columns(ctx, table), value=None), False)

    outputs = [grid, caption, download]
    inputs = [name, query, sort_by, descending]
    name.input(switch, [name], [*outputs, query, sort_by, descending], show_progress="hidden")
    # change, not input: a pasted or dropped filter is applied too (input missed it: the box showed it, unapplied)
    query.change(show, inputs, outputs, trigger_mode="always_last", show_progress="hidden")
    query.submit(show, inputs, outputs, show_progress="hidden")
    sort_by.input(show, inputs, outputs, show_progress="hidden")
    descending.input(show, inputs, outputs, show_progress="hidden")
