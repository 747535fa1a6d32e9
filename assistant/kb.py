"""Knowledge base: DuckDB built from ``knowledge/`` and opened read-only, with named queries.

The build writes a DuckDB file into a cache folder keyed by a hash of every knowledge file, then
every process opens it read-only. Rebuilding takes a fraction of a second; the hash makes a changed
CSV take effect at the next start without any manual step, and concurrent starts (uvicorn workers)
race safely because the file is written under a temporary name and renamed into place. A build
killed half-way leaves a temporary file that the next build removes; a cache file that will not
open is built again; a cache folder that cannot be written falls back to the temp dir.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import stat
import tempfile
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from .errors import SizingError

if TYPE_CHECKING:  # notes (YAML front matter, BM25) load on first use: `sizing call` start-up
    from .notes import NoteIndex

log = logging.getLogger(__name__)
STALE_BUILD_S = 3600.0  # a build takes well under a second; an hour-old temp file is abandoned whatever its pid

SCHEMA_VERSION = "4"  # 2: notes.lang (English and Chinese notes); 3: notes.summary; 4: notes.answers
# Never reach the network: DuckDB would otherwise try to download extensions on first use.
DUCKDB_CONFIG: dict[str, str | bool | int | float | list[str]] = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}

# Table name -> CSV path under knowledge/. Types are read from the header by DuckDB's sniffer.
TABLE_FILES = {
    "recipes_llamafactory": "tables/recipes_llamafactory.csv",
    "min_cards": "tables/min_cards.csv",
    "vllm_min_cards": "tables/vllm_min_cards.csv",
    "models": "catalog/models.csv",
    "hardware": "catalog/hardware.csv",
    "model_variants": "catalog/model_variants.csv",
    "mindspeed_examples": "tables/mindspeed_examples.csv",
}


def vendor_tables(part: dict[str, Any]) -> frozenset[str]:
    """The vendor tables a hardware catalog row says describe the part (its ``vendor_tables`` column, ``;``-separated:
    min_cards, recipes, vllm)."""
    return frozenset(t.strip() for t in str(part.get("vendor_tables") or "").split(";") if t.strip())


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
            " source VARCHAR, heading VARCHAR, text VARCHAR, keywords VARCHAR, lang VARCHAR, summary VARCHAR, answers VARCHAR)"
        )
        from .notes import load_notes

        for p in load_notes(knowledge_dir / "notes"):
            con.execute(
                "INSERT INTO notes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [p.note_id, p.section_id, p.file, p.title, p.topic, p.source, p.heading, p.text, " ".join(p.keywords), p.lang, p.summary,
                 "|".join(p.answers)],
            )
    finally:
        con.close()


class KnowledgeBaseUnavailable(SizingError):
    """No folder to build the knowledge base in: said in one line, with the setting that fixes it."""


def fallback_cache_dir() -> Path:
    """Where the cache goes when the configured folder cannot be written: the temp dir, per user."""
    return Path(tempfile.gettempdir()) / f"sizing-cache-{os.getuid() if hasattr(os, 'getuid') else 'user'}"


class UntrustedFolder(OSError):
    """A folder in the shared temp dir that someone else owns or can write: nothing in it is read."""


def _private_fallback(folder: Path) -> tuple[Path, bool]:
    """The temp-dir fallback made safe to read from: (folder, whether its files can be trusted).

    Anyone can create ``/tmp/sizing-cache-<uid>`` first and put a knowledge base of their own in it.
    The folder is used only when it is a real folder this user owns that no one else can write; one
    that is ours but was open to others is closed (0700) and its files are not trusted (rebuilt). A
    folder someone else owns is left alone: a fresh private folder (mkdtemp) is used instead."""
    uid = os.geteuid() if hasattr(os, "geteuid") else None
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o700)
    info = folder.lstat()
    if uid is None:  # no owners to check (Windows): the folder is per user already
        return folder, True
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != uid:
        log.warning("%s is not a folder owned by this user (uid %s); using a private temp folder instead", folder, uid)
        return Path(tempfile.mkdtemp(prefix="sizing-cache-")), True
    if info.st_mode & 0o077:
        folder.chmod(0o700)
        return folder, False
    return folder, True


def _trusted_file(path: Path) -> bool:
    """A cached file this user owns and no one else can write."""
    if not hasattr(os, "geteuid"):
        return True
    info = path.lstat()
    return stat.S_ISREG(info.st_mode) and info.st_uid == os.geteuid() and not info.st_mode & 0o022


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # another user's process, or a platform without signals: assume it is building
    return True


def _sweep_leftovers(cache_dir: Path) -> None:
    """Remove temporary files of builds whose process is gone (killed mid-build). Names carry the pid:
    kb-<hash>.<pid>.tmp and DuckDB's .wal beside it; files of live builds are left alone."""
    for p in cache_dir.glob("kb-*.tmp*"):
        parts = p.name.split(".")
        pid = int(parts[1]) if len(parts) > 2 and parts[1].isdigit() else None
        stale = pid is None or not _pid_alive(pid) or time.time() - p.stat().st_mtime > STALE_BUILD_S
        if stale:
            with contextlib.suppress(OSError):
                p.unlink()


