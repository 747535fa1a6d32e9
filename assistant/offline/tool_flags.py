"""Values the user gives a documented vendor tool's flags or a launch script's variables, said back with their
meaning (tool_flags.toml: one entry per flag, the note whose vendor page documents it). ``stated`` finds
"--flag v [v …]" and "VAR=v" in a question and returns one line per flag given (its meaning with the user's value),
then the figures the pages' rules give from those values: the spread of generate_dataset.py's lengths, how long
benchmark_serving.py takes to send its requests, the static test's rounds, vLLM's budget and KV need, GBS / MBS."""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

SPEC_FILE = Path(__file__).with_name("tool_flags.toml")
NUMBER = r"\d+(?:\.\d+)?"
CARDS = re.compile(r"(?<![\d.])(\d{1,4})\s*(?:x\s*)?(?:NPUs?|GPUs?|cards?|devices?|张卡|张|卡)(?![a-z])", re.I)
TP = re.compile(r"(?<![\w-])(?:TP|tensor[-_\s]?parallel(?:[-_\s]?size)?)\s*[:=：]?\s*(\d{1,3})(?![\d.])", re.I)
PP = re.compile(r"(?<![\w-])(?:PP|pipeline[-_\s]?parallel(?:[-_\s]?size)?)\s*[:=：]?\s*(\d{1,3})(?![\d.])", re.I)
# how long a run takes, asked ("how long does it run", "要跑多久"): the sending time leads the answer
TIME_ASKED = re.compile(r"how\s+long|how\s+much\s+time|duration|多久|多长时间|耗时|要跑多|几分钟|几秒", re.I)
FIGURE_ASKED = re.compile(r"range|distribut|spread|most\s+(?:of\s+)?(?:the\s+)?(?:prompts|requests|lengths)|how\s+many|区间|分布|范围|大部分|多少", re.I)
MEMORY = re.compile(r"(?<![\d.])(\d{2,3})\s*G(?:i?B)?(?![a-z])", re.I)  # the card's memory the question states ("64GB")


@dataclass(frozen=True)
class Flag:
    name: str
    note: str
    role: str
    meaning: dict[str, str]
    pattern: re.Pattern
    default: str = ""
    asked: re.Pattern | None = None


@dataclass(frozen=True)
class Given:
    flag: Flag
    values: tuple[str, ...]


@cache
def spec() -> tuple[tuple[Flag, ...], dict[str, Any], dict[str, str]]:
    data = tomllib.loads(SPEC_FILE.read_text(encoding="utf-8"))
    flags = []
    for f in data["flag"]:
        for name in f["names"]:
            if name.startswith("-"):  # "--x v1 v2", "--x=v"; the values are numbers or one word
                rx = rf"(?<![\w-]){re.escape(name)}(?![\w-])(?:\s*=\s*|\s+)((?:{NUMBER}(?:\s+|$|(?=[^\s\d])))+|[A-Za-z][\w.]*)"
            else:  # "VAR=v", "VAR: v", "VAR v" (upper case as the scripts write it)
                rx = rf"(?<![\w$]){re.escape(name)}(?![\w])\s*(?:[:=：]\s*|\s+)({NUMBER}(?![\d.]))"
            rx = "|".join(f"(?:{r})" for r in [rx, *f.get("spoken", [])])
            # the flag named without a value, or the words that ask for its value ("how many rounds")
            bare = re.escape(name.lstrip("-")).replace(r"\-", "[-_ ]?")
            asked = re.compile(r"(?<![A-Za-z0-9_-])(?:(?:--?)?" + "|".join([bare, *f.get("asked", [])]) + r")(?![A-Za-z0-9_-])", re.I)
            flags.append(Flag(name, f["note"], f.get("role", ""), {"en": f["en"], "zh": f["zh"]},
                              re.compile(rx, 0 if name.isupper() else re.I), str(f.get("default", "")), asked))
    return tuple(flags), data["derived"], data["lead"]


@cache
def said() -> dict[str, dict[str, str]]:
    """The phrases around a flag's default (tool_flags.toml [default], [omitted])."""
    data = tomllib.loads(SPEC_FILE.read_text(encoding="utf-8"))
    return {"default": data["default"], "omitted": data["omitted"]}


