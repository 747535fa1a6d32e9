"""An error message pasted into a question, read as data (signatures.toml): which error it is by its signature, in the
phase it happened (saving, exiting, starting), and the note section whose facts answer it. The answer's lead is that
section, the message's own line named, with the sentence that answers what is asked (does it matter, how to fix it,
why) first; the rest of the notes back it. Pure functions over the question and the notes' passages; no note's words
are kept here, only where they are (note file and section heading, both languages)."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from ..note_kinds import KINDS
from ..tools.tables import NotePassage

SPEC_FILE = Path(__file__).with_name("signatures.toml")
LANGS = ("en", "zh")
LEAD_CHARS = 900
LINE_CHARS = 160
CJK = re.compile(r"[\u4e00-\u9fff]")  # the message's line shown at most  # the section quoted in the lead at most; the notes' quotes follow it


@dataclass(frozen=True)
class Signature:
    id: str
    match: tuple[re.Pattern[str], ...]
    phase: tuple[re.Pattern[str], ...]
    not_phase: tuple[re.Pattern[str], ...]  # words placing the message outside that phase ("during training step 1200")
    note: str
    heading: dict[str, str]
    first: dict[str, dict[str, re.Pattern[str]]]  # asked kind -> language -> the section's sentence that goes first
    pick: dict[str, re.Pattern[str]]  # language -> the section's lines that are the answer (none: the whole section)
    title: dict[str, str]  # the error's name when the heading names another (none: the heading)
    summary: bool  # the note's summary is the body; the section holds the sentence asked first


@dataclass(frozen=True)
class Seen:
    """A signature found in a question: the message's own line (empty: pasted in an earlier turn) and what the user's
    words ask of it."""

    signature: Signature
    line: str
    asked: tuple[str, ...]


def _rx(items: Any) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p, re.I) for p in items or [] if p)


@cache
def spec() -> tuple[dict[str, tuple[re.Pattern[str], ...]], tuple[Signature, ...]]:
    with SPEC_FILE.open("rb") as f:
        raw = tomllib.load(f)
    asks = {kind: _rx(patterns) for kind, patterns in raw["asks"].items()}
    sigs = tuple(Signature(
        id=e["id"], match=_rx(e["match"]), phase=_rx(e.get("phase")), not_phase=_rx(e.get("not_phase")), note=e["note"], heading=dict(e["heading"]),
        first={kind: {lang: re.compile(p) for lang, p in by_lang.items() if p} for kind, by_lang in (e.get("first") or {}).items()},
        pick={lang: re.compile(p) for lang, p in (e.get("pick") or {}).items() if p}, title=dict(e.get("title") or {}),
        summary=e.get("body") == "summary") for e in raw["signature"])
    return asks, sigs


def read(question: str) -> Seen | None:
    """The first signature whose message the question holds, in its phase when the signature has one."""
    asks, sigs = spec()
    for sig in sigs:
        m = next((m for rx in sig.match if (m := rx.search(question))), None)
        if m is None or (sig.phase and not any(rx.search(question) for rx in sig.phase)) or any(
                rx.search(question) for rx in sig.not_phase):
            continue
        line = next((ln.strip() for ln in question.splitlines() if m.group(0) in ln), m.group(0)).strip()
        if CJK.search(line[:line.find(m.group(0))]):  # the user's Chinese words before the message on its line
            line = CJK.split(line[line.find(m.group(0)):])[0].strip(" ,，:：")
        if len(line) > LINE_CHARS:  # the message inside a sentence of the user's: from its start, up to a quote or the limit
            line = re.split(r"[\"“”]", question[m.start():m.start() + LINE_CHARS].splitlines()[0])[0].strip()
        # what is asked is read in the user's words: the message's own signature left out (the words asked of it, "retrain",
        # "怎么办", are none of a message's)
        own = question.replace(m.group(0), " ")
        if "\n" not in question.strip() and len(line) >= len(question.strip()) * 0.8:
            line = m.group(0)  # the error named in the user's own sentence, not pasted: its name is what is shown
        # (a default is asked in the user's words even where a loose match ran over them, "通信，默认等多久会超时": no
        # message says "默认")
        asked = tuple(kind for kind, rxs in asks.items() if any(rx.search(question if kind == "value" else own) for rx in rxs))
        return Seen(sig, line, asked)
    return None


def read_turn(question: str, before: str = "") -> Seen | None:
    """The signature of this turn's paste, or, in a follow-up of a turn that pasted one ("so if I ignore it, is the
    checkpoint complete?"; ``before``: the earlier turn's topic words the conversation carries), that signature with
    what this turn asks of it."""
    if (seen := read(question)) is not None or not before:
        return seen
    earlier = read(before)
    if earlier is None:
        return None
    asks = spec()[0]
    return Seen(earlier.signature, "", tuple(kind for kind, rxs in asks.items() if any(rx.search(question) for rx in rxs)))


def section(seen: Seen, passages: Sequence[NotePassage], lang: str) -> NotePassage | None:
    heading = seen.signature.heading.get(lang) or seen.signature.heading["en"]
    return next((p for p in passages if p.file == seen.signature.note and p.heading == heading), None)


def lead(seen: Seen, passages: Sequence[NotePassage], lang: str) -> str | None:
    """The section's answer: the lines the signature picks (or the whole section, cut), the sentence answering what is
    asked first. None when the search did not return the section."""
    p = section(seen, passages, lang)
    if p is None or (seen.asked == ("value",) and "value" not in seen.signature.first and not KINDS["default"][1].search(p.text)):
        return None  # (only a default asked, which the section does not state: the notes' lead answers it)
    pick = seen.signature.pick.get(lang)
    body = p.summary if seen.signature.summary else "\n".join(m.group(0).strip() for m in pick.finditer(p.text)) if pick else p.text
    body = re.sub(r"\n{2,}", "\n", body).strip()
    # a command block inside the lead's one paragraph: each of its lines as inline code
    body = re.sub(r"```[^\n]*\n(.*?)```", lambda m: "; ".join(f"`{ln.strip()}`" for ln in m.group(1).splitlines() if ln.strip()),
                  body, flags=re.S)
    first = [m.group(0).strip() for kind in seen.asked if (rx := seen.signature.first.get(kind, {}).get(lang))
             and (m := rx.search(p.text))]
    for f in first:
        body = body.replace(f, "").strip()
    body = re.sub(r"(?m)^\s*\d+\.\s*$\n?", "", body)  # a numbered item moved first leaves its number behind
    text = "\n".join([*first, body]) if first else body
    if len(text) > LEAD_CHARS:
        from .wording import sentence_cut
        text = sentence_cut(text, LEAD_CHARS).rstrip() + " …"
    # one paragraph, as every lead is: the section's list markers dropped, its lines joined
    lines = (re.sub(r"^\s*(?:[-*]|\d+\.)(?:\s+|$)", "", ln).strip() for ln in text.splitlines())
    return " ".join(ln for ln in lines if ln)


def title(seen: Seen, p: NotePassage, lang: str) -> str:
    return seen.signature.title.get(lang) or p.heading


def query(seen: Seen, lang: str) -> str:
    """The search that returns the signature's section: its heading, with the message's line."""
    return f"{seen.signature.heading.get(lang) or seen.signature.heading['en']} {seen.line}"[:600]
