"""Model and hardware name resolution: any common spelling to the catalog's canonical id."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from rapidfuzz import fuzz, process
from rapidfuzz.distance import OSA

from .errors import SizingError

# Chinese and vendor names for families, replaced before matching.
FAMILY_WORDS = [
    ("通义千问", "qwen"), ("千问", "qwen"), ("通义", "qwen"), ("羊驼", "llama"), ("智谱", "glm"),
    ("百川", "baichuan"), ("零一万物", "yi"), ("书生浦语", "internlm"), ("书生", "internlm"),
    ("深度求索", "deepseek"), ("混合专家", "mixtral"),
]
# Suffixes that do not change the size of a model.
_SUFFIX = re.compile(
    r"(?:[-_ ](?:instruct|chat|hf|base|it|bf16|fp16|fp8|awq|gptq(?:[-_]int[48])?|int[48]|gguf|bnb[-_]4bit|w8a8|w4a16))+$"
)


# Size-neutral words a typo may hide ("instrcut", "Instuct"): each is fixed before the name is squashed.
SUFFIX_WORDS = ("instruct", "chat", "base")
DIGITS = re.compile(r"[0-9.]+")


VARIANT_WORDS = {"instruct": "instruct", "it": "instruct", "chat": "chat", "base": "base"}
# A MoE model's active-parameter suffix ("a22b" of qwen3-235b-a22b): people often name such a model by its total size
# alone ("qwen3 235B"), which then names it when exactly one catalog model has that total size
MOE_ACTIVE = re.compile(r"a\d+(?:\.\d+)?b")


def variant_of(name: str) -> str | None:
    """The variant a spelling names ("Qwen2.5-7B-Instruct" -> instruct, "glm-4-9b-chat" -> chat, "qwen2.5 7b base" ->
    base): same shapes, but the configs' own context can differ (knowledge/catalog/model_variants.csv)."""
    words = re.findall(r"[a-z]+", fix_suffix_words(unicodedata.normalize("NFKC", name or "")).lower().split("/")[-1])
    return next((VARIANT_WORDS[w] for w in reversed(words) if w in VARIANT_WORDS), None)


def digits(key: str) -> str:
    """The numbers of a squashed name ("qwen2.57b" -> "2.57"): a typo never changes them, so a
    version or size that differs is another model, not a misspelling."""
    return "".join(DIGITS.findall(key))


def fix_suffix_words(name: str) -> str:
    """'qwen2.5-7b-instrcut' -> 'qwen2.5-7b-instruct': one or two edits in a size-neutral word."""
    parts = re.split(r"([-_ ]+)", name.lower())
    for i, w in enumerate(parts):
        if w.isalpha() and len(w) >= 4 and w not in SUFFIX_WORDS:
            best = min(SUFFIX_WORDS, key=lambda s: OSA.distance(w, s))
            if OSA.distance(w, best) <= (2 if len(w) >= 7 else 1):
                parts[i] = best
    return "".join(parts)


def squash(name: str) -> str:
    """Reduce a spelling to a comparison key: lower case, family words in English, org prefix and
    size-neutral suffixes dropped, every separator removed (dots kept: 2.5 is not 25)."""
    s = unicodedata.normalize("NFKC", name).strip().lower()
    for zh, en in FAMILY_WORDS:
        s = s.replace(zh, en)
    # An org prefix is one token before the slash ("meta-llama/Llama-3.1-8B" -> "llama-3.1-8b"); a slash
    # after other words is not one, so a span of free text is never cut down to its model name.
    org = re.match(r"^[\w.\-]+/(?=\S)", s)
    if org and not re.search(r"v3/r1", s):
        s = s[org.end():]
    s = re.sub(r"^meta[-_ ]", "", s)
    prev = None
    while prev != s:
        prev, s = s, _SUFFIX.sub("", s)
    return re.sub(r"[^0-9a-z.\u4e00-\u9fff]", "", s)


def _candidates(name: str) -> list[str]:
    """Keys to try in order: the name as squashed, then without a trailing release tag
    ("Mixtral-8x7B-Instruct-v0.1", "Qwen3-235B-A22B-Instruct-2507") which does not change the shape."""
    base = unicodedata.normalize("NFKC", name).strip()
    out = [squash(base)]
    trimmed = re.sub(r"(?i)[-_ ](?:v\d+(?:\.\d+)?|\d{4})$", "", base)
    if trimmed != base:
        out.append(squash(trimmed))
    return out


def flavor_names(item: str) -> list[str]:
    """The names a ";"-list item gives its row: its first words ("910b", "modelarts.bm.arm.24u.192g.npu.1d910b (1 NPU)"),
    and of a dotted flavor name each tail of two fields or more too ("npu.1d910b", "48u.384g.npu.2d910b",
    "bm.arm.24u.192g.npu.1d910b": how people shorten a ModelArts flavor, dropping its leading fields), and its last
    field when that names the devices and the chip ("2d910b": 2 × 910b)."""
    full = item.split(" (")[0].strip()
    fields = full.split(".")
    if len(fields) < 4:
        return [full]
    last = [fields[-1]] if re.fullmatch(r"\d+d[a-z]*\d{3}[a-z0-9]*", fields[-1]) else []
    return [full, *(".".join(fields[i:]) for i in range(1, len(fields) - 1)), *last]