def omitted(question: str, gs: list[Given] | None = None) -> list[Flag]:
    """The flags with a default that the question names without a value ("how many rounds if I leave epochs out",
    "epochs 不写默认几轮") beside values it gives the same tool's other flags (a role of the same figure): their
    default is what the run takes."""
    gs = given(question) if gs is None else gs
    tools = {g.flag.role.split(".")[0] for g in gs if g.flag.role}
    named = {g.flag.name for g in gs}
    out = []
    for f in spec()[0]:
        if f.default and f.asked and f.name not in named and f.role.split(".")[0] in tools and f.asked.search(question):
            out.append(f)
    return out


def given(question: str) -> list[Given]:
    """The documented flags the question gives values, in the order written."""
    found = []
    for f in spec()[0]:
        if m := f.pattern.search(question):
            values = tuple(v for v in next(g for g in m.groups() if g).split() if v.lower() not in CONNECTIVES)
            if f.role and not all(NUMERIC.fullmatch(v) for v in values):
                continue  # a flag of a derived figure takes numbers: "--request-rate actually controls …" gives none
            if values:  # "--request-rate and --num-prompts": flags named, no value given
                found.append((m.start(), Given(f, values)))
    return [g for _, g in sorted(found, key=lambda x: x[0])]


CONNECTIVES = frozenset({"and", "or", "to", "is", "are", "the", "with", "vs", "versus", "actually", "really", "do", "does",
                         "mean", "means", "control", "controls", "need", "needs", "set", "for", "in", "of", "on", "和", "与", "或",
                         # a modal or a pronoun after the flag asks about it ("which --handler-name should SFT data use")
                         "should", "would", "could", "can", "will", "must", "may", "i", "we", "you", "it", "take", "takes",
                         "accept", "accepts", "default", "defaults",
                         # a verb or a clause word after it asks about it too ("what should --handler-name be in …")
                         "be", "been", "become", "look", "like", "here", "there", "when", "if", "then", "so", "at", "by"})
NUMERIC = re.compile(r"[+-]?\d+(?:\.\d+)?(?:e[+-]?\d+)?", re.I)


def notes(question: str) -> set[str]:
    """The notes documenting the flags the question gives values."""
    return {g.flag.note for g in given(question)}


def stated(question: str, lang: str) -> list[str]:
    """One line per flag given (its meaning with the user's value), then the derived figures; [] when none."""
    gs = given(question)
    if not gs:
        return []
    joiner = "、" if lang == "zh" else ", "
    default = said()["default"][lang]
    meanings = [f"- `{g.flag.name}{'=' if g.flag.name.isupper() else ' '}{' '.join(g.values)}`: {g.flag.meaning[lang].format(v=joiner.join(g.values))}"
                + (default.format(d=g.flag.default) if g.flag.default else "") for g in gs]
    left = omitted(question, gs)  # named without a value: said with its default (what was asked of it), which the figures use
    defaults = ["- " + said()["omitted"][lang].format(name=f.name, d=f.default, meaning=f.meaning[lang].format(v=f.default)) for f in left]
    roles = {g.flag.role: g.values for g in gs if g.flag.role} | {f.role: (f.default,) for f in left if f.role}
    derived = spec()[1]
    lines: list[str] = []
    for what in ("input", "output"):
        lines += _lengths(what, roles, derived["lengths"], lang)
    lines += _duration(roles, derived["duration"], lang)
    lines += _static(roles, derived["static_runs"], lang)
    lines += _budget(question, roles, derived["budget"], lang)
    lines += _kv(roles, derived["kv_tokens"], lang)
    lines += _batch(question, roles, derived["batch"], lang)
    # the figure asked ("how long", "which range") before the meanings it comes from; else the meanings first
    figure_asked = TIME_ASKED.search(question) or FIGURE_ASKED.search(question)
    return [spec()[2][lang], *defaults, *(lines + meanings if figure_asked else meanings + lines)]


def asked_at(question: str, words: str) -> int | None:
    """Where ``words`` (the question's own, beside a paste) first ask something of the flags ``question`` gives: their
    meaning is asked elsewhere; here a figure, a time or a flag left out ("how many rounds if I leave epochs out")."""
    at = [m.start() for rx in (TIME_ASKED, FIGURE_ASKED) if (m := rx.search(words))]
    at += [m.start() for f in omitted(question) if f.asked and (m := f.asked.search(words))]
    return min(at, default=None)


