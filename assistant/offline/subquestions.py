"""The sub-questions of a question that asks several things ("Pod 一直 Pending 怎么排查？另外在线服务怎么开公网访问？",
"two things: where do the logs go, and how do I get HF weights back?"): each is answered with a lead of its own, in the
order asked. A part with no question in it (a statement: "I use MindSpeed-LLM,") is context and joins the part after
it. Pure functions over the question's text; nothing here knows a topic."""

from __future__ import annotations

import re
from typing import NamedTuple

# where one sub-question ends and the next begins: a question mark with more after it, a connective that opens a new
# question ("另外", "还有", "顺便问下", "also", "and how …"), a full stop or semicolon
BREAK = re.compile(r"[?？]+\s*|[;；。]\s*|(?:[,，]\s*)?(?:另外|此外|还有(?=[,，\s]|一个|个)|以及|顺便(?:问一下|问下|问)?|再问(?:一下|下)?|其次|第二)\s*[,，:：]?\s*|"
                   r"(?:[,，]\s*|\s)(?:and\s+)?(?:also|plus|second(?:ly)?|then)(?:\s*,)?\s+(?=(?:how|what|where|which|when|why|is|are|can|could|do|does|should|will)\b)|"
                   r",\s+and\s+(?=(?:how|what|where|which|when|why|is|are|can|could|do|does|should|will)\b)|"
                   # an elliptic second question after a comma ("…, and for the 4b one?", "…, what about 8192?")
                   r"[,，]\s*(?:and\s+)?(?=(?:for|with)\s+(?:the\s+)?\S+(?:\s+\S+)?\s*(?:one|model|version)?\s*[?？]\s*$|(?:what|how)\s+about\b)",
                   re.I)
# a list announced ("two things:", "两个问题：") opens the question; what follows is its parts
ANNOUNCED = re.compile(r"^\s*(?:(?:two|three|a\s+couple\s+of|some)\s+(?:things|questions)|两个问题|几个问题|两件事|问两个)\s*[:：,，]\s*", re.I)
# something asked: a question word, a question mark or a Chinese question particle; an English auxiliary asks only where
# the part opens with it ("is BF16 better …", not "my head dim is 576")
ASKS = re.compile(r"[?？]|吗|么|呢|吧\s*$|多少|几|什么|啥|哪|怎么|怎样|如何|是否|是不是|对吧|要不要|能不能|可不可以|(?<![a-z])(?:what|how|which|where|when|why)(?![a-z])|"
                  r"^\s*(?:(?:and|also|then|so)\s+)?(?:does|do|is|are|can|could|should|will|would)(?![a-z])", re.I)
MIN_CHARS = 6  # a part shorter than this ("ok?", "对吧") asks nothing of its own


def size(text: str) -> int:
    """A part's length, a Chinese character counting twice ("要怎么打开" asks a whole question in five)."""
    return len(text) + len(re.findall(r"[\u4e00-\u9fff]", text))


class Part(NamedTuple):
    start: int
    text: str


def parts(question: str) -> list[Part]:
    """The sub-questions in the order asked (each with its offset), or one part for a question of one; a part that
    asks nothing joins the part after it (a last one joins the part before)."""
    q = question.strip()
    m = ANNOUNCED.match(q)
    base = m.end() if m else 0
    pieces: list[tuple[Part, bool]] = []  # each piece, and whether a question mark ends it
    at = base
    for b in BREAK.finditer(q, base):
        if b.start() > at:
            pieces.append((Part(at, q[at:b.start()]), bool(re.match(r"[?？]", b.group(0)))))
        at = b.end()
    if at < len(q):
        pieces.append((Part(at, q[at:]), False))
    pieces = [split for piece in pieces for split in at_commas(q, *piece)]
    out: list[Part] = []
    pending: Part | None = None
    for p, marked in pieces:
        text = p.text.strip(" ,，:：")
        asks = marked or bool(ASKS.search(text))  # "1M samples at gbs 256 - steps per epoch?": asked by its mark
        if size(text) < MIN_CHARS and out and not asks:
            continue  # "ok", "thanks": nothing asked
        if pending is not None:  # a statement before: context of this part
            p = Part(pending.start, q[pending.start:p.start + len(p.text)])
            pending = None
        if not asks or size(text) < MIN_CHARS:
            pending = p
            continue
        out.append(p)
    if pending is not None and out:
        last = out.pop()
        out.append(Part(last.start, q[last.start:pending.start + len(pending.text)]))
    elif pending is not None:
        out.append(pending)
    return out


def asks(text: str) -> bool:
    return size(text.strip(" ,，:：")) >= MIN_CHARS and bool(ASKS.search(text.strip(" ,，:：")))


def at_commas(q: str, piece: Part, marked: bool) -> list[tuple[Part, bool]]:
    """A piece asking two things joined by a comma ("那 GBS 128 的话 GA 多少，权重要不要重新转换"): split after each clause
    that asks while a later clause asks too; clauses that ask nothing ("qwen 7b lora，几张卡") stay with the one after."""
    cuts = [m.end() for m in re.finditer(r"[,，]\s*", piece.text)]
    if not cuts:
        return [(piece, marked)]
    bounds = list(zip([0, *cuts], [*cuts, len(piece.text)], strict=True))
    asking = [asks(piece.text[a:b]) for a, b in bounds]
    out, start = [], 0
    for i, (_, b) in enumerate(bounds[:-1]):
        if asking[i] and any(asking[i + 1:]):
            out.append((Part(piece.start + start, piece.text[start:b].rstrip(" ,，")), True))
            start = b
    out.append((Part(piece.start + start, piece.text[start:]), marked))
    return out


def asked_apart(question: str) -> list[Part]:
    """The sub-questions of a question of several (two or more), else empty."""
    found = parts(question)
    return found if len(found) >= 2 else []


def apart(question: str, offsets: list[int]) -> bool:
    """True when the question asks several things and the offsets (into ``question``, in the order written) fall in
    different sub-questions, each after the one before ("qwen2.5-7b 最少几张卡？qwen2.5-72b 呢", "…, and for the 4b one?"):
    what each names is a part asked of its own, not context of one question."""
    found = asked_apart(question)
    if not found or len(offsets) < 2:
        return False
    shift = len(question) - len(question.lstrip())  # parts() reads the stripped question
    index = [next((i for i, p in enumerate(found) if p.start <= at - shift < p.start + len(p.text)), None) for at in offsets]
    return None not in index and all(a < b for a, b in zip(index, index[1:], strict=False))  # type: ignore[operator]
