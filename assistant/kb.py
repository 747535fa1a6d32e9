"""Knowledge base: DuckDB built from ``knowledge/`` and opened read-only, with named queries.

The build writes a DuckDB file into a cache folder keyed by a hash of every knowledge file, then
every process opens it read-only. Rebuilding takes a fraction of a second; the hash makes a changed
CSV take effect at the next start without any manual step, and concurrent starts (uvicorn workers)
race safely because the file is written under a temporary name and renamed into place.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from pathlib import Path
from typing import Any

import duckdb

from .notes import NoteIndex, load_notes

SCHEMA_VERSION = "2"  # 2: notes.lang (English and Chinese notes)
# Never reach the network: DuckDB would otherwise try to download extensions on first use.
DUCKDB_CONFIG = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}

# Table name -> CSV path under knowledge/. Types are read from the header by DuckDB's sniffer.
TABLE_FILES = {
    "recipes_llamafactory": "tables/recipes_llamafactory.csv",
    "min_cards": "tables/min_cards.csv",
    "vllm_min_cards": "tables/vllm_min_cards.csv",
    "models": "catalog/models.csv",
    "hardware": "catalog/hardware.csv",
}


def knowledge_hash(knowledge_dir: Path) -> str:
    h = hashlib.sha256(SCHEMA_VERSION.encode())
    for p in sorted(knowledge_dir.rglob("*")):
        if p.is_file() and p.suffix in {".csv", ".md", ".json", ".yaml"}:
            h.update(str(p.relative_to(knowledge_dir)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()[:16]


def build_database(knowledge_dir: Path, target: Path) -> None:
    """Create the DuckDB file ``target`` from the CSVs (and notes) in ``knowledge_dir``."""
    con = duckdb.connect(str(target), config=DUCKDB_CONFIG)
    try:
        for table, rel in TABLE_FILES.items():
            path = knowledge_dir / rel
            if not path.exists():
                continue
            con.execute(
                f"CREATE TABLE {table} AS SELECT * FROM read_csv(?, header=true, auto_detect=true, "
                "sample_size=-1, nullstr='')",
                [str(path)],
            )
        con.execute(
            "CREATE TABLE notes (note_id VARCHAR, section_id INTEGER, file VARCHAR, title VARCHAR, topic VARCHAR,"
            " source VARCHAR, heading VARCHAR, text VARCHAR, keywords VARCHAR, lang VARCHAR)"
        )
        for p in load_notes(knowledge_dir / "notes"):
            con.execute(
                "INSERT INTO notes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [p.note_id, p.section_id, p.file, p.title, p.topic, p.source, p.heading, p.text, " ".join(p.keywords), p.lang],
            )
    finally:
        con.close()


def ensure_database(knowledge_dir: Path, cache_dir: Path) -> Path:
    """Return the path of an up-to-date DuckDB file for ``knowledge_dir``, building it if needed."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    target = cache_dir / f"kb-{knowledge_hash(knowledge_dir)}.duckdb"
    if target.exists():
        return target
    fd, tmp = tempfile.mkstemp(prefix=target.stem, suffix=".tmp", dir=cache_dir)
    os.close(fd)
    os.unlink(tmp)  # DuckDB wants to create the file itself
    try:
        build_database(knowledge_dir, Path(tmp))
        os.replace(tmp, target)
    finally:
        for leftover in (tmp, tmp + ".wal"):
            if os.path.exists(leftover):
                os.unlink(leftover)
    return target


class KnowledgeBase:
    """Read-only DuckDB connection plus named queries. One cursor per thread (DuckDB connections are
    not safe to share across threads)."""

    def __init__(self, path: Path):
        self.path = path
        self._con = duckdb.connect(str(path), read_only=True, config={**DUCKDB_CONFIG, "threads": 1})
        self._local = threading.local()
        self._notes: NoteIndex | None = None
        self._lock = threading.Lock()
        self._memo: dict[tuple, list[dict[str, Any]]] = {}

    @classmethod
    def open(cls, knowledge_dir: Path, cache_dir: Path) -> KnowledgeBase:
        return cls(ensure_database(knowledge_dir, cache_dir))

    def cursor(self) -> duckdb.DuckDBPyConnection:
        cur = getattr(self._local, "cur", None)
        if cur is None:
            cur = self._local.cur = self._con.cursor()
        return cur

    def query(self, sql: str, params: list | tuple = ()) -> list[dict[str, Any]]:
        """Run one parameterised query (named queries below are the only callers) and return dicts."""
        cur = self.cursor().execute(sql, list(params))
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]

    def cached(self, sql: str, params: list | tuple = ()) -> list[dict[str, Any]]:
        """``query`` memoised for the life of this connection. Safe because the database is read-only
        and rebuilt only at start; returns fresh dict copies so callers may modify them."""
        key = (sql, tuple(params))
        rows = self._memo.get(key)
        if rows is None:
            rows = self.query(sql, params)
            with self._lock:
                self._memo[key] = rows
        return [dict(r) for r in rows]

    def tables(self) -> list[str]:
        return [r["name"] for r in self.cached("SELECT table_name AS name FROM information_schema.tables ORDER BY 1")]

    # -- named queries -------------------------------------------------------------------------
    def table_rows(self, table: str) -> list[dict[str, Any]]:
        if table not in self.tables():
            raise KeyError(table)
        return self.query(f'SELECT * FROM "{table}"')  # table name checked against the catalog above

    def models(self) -> list[dict[str, Any]]:
        return self.cached("SELECT * FROM models ORDER BY family, params_b")

    def model(self, model_id: str) -> dict[str, Any] | None:
        rows = self.cached("SELECT * FROM models WHERE id = ?", [model_id])
        return rows[0] if rows else None

    def hardware(self) -> list[dict[str, Any]]:
        return self.cached("SELECT * FROM hardware ORDER BY vendor, memory_gb")

    def hardware_row(self, hw_id: str) -> dict[str, Any] | None:
        rows = self.cached("SELECT * FROM hardware WHERE id = ?", [hw_id])
        return rows[0] if rows else None

    def recipes(self, model_id: str, strategy: str | None = None) -> list[dict[str, Any]]:
        return self.cached(
            "SELECT * FROM recipes_llamafactory WHERE model_id = ? AND (? IS NULL OR strategy = ?) "
            "ORDER BY strategy, cutoff_len",
            [model_id, strategy, strategy],
        )

    def min_cards(self, model_id: str, strategy: str | None, framework: str | None, hardware: str | None) -> list[dict[str, Any]]:
        return self.cached(
            "SELECT * FROM min_cards WHERE model_id = ? AND (? IS NULL OR strategy = ?) "
            "AND (? IS NULL OR framework = ?) AND (? IS NULL OR hardware = ?) "
            "ORDER BY strategy, seq_len, framework, hardware",
            [model_id, strategy, strategy, framework, framework, hardware, hardware],
        )

    def vllm_rows(self, model_id: str) -> list[dict[str, Any]]:
        return self.cached(
            'SELECT * FROM vllm_min_cards WHERE model_id = ? ORDER BY "table", memory_gb', [model_id]
        )

    def table_model_ids(self) -> set[str]:
        rows = self.cached(
            "SELECT model_id FROM recipes_llamafactory UNION SELECT model_id FROM min_cards "
            "UNION SELECT model_id FROM vllm_min_cards"
        )
        return {r["model_id"] for r in rows}

    def notes_index(self) -> NoteIndex:
        with self._lock:
            if self._notes is None:
                self._notes = NoteIndex(self.query("SELECT * FROM notes ORDER BY lang, note_id, section_id"))
            return self._notes

    def close(self) -> None:
        self._con.close()
