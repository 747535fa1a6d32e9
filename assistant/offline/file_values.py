"""Values a generated file takes exactly as written (file_values.toml): the user's paths, dataset and template names,
master address and port, vLLM served name, and LLaMA-Factory arguments written under their own names.

They size nothing, so no slot of slots.toml reads them; they must still reach the file, or the answer has dropped
what the user stated (round 13 c7-05: the user's model path replaced by the Hugging Face id). Two steps:
``read_early`` claims the paths a key names as data or output, the addresses, ports and names, before the model,
part and count readers run (their digits are no size or count); ``read_late`` takes the model's path (a path a key
names as the model's, or one holding the model's name, read by the name reader) and the LLaMA-Factory arguments."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..configs.llamafactory_names import ARGUMENT_NAMES, TEMPLATES
from .spans import Reading

SPEC_FILE = Path(__file__).with_name("file_values.toml")
SLOT = "file_value"  # the spans' slot: words that are a file's value, no count, size or name
# A path as people paste it: absolute, home, relative or an object-store URL; ASCII only (a Chinese word after it ends it)
PATH = re.compile(r"(?<![A-Za-z0-9_./:\-])((?:~|\.{1,2})?/[A-Za-z0-9_.\-]+(?:/[A-Za-z0-9_.\-]*)*|(?:obs|s3)://[A-Za-z0-9_.\-/]+)")
KEY_WINDOW = 40  # how far before a path its key may stand


@dataclass(frozen=True)
class WordValue:
    name: str
    kind: str
    patterns: tuple[re.Pattern, ...]
    stop: frozenset[str]


@dataclass(frozen=True)
class FileValueSpec:
    path_keys: dict[str, re.Pattern]  # file value -> "<key><between>$" on the words before a path
    words: tuple[WordValue, ...]
    yaml_keys: tuple[str, ...]
    yaml_spoken: dict[str, tuple[re.Pattern, ...]]
    yaml_written: re.Pattern  # "<key> <value>" for every key of yaml_keys


def load(path: Path = SPEC_FILE) -> FileValueSpec:
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    paths = raw["paths"]
    between = paths["between"]
    path_keys = {}
    for name in ("dataset", "output_dir", "model_path"):
        said = [*paths[name].get("en", []), *paths[name].get("zh", [])]
        path_keys[name] = re.compile(r"(?:" + "|".join(said) + r")" + between + r"$", re.I)
    words = tuple(WordValue(w["name"], w["kind"], tuple(re.compile(p, re.I) for p in [*w.get("en", []), *w.get("zh", [])]),
                            frozenset(w.get("stop", []))) for w in raw["word"])
    yaml = raw["yaml"]
    keys = tuple(yaml["keys"])
    written = re.compile(r"(?<![a-z_])(" + "|".join(keys) + r")\s*[:=]?\s*[\"']?([a-z0-9_.,\-/]+)", re.I)
    spoken = {k: tuple(re.compile(p, re.I) for p in v) for k, v in yaml.get("spoken", {}).items()}
    return FileValueSpec(path_keys, words, keys, spoken, written)


SPEC = load()


def typed(text: str) -> Any:
    """A YAML value as written: an int, a float, true/false, else the text."""
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def _path_key(before: str) -> str | None:
    """The file value the words just before a path name it as (the key nearest the path wins)."""
    best, start = None, -1
    for name, rx in SPEC.path_keys.items():
        m = rx.search(before)
        if m and m.start() > start:
            best, start = name, m.start()
    return best


def _list_head(value: str, stop: frozenset[str]) -> str:
    """A comma list up to its first item that is no name ("alpaca_zh_demo,cutoff_len": a Chinese comma, normalised, then
    the next setting's key)."""
    kept = []
    for item in value.split(","):
        if not item or item.lower() in stop or item.lower() in ARGUMENT_NAMES:
            break
        kept.append(item)
    return ",".join(kept)


def read_early(r: Reading, question: str, values: dict[str, Any]) -> None:
    """Paths a key names as the data or the output, and the named values (dataset, template, address, port, served
    name): claimed, so no later reader takes their digits or words as a count, a size or a model."""
    for m in PATH.finditer(r.unread()):
        if not re.search(r"[a-z]", m.group(1), re.I):
            continue
        name = _path_key(r.text[max(0, m.start() - KEY_WINDOW): m.start()])
        if name in ("dataset", "output_dir") and name not in values:
            values[name] = question[m.start(1): m.end(1)].rstrip(".")
            r.claim(m.start(1), m.end(1), SLOT, name)
    for w in SPEC.words:
        for rx in w.patterns:
            for m in rx.finditer(r.unread()):
                value = _list_head(question[m.start(1): m.end(1)], w.stop)
                if w.name in values or not value or w.kind == "template" and value.lower() not in TEMPLATES:
                    continue
                values[w.name] = typed(value) if w.kind == "int" else value
                r.claim(m.start(1), m.start(1) + len(value), SLOT, w.name)


def read_late(r: Reading, question: str, values: dict[str, Any], model_spans: list[tuple[int, int]], asks_config: bool) -> None:
    """The model's own path (a key names it, or it holds the name the name reader read) and, in a config request, the
    LLaMA-Factory arguments written under their own names."""
    for m in PATH.finditer(r.text):
        if "model_path" in values or r.claimed(m.start(1), m.end(1)) and not any(a < m.end(1) and m.start(1) < b for a, b in model_spans):
            continue
        keyed = _path_key(r.text[max(0, m.start() - KEY_WINDOW): m.start()]) == "model_path"
        holds_model = any(m.start(1) <= a and b <= m.end(1) for a, b in model_spans)
        if keyed or holds_model:
            values["model_path"] = question[m.start(1): m.end(1)].rstrip(".")
    if not asks_config:
        return
    for m in SPEC.yaml_written.finditer(r.unread()):
        key = m.group(1).lower()
        if key not in values:
            values[key] = typed(question[m.start(2): m.end(2)].rstrip(",."))
            r.claim(m.start(0), m.end(2), SLOT, key)
    for key, patterns in SPEC.yaml_spoken.items():
        for rx in patterns:
            if key not in values and (hit := rx.search(r.unread())):
                values[key] = typed(hit.group(1))
                r.claim(hit.start(1), hit.end(1), SLOT, key)


def yaml_keys(values: dict[str, Any]) -> dict[str, Any]:
    """The LLaMA-Factory arguments among the file values, for generate_config's yaml_keys."""
    return {k: v for k, v in values.items() if k in SPEC.yaml_keys}

