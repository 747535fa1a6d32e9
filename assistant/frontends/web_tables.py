"""The "Tables" tab: the vendor tables and catalogs from the knowledge base, with a text filter, the
sources of the shown rows and a CSV download of exactly what is shown."""

from __future__ import annotations

import csv
import hashlib
import os
import threading
from pathlib import Path
from typing import Any

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


def sources_of(rows: list[dict[str, Any]]) -> list[str]:
    seen: list[str] = []
    for r in rows:
        s = r.get("source")
        if s and s not in seen:
            seen.append(str(s))
    return seen


def write_csv(files_dir: Path, table: str, query: str, rows: list[dict[str, Any]], columns: list[str]) -> Path:
    """Write the shown rows once per (table, filter): the knowledge base is read-only, so the same
    filter always gives the same file and typing in the filter box cannot fill the disk."""
    key = hashlib.sha1(f"{table}\0{' '.join(query.lower().split())}".encode()).hexdigest()[:16]
    folder = files_dir / "tables" / key
    path = folder / f"{table}.csv"
    if path.exists():
        return path
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{os.getpid()}-{threading.get_ident()}.tmp"  # two sessions may write at once
    with tmp.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=columns, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    os.replace(tmp, path)
    return path


def table_view(ctx, files_dir: Path, table: str, query: str):
    """(DataFrame, caption markdown, CSV path) for one table and filter."""
    import pandas as pd

    if table not in available_tables(ctx):
        return pd.DataFrame(), f"Unknown table {table!r}. Valid: {', '.join(available_tables(ctx))}", None
    all_rows = ctx.kb.table_rows(table)
    columns = list(all_rows[0]) if all_rows else []
    rows = filter_rows(all_rows, query)
    df = pd.DataFrame(rows, columns=columns)
    srcs = sources_of(rows)
    caption = [f"**{TABLES.get(table, table)}**", "",
               f"{len(rows)} of {len(all_rows)} rows" + (f" match “{query.strip()}”" if (query or "").strip() else "")
               + ". Sort with a column header's ⋮ menu."]
    if srcs:
        caption += ["", "Sources: " + "; ".join(srcs[:8]) + (f" (+{len(srcs) - 8} more)" if len(srcs) > 8 else "")]
    return df, "\n".join(caption), write_csv(files_dir, table, query or "", rows, columns)


def render_tables_tab(ctx, files_dir: Path) -> None:
    """Build the tab's components and events inside the caller's Blocks context."""
    import gradio as gr

    tables = available_tables(ctx)
    first = tables[0] if tables else None
    df0, cap0, csv0 = table_view(ctx, files_dir, first, "") if first else (None, "No tables in the knowledge base.", None)
    with gr.Row():
        name = gr.Dropdown(tables, value=first, label="Table", scale=1, elem_id="table-name")
        query = gr.Textbox(label="Filter (every word must occur in the row)", placeholder="e.g. qwen2.5-72b lora Snt9B",
                           scale=2, elem_id="table-filter")
        download = gr.DownloadButton("Download CSV", value=str(csv0) if csv0 else None, scale=0, size="md",
                                      elem_id="table-csv")
    caption = gr.Markdown(cap0, elem_id="table-caption")
    grid = gr.Dataframe(df0, interactive=False, max_height=560, max_chars=80, elem_id="table-grid",
                        buttons=["fullscreen", "copy"])

    def show(table: str, text: str):
        df, cap, path = table_view(ctx, files_dir, table, text)
        return df, cap, gr.update(value=str(path) if path else None)

    outputs = [grid, caption, download]
    name.change(show, [name, query], outputs, show_progress="hidden")
    query.input(show, [name, query], outputs, trigger_mode="always_last", show_progress="hidden")
    query.submit(show, [name, query], outputs, show_progress="hidden")