class Resolver:
    def __init__(self, models: list[dict[str, Any]], hardware: list[dict[str, Any]]):
        self.models = {m["id"]: m for m in models}
        self.hardware = {h["id"]: h for h in hardware}
        self._model_keys = self._keys(models, ("id", "display_name", "hf_repo"))
        self._hw_keys = self._keys(hardware, ("id", "name"), ("aliases", "flavors"))
        # a ModelArts flavor names its device count ("modelarts.bm.arm.24u.192g.npu.1d910b (1 NPU)"): what renting it gives
        self.flavor_devices = {squash(n): int(m.group(1)) for h in hardware for f in str(h.get("flavors") or "").split(";")
                               if (m := re.search(r"\((\d+)\s*(?:npus?|gpus?|cards?|dies?)\)", f, re.I))
                               for n in flavor_names(f)}

    @staticmethod
    def _keys(rows, fields, lists=("aliases",)) -> dict[str, str]:
        """Each row's names; ``lists`` are ";"-separated fields whose items name the row by their first word (a ModelArts
        flavor "modelarts.bm.arm.24u.192g.npu.1d910b (1 NPU)" names its part)."""
        keys: dict[str, str] = {}
        for r in rows:
            items = [item for f in lists for item in str(r.get(f) or "").split(";")]
            names = [r.get(f) for f in fields] + [n for item in items for n in flavor_names(item)]
            for n in names:
                if n and str(n).strip():
                    keys.setdefault(squash(str(n)), r["id"])
        return keys

    @property
    def model_keys(self) -> dict[str, str]:
        """Every known spelling, squashed (see `squash`), mapped to its canonical model id."""
        return self._model_keys

    @property
    def hardware_keys(self) -> dict[str, str]:
        """Every hardware spelling in the catalog (id, name, aliases), squashed, mapped to its id."""
        return self._hw_keys

    def model_id(self, name: str) -> str:
        """Canonical id for ``name`` or a SizingError listing the closest known models."""
        for key in _candidates(name or ""):
            if key in self._model_keys:
                return self._model_keys[key]
        if moe := self.moe_by_total(squash(name or "")):
            return moe
        raise SizingError(
            "unknown_model",
            f"Unknown model {name!r}: it is not in the catalog. Give a known model or a raw parameter count/shape.",
            field="model",
            valid=self.closest_models(name),
        )

    def correct(self, name: str) -> tuple[list[str], int]:
        """The models ``name`` misspells ("lama3-8b", "mixtrel-8x7b", "qwen2.5-7b-instrcut"): the ids
        at the fewest edits (letters only: the numbers must agree), and that edit count. One id is a
        confident reading; several are an ambiguity to list; none is an unknown model."""
        fixed = fix_suffix_words(name or "")
        for key in _candidates(fixed):
            if key in self._model_keys:
                return [self._model_keys[key]], 1
        key = squash(fixed)
        if len(key) < 5 or not re.search(r"[a-z]", key):
            return [], 0
        if moe := self.moe_by_total(key):
            return [moe], 1
        limit = 1 if len(key) < 10 else 2
        sig = digits(key)
        found: dict[str, int] = {}
        for k, mid in self._model_keys.items():
            if abs(len(k) - len(key)) > limit or digits(k) != sig:
                continue
            d = OSA.distance(key, k, score_cutoff=limit)
            if d <= limit and d < found.get(mid, limit + 1):
                found[mid] = d
        if not found:
            return [], 0
        best = min(found.values())
        return sorted(m for m, d in found.items() if d == best), best

    def moe_by_total(self, key: str) -> str | None:
        """The one MoE model a squashed name gives the total size of, without its active-size suffix ("qwen3235b" is
        qwen3-235b-a22b); None when no model, or more than one, has that total size."""
        if not re.search(r"\d(?:\.\d+)?b$", key):
            return None
        ids = {mid for k, mid in self._model_keys.items() if k.startswith(key) and MOE_ACTIVE.fullmatch(k[len(key):])}
        return ids.pop() if len(ids) == 1 else None

    def closest_models(self, name: str, limit: int = 5) -> list[str]:
        key = squash(name or "")
        if not key:
            return []
        prefixed = sorted({mid for k, mid in self._model_keys.items() if k.startswith(key)})
        if prefixed:
            return prefixed[:limit]
        hits = process.extract(key, list(self._model_keys), scorer=fuzz.WRatio, limit=limit * 3)
        out: list[str] = []
        for k, _score, _ in hits:
            mid = self._model_keys[k]
            if mid not in out:
                out.append(mid)
        return out[:limit]

    def hardware_id(self, name: str) -> str:
        key = squash(name or "")
        if key in self._hw_keys:
            return self._hw_keys[key]
        raise SizingError(
            "unknown_hardware",
            f"Unknown hardware {name!r}.",
            field="hardware",
            valid=sorted(self.hardware),
        )
