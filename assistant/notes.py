"""Notes: markdown files with front matter, split into sections, ranked with BM25.

Why bm25s and not DuckDB's fts extension: fts is not bundled with the DuckDB wheel and would be
downloaded on first use, which fails offline; bm25s is a small, maintained BM25 library that works
on pre-tokenised text, so Chinese can be tokenised into character unigrams and bigrams here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN = re.compile(rf"[{_CJK}]+|[a-z0-9_]+(?:[.\-][a-z0-9_]+)*")
_STOP = {"the", "a", "an", "of", "to", "in", "on", "for", "and", "or", "is", "are", "do", "does", "what", "how", "why", "my", "i", "it", "with", "when", "be", "can", "that", "this", "should"}


def tokenize(text: str) -> list[str]:
    """Lower-case words (keeping `expandable_segments`, `ds_z3`, `3.1`), plus CJK unigrams and bigrams."""
    out: list[str] = []
    for m in _TOKEN.finditer(text.lower()):
        tok = m.group(0)
        if re.match(rf"[{_CJK}]", tok):
            out.extend(tok)
            out.extend(tok[i : i + 2] for i in range(len(tok) - 1))
        elif tok not in _STOP:
            out.append(tok)
            if re.search(r"[.\-_]", tok):  # also index the parts: "zero-3" -> zero, 3
                out.extend(p for p in re.split(r"[.\-_]", tok) if p and p not in _STOP)
    return out


@dataclass
class NoteSection:
    note_id: str
    section_id: int
    file: str
    title: str
    topic: str
    source: str
    heading: str
    text: str
    keywords: list[str] = field(default_factory=list)


def parse_note(path: Path) -> list[NoteSection]:
    raw = path.read_text(encoding="utf-8")
    meta: dict[str, Any] = {}
    body = raw
    if raw.startswith("---"):
        _, fm, body = raw.split("---", 2)
        meta = yaml.safe_load(fm) or {}
    note_id = path.stem
    title = str(meta.get("title", note_id))
    keywords = [str(k) for k in meta.get("keywords", []) or []]
    sections: list[NoteSection] = []
    heading, buf = title, []

    def flush():
        text = "\n".join(buf).strip()
        if text:
            sections.append(
                NoteSection(note_id, len(sections), path.name, title, str(meta.get("topic", note_id)),
                            str(meta.get("source", "")), heading, text, keywords)
            )

    for line in body.splitlines():
        if line.startswith("## "):
            flush()
            heading, buf = line[3:].strip(), []
        elif not line.startswith("# "):
            buf.append(line)
    flush()
    return sections


def load_notes(notes_dir: Path) -> list[NoteSection]:
    if not notes_dir.exists():
        return []
    out: list[NoteSection] = []
    for p in sorted(notes_dir.glob("*.md")):
        if p.name.lower() != "readme.md":
            out.extend(parse_note(p))
    return out


class NoteIndex:
    """BM25 over note sections; the note's title and keywords are added to each section's text."""

    def __init__(self, rows: list[dict[str, Any]]):
        import bm25s

        self.rows = rows
        self._bm25 = bm25s.BM25()
        docs = [tokenize(f"{r['title']} {r['heading']} {r['keywords']} {r['text']}") or ["_"] for r in rows]
        if docs:
            self._bm25.index(docs, show_progress=False)

    def search(self, query: str, limit: int = 5) -> list[tuple[float, dict[str, Any]]]:
        toks = tokenize(query)
        if not toks or not self.rows:
            return []
        scores = self._bm25.get_scores(toks)
        ranked = sorted(range(len(self.rows)), key=lambda i: -scores[i])
        return [(float(scores[i]), self.rows[i]) for i in ranked[:limit] if scores[i] > 0]