def _num(v: str) -> float:
    return float(v)


def _fmt(x: float) -> str:
    return f"{x:,.0f}" if x == int(x) else f"{x:,.2f}".rstrip("0").rstrip(".")


def _lengths(what: str, roles: dict[str, tuple[str, ...]], d: dict[str, Any], lang: str) -> list[str]:
    avg, std = roles.get(f"{what}.avg"), roles.get(f"{what}.std")
    if not avg or not std:
        return []
    mean, sd = _num(avg[0]), _num(std[0])
    lo, hi = mean - sd, mean + sd
    low, high = roles.get(f"{what}.min"), roles.get(f"{what}.max")
    clip = ""
    if low and high:
        lo, hi = max(lo, _num(low[0])), min(hi, _num(high[0]))
        clip = d["clip"][lang].format(min=_fmt(_num(low[0])), max=_fmt(_num(high[0])))
    return [d[lang].format(what=d["what"][what][lang], lo=_fmt(max(lo, 0)), hi=_fmt(hi), clip=clip)]


def _seconds(s: float, lang: str) -> str:
    if s < 120:
        return f"{_fmt(round(s))} s" if lang == "en" else f"{_fmt(round(s))} 秒"
    if s < 7200:
        return f"{_fmt(round(s / 60, 1))} min" if lang == "en" else f"{_fmt(round(s / 60, 1))} 分钟"
    return f"{_fmt(round(s / 3600, 1))} h" if lang == "en" else f"{_fmt(round(s / 3600, 1))} 小时"


def _duration(roles: dict[str, tuple[str, ...]], d: dict[str, Any], lang: str) -> list[str]:
    rates, counts = roles.get("serving.rate"), roles.get("serving.count")
    if not rates or not counts or len(rates) != len(counts):
        return []
    out = []
    for rate, n in zip(rates, counts, strict=True):
        if _num(rate) > 0:
            out.append(d[lang].format(n=n, rate=rate, secs=_seconds(_num(n) / _num(rate), lang)))
    return out


def _static(roles: dict[str, tuple[str, ...]], d: dict[str, Any], lang: str) -> list[str]:
    levels, epochs = roles.get("static.levels"), roles.get("static.epochs")
    if not levels or not epochs:
        return []
    runs = len(levels) * _num(epochs[0])
    return [d[lang].format(levels=len(levels), epochs=epochs[0], runs=_fmt(runs))]


def _budget(question: str, roles: dict[str, tuple[str, ...]], d: dict[str, Any], lang: str) -> list[str]:
    util = roles.get("vllm.util")
    if not util or not (m := MEMORY.search(question)) or not 0 < _num(util[0]) <= 1:
        return []
    mem = int(m.group(1))
    return [d[lang].format(v=util[0], mem=mem, budget=_fmt(round(_num(util[0]) * mem, 1)))]


def _kv(roles: dict[str, tuple[str, ...]], d: dict[str, Any], lang: str) -> list[str]:
    seqs, length = roles.get("vllm.seqs"), roles.get("vllm.len")
    if not seqs or not length:
        return []
    tokens = _num(seqs[0]) * _num(length[0])
    return [d[lang].format(seqs=seqs[0], len=length[0], tokens=_fmt(tokens))]


def _batch(question: str, roles: dict[str, tuple[str, ...]], d: dict[str, Any], lang: str) -> list[str]:
    mbs, gbs = roles.get("batch.mbs"), roles.get("batch.gbs")
    if not mbs or not gbs or _num(mbs[0]) <= 0:
        return []
    ratio = _num(gbs[0]) / _num(mbs[0])
    out = [d[lang].format(ratio=_fmt(ratio) if ratio == math.floor(ratio) else _fmt(round(ratio, 2)))]
    # the cards and TP / PP the question states give DP = cards / (TP × PP) and the accumulation GBS / (MBS × DP)
    cards, tp, pp = CARDS.search(question), TP.search(question), PP.search(question)
    if cards and tp:
        n, t, p = int(cards.group(1)), int(tp.group(1)), int(pp.group(1)) if pp else 1
        if t * p > 0 and n % (t * p) == 0 and (dp := n // (t * p)) and ratio / dp == int(ratio / dp):
            out.append(d["ga"][lang].format(n=n, tp=t, pp=p, dp=dp, ga=int(ratio / dp)))
    return out
