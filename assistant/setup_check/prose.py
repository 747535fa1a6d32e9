"""The question around a paste: device counts ("8×910B", "on 8 A100s", "8卡", "2 nodes") and the words
that may name the hardware (the tool resolves them against the catalog)."""

from __future__ import annotations

import re

from .reading import Reading

_TIMES = re.compile(r"(?<![A-Za-z0-9_.])(\d{1,5})\s*[x×*]\s*([A-Za-z][\w.\-]*|\d{3,4}[A-Za-z]*[\w.\-]*)", re.IGNORECASE)
_COUNT = re.compile(r"(?<![A-Za-z0-9_.])(\d{1,5})\s*(?:张|块|个)?\s*(?:卡|cards?\b|GPUs?\b|NPUs?\b|devices?\b|DIEs?\b)", re.IGNORECASE)
_ON = re.compile(r"(?<![A-Za-z0-9_.])(\d{1,5})\s+([A-Za-z][\w.\-]*\d[\w.\-]*)s?\b")  # "8 A100s", "16 910B"
_NODES = re.compile(r"(?<![A-Za-z0-9_.])(\d{1,4})\s*(?:nodes?\b|机|台(?:机器)?|个节点)", re.IGNORECASE)
_HW_WORD = re.compile(r"(?<![A-Za-z0-9_-])(snt9b23|snt9b|910[abc]\d?|atlas\s*\d{3}\w*|[ahlbt]\d{2,3}\w*|rtx\s*\d{4}|\d{4}(?:\s*ti)?|"
                      r"mi\d{3}x?|v100|a6000|300i\s*duo)(?:[-\s]?(\d{2,3})\s*g[bi]?)?(?![A-Za-z0-9_])", re.IGNORECASE)


def read(prose: str, out: Reading) -> list[str]:
    """Record device and node counts; return the words that may name the hardware, best first."""
    words: list[str] = []
    if m := _TIMES.search(prose):
        out.put("devices", int(m.group(1)), f"question: {m.group(0)}", keep=True)
        words.append(m.group(2))
    elif m := _COUNT.search(prose):
        out.put("devices", int(m.group(1)), f"question: {m.group(0).strip()}", keep=True)
    elif m := _ON.search(prose):
        out.put("devices", int(m.group(1)), f"question: {m.group(0)}", keep=True)
        words.append(m.group(2))
    if m := _NODES.search(prose):
        out.put("nodes", int(m.group(1)), f"question: {m.group(0)}", keep=True)
    words += [m.group(0) for m in _HW_WORD.finditer(prose)]
    return words