def _build_in(knowledge_dir: Path, cache_dir: Path, rebuild: bool, *, shared: bool = False) -> Path:
    """Build (or reuse) the knowledge base in ``cache_dir``; ``shared`` marks the temp-dir fallback,
    where only a private folder and files this user owns are read."""
    if shared:
        cache_dir, trusted = _private_fallback(cache_dir)
        rebuild = rebuild or not trusted
    else:
        cache_dir.mkdir(parents=True, exist_ok=True)
    target = cache_dir / f"kb-{knowledge_hash(knowledge_dir)}.duckdb"
    if target.exists() and not rebuild and (not shared or _trusted_file(target)):
        return target
    _sweep_leftovers(cache_dir)
    # Built under a temporary name and renamed into place: a reader sees the whole file or none, and
    # concurrent builders (uvicorn workers) each rename a complete file.
    tmp = cache_dir / f"{target.stem}.{os.getpid()}.tmp"
    try:
        for leftover in (tmp, Path(f"{tmp}.wal")):
            leftover.unlink(missing_ok=True)
        build_database(knowledge_dir, tmp)
        os.replace(tmp, target)
    finally:
        for leftover in (tmp, Path(f"{tmp}.wal")):
            with contextlib.suppress(OSError):
                leftover.unlink(missing_ok=True)
    return target


def ensure_database(knowledge_dir: Path, cache_dir: Path, *, rebuild: bool = False) -> Path:
    """Return the path of an up-to-date DuckDB file for ``knowledge_dir``, building it if needed (or
    always, with ``rebuild``). A cache folder that cannot be written (a read-only home) falls back to
    the temp dir; when neither can be written, one KnowledgeBaseUnavailable says what to set."""
    errors = []
    try:
        folders = [cache_dir, fallback_cache_dir()]
    except OSError:  # no usable temp dir at all (tempfile found none)
        folders = [cache_dir]
    for folder in dict.fromkeys(folders):
        try:
            return _build_in(knowledge_dir, folder, rebuild, shared=folder != cache_dir)
        except (OSError, duckdb.Error) as e:
            reason = getattr(e, "strerror", None) or str(e).splitlines()[0]
            errors.append(f"{folder} ({reason})")
            log.warning("Cannot build the knowledge base in %s: %s", folder, reason)
    raise KnowledgeBaseUnavailable(
        "unavailable", "Cannot write the knowledge-base cache in " + " or ".join(errors)
        + ": set SIZING_CACHE_DIR to a writable folder.", status=503)


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
        path = ensure_database(knowledge_dir, cache_dir)
        try:
            return cls(path)
        except duckdb.Error as e:  # a corrupt or truncated cache file: build it again
            log.warning("The cached knowledge base %s cannot be opened (%s); rebuilding it.", path, str(e).splitlines()[0])
            return cls(ensure_database(knowledge_dir, cache_dir, rebuild=True))

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

    def model(self, model_id: str, variant: str | None = None) -> dict[str, Any] | None:
        """The catalog row, its max_context that of the ``variant`` named (base, instruct, chat), else of the variant used
        when none is named (model_variants.csv: the -Instruct config's 32,768 for Qwen2.5, not the base's 131,072),
        named in ``context_variant``."""
        rows = self.cached("SELECT * FROM models WHERE id = ?", [model_id])
        if not rows:
            return None
        row = dict(rows[0])
        variants = self.context_variants(model_id)
        used = next((v for v in variants if v["variant"] == variant), None) or next((v for v in variants if v["default"]), None)
        if used:
            row["max_context"], row["context_variant"] = used["max_context"], used["hf_repo"].split("/")[-1]
            row["context_variant_named"] = used["variant"] == variant
        return row

    def context_variants(self, model_id: str) -> list[dict[str, Any]]:
        """The variants (base, -Instruct, -chat) whose own context differs, each with its max_context (none: one limit)."""
        if "model_variants" not in {r["table_name"] for r in self.cached("SELECT table_name FROM information_schema.tables")}:
            return []
        return self.cached("SELECT * FROM model_variants WHERE model_id = ? ORDER BY max_context", [model_id])

    def hardware(self) -> list[dict[str, Any]]:
        return self.cached("SELECT * FROM hardware ORDER BY vendor, memory_gb, rowid")  # rowid: catalog order among equals

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

    def mindspeed_examples(self, model_id: str | None = None) -> list[dict[str, Any]]:
        """The Ascend/MindSpeed-LLM example scripts' settings (every script when ``model_id`` is None)."""
        return self.cached("SELECT * FROM mindspeed_examples WHERE (? IS NULL OR model_id = ?) ORDER BY model_id, stage, "
                           "method, seq_len", [model_id, model_id])

    def table_model_ids(self) -> set[str]:
        rows = self.cached(
            "SELECT model_id FROM recipes_llamafactory UNION SELECT model_id FROM min_cards "
            "UNION SELECT model_id FROM vllm_min_cards"
        )
        return {r["model_id"] for r in rows}

    def notes_index(self) -> NoteIndex:
        with self._lock:
            if self._notes is None:
                from .notes import NoteIndex

                self._notes = NoteIndex(self.query("SELECT * FROM notes ORDER BY lang, note_id, section_id"))
            return self._notes

    def close(self) -> None:
        self._con.close()
