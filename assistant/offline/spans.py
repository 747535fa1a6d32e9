"""Typed spans: what the reader read in a question, where, as which slot and how.

Each extractor claims the characters it read as a ``Span`` (start, end, slot, value, how) on the question as
typed; the spans stay in the frame, so the stated-value ledger and the answer know which words became which
slot. A character belongs to one slot: an extractor that runs later (lower priority) does not read characters
an earlier one claimed. Pattern readers match on ``Reading.unread()``, the question with claimed characters
read as spaces (offsets kept, so a span is always a range of the question itself); the token readers (model
and part names) skip claimed tokens directly."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

How = str  # "pattern" (a slot's pattern), "catalog" (a catalog name or alias), "vocabulary", "instruction"


@dataclass(frozen=True)
class Span:
    """One reading: characters start..end of the question became ``value`` of ``slot``."""

    start: int
    end: int
    slot: str
    value: Any = None
    how: How = "pattern"

    def overlaps(self, start: int, end: int) -> bool:
        return self.start < end and start < self.end


class Reading:
    """The lower-cased question and the spans claimed on it so far."""

    def __init__(self, text: str):
        self.text = text
        self.spans: list[Span] = []
        self._unread: str | None = text

    @classmethod
    def claiming(cls, text: str, slot: str, *patterns: re.Pattern) -> Reading:
        """A reading of ``text`` with every match of ``patterns`` claimed as ``slot``, in turn: what is left is what
        the words of another reading leave to a later one ("how many users" asks users, its "how many" no count)."""
        r = cls(text)
        for rx in patterns:
            r.claim_all(rx, slot)
        return r

    @classmethod
    def holding(cls, text: str, spans: Iterable[Span]) -> Reading:
        """A reading of ``text`` (a question, or the head of one) holding another reading's ``spans``, cut to the text:
        what those spans leave unread ("recipe 表里 llama2-70b 哪几行要多机" without the model's words, its digits no count)."""
        r = cls(text)
        for sp in spans:
            r.claim(sp.start, min(sp.end, len(text)), sp.slot, sp.value, sp.how)
        return r

    def claim(self, start: int, end: int, slot: str, value: Any = None, how: How = "pattern") -> Span:
        span = Span(start, end, slot, value, how)
        if end > start:
            self.spans.append(span)
            self._unread = None
        return span

    def claim_match(self, m: re.Match, slot: str, value: Any = None, how: How = "pattern", group: int | str = 0) -> Span:
        return self.claim(m.start(group), m.end(group), slot, value, how)

    def claim_all(self, rx: re.Pattern, slot: str, how: How = "vocabulary") -> list[Span]:
        """Claims every match of ``rx`` in what is still unread (words read as ``slot``, which later readers skip)."""
        return [self.claim_match(m, slot, how=how) for m in self.finditer(rx)]

    def claimed(self, start: int, end: int) -> bool:
        return any(s.overlaps(start, end) for s in self.spans)

    def unread(self) -> str:
        """The question with every claimed character read as a space: what a pattern reader still sees."""
        if self._unread is None:
            chars = list(self.text)
            for s in self.spans:
                chars[s.start:s.end] = " " * (s.end - s.start)
            self._unread = "".join(chars)
        return self._unread

    def search(self, rx: re.Pattern) -> re.Match | None:
        return rx.search(self.unread())

    def finditer(self, rx: re.Pattern) -> Iterator[re.Match]:
        return rx.finditer(self.unread())

    def slot(self, name: str) -> list[Span]:
        return [s for s in self.spans if s.slot == name]
