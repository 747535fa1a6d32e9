"""Read a free-form question (Chinese, English or mixed) into slots: which model, method, sequence
length, framework, hardware, device counts and what is being asked. Deterministic and cheap: regular
expressions plus the catalog resolver; nothing here knows any particular example question."""

from __future__ import annotations

import re
import unicodedata
from itertools import pairwise

from ..errors import SizingError
from ..notes import NoteTopic, covering
from ..resolve import FAMILY_WORDS, squash  # the resolver's own Chinese family words: one list, one truth
from . import numbers as num
from . import serving_words
from .frame import QuestionFrame
from .vocab import (  # noqa: F401  (FOLLOW_UP and cn_number are part of this module's interface)
    ASKS_COUNT,
    CONFIG_FORMATS,
    DOMAIN,
    EPOCHS_RX,
    FOLLOW_UP,
    FRAMEWORKS,
    HARDWARE,
    INSTRUCTION,
    INTENTS,
    MEMORY_ASKED,
    METHODS,
    NOT_A_MODEL,
    SAMPLES_RX,
    SIZE,
    STAGES,
    TOKENS_RX,
    TPS_RX,
    UNIT_AFTER_VERSION,
    VARIANT_WORDS,
    VERSION,
    amount,
    blank,
    cn_number,
    cn_numerals_to_digits,
)

CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
# Control characters other than tab and newline are dropped before parsing (and before the agent).
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff]")
# Words joining model names into a comparison: "X vs Y", "X or Y", "X 和 Y", "X、Y".
COMPARED = re.compile(r"(?<![a-z])(?:vs\.?|versus|or|and|compared?\s+(?:to|with))(?![a-z])|[,、&/]|和|与|跟|还是|对比|比")
MAX_TOKENS = 4000  # model-mention scan bound: a 20 kB paste is still answered in milliseconds

Slots = QuestionFrame  # the earlier name, kept while the answer writer moves to QuestionFrame


def mark_corrections(s: QuestionFrame) -> None:
    """Values read from the user's words with a correction, or guessed by a rule, say so in ``origins``."""
    if s.model_read_as:
        s.mark("read_as", "model", "model_text")
    if s.length_from_count:
        s.mark("read_as", "seq_len")
    if s.hardware_guessed:
        s.mark("default", "hardware")


def blank_span(work: str, span: tuple[int, int]) -> str:
    return work[: span[0]] + " " * (span[1] - span[0]) + work[span[1]:]


def clean_text(text: str) -> str:
    """NFKC, control characters dropped, whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text or "")
    text = CONTROL.sub(" ", text)
    return re.sub(r"[ \t\r\f\v]+", " ", text).strip()


TECH_WORDS = {"lora", "qlora", "full", "sft", "dpo", "pt", "zero", "deepspeed", "mindspeed", "llm", "llama", "factory",
              "llamafactory", "yaml", "json", "env", "npu", "npus", "gpu", "gpus", "vllm", "snt", "die", "oom", "bf", "fp",
              "flashattention", "flash", "attention", "offload", "modelarts", "ascend", "token", "tokens", "cutoff", "len",
              "seq", "tp", "pp", "ga", "mbs", "gbs", "rtx", "nvidia", "hccl", "ckpt", "checkpoint", "freeze"}


def language(text: str) -> str:
    """'zh' when Chinese outweighs English in the question's own words. Model names, frameworks and
    jargon do not count, so "用MindSpeed-LLM全参微调llama3.1-70b" is Chinese and "LoRA微调 with
    LlamaFactory, how many cards?" is English."""
    cjk, english = language_words(text)
    return "zh" if cjk >= 2 and cjk >= english else "en"


def language_words(text: str) -> tuple[int, int]:
    """(Chinese characters, English words) of the question's own words."""
    rest = text
    for zh, _ in FAMILY_WORDS:
        rest = rest.replace(zh, "")
    english = [w for w in re.findall(r"(?<![a-z0-9])[a-z]{2,}(?![a-z0-9])", rest.lower()) if w not in TECH_WORDS]
    return len(CJK.findall(rest)), len(english)


class Parser:
    """Parses questions against one catalog (the resolver's model and hardware names)."""

    def __init__(self, resolver, models: list[dict], note_topics: dict[str, NoteTopic] | None = None):
        self.resolver = resolver
        self.note_topics = note_topics
        self.keys = resolver.model_keys  # squashed spelling -> id: a set lookup per candidate span
        zh = "|".join(re.escape(z) for z, _ in sorted(FAMILY_WORDS, key=lambda p: -len(p[0])))
        self.token_rx = re.compile(rf"(?:(?:{zh})\s*)?[a-z0-9][a-z0-9._/\-]*|(?:{zh})")
        self.serving_only = {m["id"] for m in models if m.get("modality") in ("embedding", "reranker")}  # vLLM-only models
        self.families: dict[str, str] = {}
        for m in models:
            fam = squash(str(m.get("family") or ""))
            if fam:
                self.families.setdefault(fam, str(m.get("family")))
        stems = {lead.group(0) for k in self.keys if (lead := re.match(r"[a-z]+", k))}
        self.family_stems = {s for s in stems if len(s) >= 2} | {
            "gpt", "llama", "qwen", "mistral", "mixtral", "phi", "gemma", "falcon", "baichuan", "chatglm", "glm",
            "internlm", "internvl", "yi", "deepseek", "bloom", "opt", "claude", "ernie", "kimi", "minimax", "starcoder",
            "codellama", "vicuna", "olmo", "grok", "hunyuan", "pangu", "moss", "aquila", "skywork", "telechat", "bert"}

    # -- model mention -------------------------------------------------------------------------
    def _tokens(self, text: str) -> list[tuple[int, int, str]]:
        """Word-like runs of Latin letters and digits, with a Chinese family word attached in front
        ("千问2.5-72b"); offsets are into ``text`` so a mention can be blanked out afterwards."""
        out = []
        for m in self.token_rx.finditer(text.lower()):
            tok = m.group(0).rstrip(".-/_")
            if tok:
                out.append((m.start(), m.start() + len(tok), tok))
            if len(out) >= MAX_TOKENS:
                break
        return out

    def model_mentions(self, text: str) -> list[tuple[str, tuple[int, int]]]:
        """Every known model mention, longest first where they overlap, in the order written: (id, span)."""
        toks = self._tokens(text)
        found: list[tuple[int, str, tuple[int, int]]] = []
        for i in range(len(toks)):
            if not re.search(r"[a-z\u4e00-\u9fff]", toks[i][2]):
                continue
            for j in range(i + 1, min(len(toks), i + 5) + 1):
                key = squash(" ".join(t[2] for t in toks[i:j]))
                if key in self.keys:
                    found.append((toks[j - 1][1] - toks[i][0], self.keys[key], (toks[i][0], toks[j - 1][1])))
        kept: list[tuple[str, tuple[int, int]]] = []
        for _, mid, span in sorted(found, key=lambda f: (-f[0], f[2][0])):
            if all(span[1] <= k[0] or span[0] >= k[1] for _, k in kept):
                kept.append((mid, span))
        return sorted(kept, key=lambda k: k[1][0])

    def find_model(self, text: str) -> tuple[str | None, str | None, tuple[int, int] | None]:
        """(model id, the words as typed, character span) of the longest known model mention."""
        mentions = self.model_mentions(text)
        if not mentions:
            return None, None, None
        mid, (s, e) = max(mentions, key=lambda m: (m[1][1] - m[1][0], -m[1][0]))
        return mid, text[s:e], (s, e)

    @staticmethod
    def compared_models(work: str, mentions: list[tuple[str, tuple[int, int]]]) -> list[str]:
        """Two or more catalog models joined as a comparison ("llama3-8b vs qwen2.5-7b", "X 和 Y"), in the
        order written; one model, or mentions not joined so: empty."""
        ids = list(dict.fromkeys(mid for mid, _ in mentions))
        if len(ids) < 2:
            return []
        joined = all(COMPARED.search(work[a[1][1]:b[1][0]]) for a, b in pairwise(mentions))
        return ids if joined else []

    def find_unknown_model(self, text: str) -> tuple[str, tuple[int, int]] | None:
        """A model-like mention that is not in the catalog, with its span: 'gpt-99-ultra', 'qwen9-13b',
        '千问7-5b', or a family word with a version the catalog lacks ('llama 9 ultra', 'qwen 7')."""
        toks = self._tokens(text)
        words = [t[2] for t in toks]
        for i, tok in enumerate(words):
            latin = tok
            for zh, en in FAMILY_WORDS:
                if latin.startswith(zh):
                    latin = en + latin[len(zh):]
            stem = re.match(r"[a-z]+", latin)
            if not stem or NOT_A_MODEL.fullmatch(latin):
                continue
            has_digit = bool(re.search(r"\d", latin))
            nxt = words[i + 1] if i + 1 < len(words) else ""
            after = words[i + 2] if i + 2 < len(words) else ""
            if stem.group(0) in self.family_stems:
                if not has_digit and VERSION.fullmatch(nxt) and not UNIT_AFTER_VERSION.fullmatch(after):
                    return self._mention(toks, i, i + 2)  # "llama 9 ultra": the family and a version
                if has_digit or SIZE.fullmatch(nxt):
                    return self._mention(toks, i, i + 1)
            if has_digit and re.search(r"[-_]", latin) and re.match(r"[a-z]{2,}", latin):
                return toks[i][2], (toks[i][0], toks[i][1])
            parts = re.split(r"[-_]", latin)
            if len(parts) >= 2 and len(parts[0]) >= 3 and parts[-1] in VARIANT_WORDS:
                return toks[i][2], (toks[i][0], toks[i][1])  # "supernova-ultra": a name with a variant word
        return None

    @staticmethod
    def _mention(toks: list[tuple[int, int, str]], i: int, j: int) -> tuple[str, tuple[int, int]]:
        """Tokens i..j-1 plus the size and variant words after them ("17b", "scout", "instruct"), at most three."""
        while j < len(toks) and j < i + 5 and (SIZE.fullmatch(toks[j][2]) or toks[j][2] in VARIANT_WORDS):
            j += 1
        return " ".join(t[2] for t in toks[i:j]), (toks[i][0], toks[j - 1][1])

    # -- everything ----------------------------------------------------------------------------
    def parse(self, question: str) -> Slots:
        """The question read step by step; each step blanks what it read so later steps do not read it again."""
        text = cn_numerals_to_digits(clean_text(question))
        s = Slots(lang=language(text), question=text, lang_weak=max(language_words(text)) < 2)
        text = self._drop_instruction(text, s)
        low = text.lower()
        s.check(low)
        work, hw_count = self._setting(low, s)
        work = self._amounts(work, s)
        serving, work = serving_words.read(work)  # "gptq-int4" is no model, "64 并发" no count
        for name, value in vars(serving).items():
            setattr(s, name, value)
        shape, work = num.shape(work)
        s.shape = shape or None
        work, span = self._model(work, text, s)
        self._method(work, s)
        work = self._length_beside_devices(work, s)
        self._counts(work, s, hw_count)
        self._intents(work, s)
        if "config" in s.intents:
            self._config_format(work, s)
        if self.note_topics is not None:
            s.notes_cover = covering(low, self.note_topics)
        s.topic_text = re.sub(r"\s+", " ", low if not span else low[: span[0]] + " " + low[span[1]:]).strip()
        s.on_topic = bool(s.model or s.params_b or s.unknown_model or s.family or s.hardware or s.framework or DOMAIN.search(work))
        mark_corrections(s)
        return s

    @staticmethod
    def _drop_instruction(text: str, s: Slots) -> str:
        """Blank an instruction written into the question: what it says is not a fact the user stated."""
        m = INSTRUCTION.search(text.lower())
        if not m:
            return text
        s.ignored_instruction = text[m.start():m.end()].strip()
        return blank_span(text, m.span())

    def _setting(self, low: str, s: Slots) -> tuple[str, int | None]:
        """Framework and hardware first; their words are blanked so "llama factory" is not a model.
        Returns the rest and a count written before the hardware ("8张910B")."""
        work = low
        for rx, fw_name in FRAMEWORKS:
            m = rx.search(work)
            if m and s.framework is None:
                s.framework = fw_name
            work = rx.sub(lambda m: " " * len(m.group(0)), work)
        hw_count = None
        for rx, name in HARDWARE:
            m = rx.search(work)
            if m and s.hardware is None:
                s.hardware_text = m.group(0).strip()
                s.hardware = self._hardware_id(name, m)
                hw_count = num.count_before_hardware(work[: m.start()], work[m.end():])
            work = rx.sub(lambda m: " " * len(m.group(0)), work)
        if s.hardware is None:
            work, hw_count = self._catalog_hardware(work, s)
        return work, hw_count

    def _catalog_hardware(self, work: str, s: Slots) -> tuple[str, int | None]:
        """Any part of the hardware catalog by its id, name or aliases ("V100", "MI300X", "Atlas 300I Duo"):
        the longest run of up to three words whose spelling the catalog knows, so new parts need no code."""
        keys = self.resolver.hardware_keys
        toks = [(m.start(), m.end(), m.group(0)) for m in re.finditer(r"[a-z0-9][a-z0-9.\-]*", work)]
        for i in range(len(toks)):
            for j in range(min(len(toks), i + 3), i, -1):
                key = squash(" ".join(t[2] for t in toks[i:j]))
                memory_only = re.fullmatch(r"\d+g(?:b)?", key)  # "32G" alone is a memory size (see _counts)
                if self._names_part(key, keys) and not memory_only:
                    start, end = toks[i][0], toks[j - 1][1]
                    s.hardware, s.hardware_text = keys[key], work[start:end]
                    count = num.count_before_hardware(work[:start], work[end:])
                    return blank_span(work, (start, end)), count
        return work, None

    @staticmethod
    def _names_part(key: str, keys: dict[str, str]) -> bool:
        """A catalog spelling with a digit. Two characters are too easily noise ("a3" in a hash), so a
        two-character word counts only as the stem of the part's own id ("t4" for t4-16g, "l4" for l4-24g)."""
        if key not in keys or not re.search(r"\d", key):
            return False
        return len(key) >= 3 or keys[key].split("-")[0] == key

    def _model(self, work: str, text: str, s: Slots) -> tuple[str, tuple[int, int] | None]:
        """A catalog model (also misspelt), else an unknown model name, a raw size, a shape or a family."""
        mid, typed, span = self.find_model(work)
        if mid and typed and span:
            mentions = self.model_mentions(work)
            s.models = self.compared_models(work, mentions)
            if s.models:  # "X vs Y": the first named leads; every mention is read (blanked)
                (mid, span), typed = mentions[0], work[mentions[0][1][0]:mentions[0][1][1]]
                for _, other in mentions[1:]:
                    work = blank_span(work, other)
            s.model, s.model_text = mid, typed.strip()
            return blank_span(work, span), span
        raw = num.raw_size(work)
        found = self.find_unknown_model(work)

        def as_typed(sp: tuple[int, int], alt: str) -> str:  # "Llama 9 Ultra" as typed
            return text[sp[0]:sp[1]] if len(text) == len(work) else alt

        if found:
            unknown, uspan = found
            fixed, _ = self.resolver.correct(unknown)
            if len(fixed) == 1:
                s.model, s.model_read_as = fixed[0], as_typed(uspan, unknown)
                s.model_text = s.model_read_as
                return blank_span(work, uspan), uspan
            if not (raw and unknown.endswith("b") and not re.search(r"[a-z]{2,}", unknown.replace(str(raw), ""))):
                s.unknown_model, s.model_text = unknown, as_typed(uspan, unknown)
                return blank_span(work, uspan), None
        if raw:
            s.params_b = raw
        elif s.shape and {"layers", "hidden"} <= set(s.shape):
            s.params_b = num.shape_params_b(s.shape)  # only a base: the estimator counts the shape's own parameters
            s.shape_only = True
        else:
            s.family = self._family(work)
        return work, None

    @staticmethod
    def _method(work: str, s: Slots) -> None:
        methods = [name for name, rx in METHODS if rx.search(work)]
        if "qlora" in methods and re.search(r"q[-_ ]lora", work) and not re.search(r"(?<![a-z\-_ ])lora", work):
            methods.remove("lora")  # "q-lora" also contains "lora"
        if len(methods) == 1:  # "LoRA 和全参分别..." names both: answer both
            s.method = methods[0]
        for name, rx in STAGES:
            if rx.search(work):
                s.stage = name
                break
        if s.stage == "pt" and not methods:
            s.method = "full"  # pre-training trains every weight unless LoRA is named ("LoRA continued pretraining")

    def _counts(self, work: str, s: Slots, hw_count: int | None) -> None:
        """ZeRO stage, memory, nodes, devices (and their unit), the length, and a bare count in a follow-up."""
        s.zero_stage, s.offload = num.zero(work)
        s.memory_gb = num.memory_gb(work)
        s.nodes = num.nodes(work)
        s.devices = num.devices(work) or hw_count
        if s.nodes and s.devices and s.nodes > 1 and num.PER_NODE.search(work):
            s.devices *= s.nodes  # "4 nodes x 8 H100", "2 nodes of 8 GPUs each", "每台8卡，两台": the total
        if s.devices:
            s.device_unit = "die" if re.search(r"(?<![0-9.])\d+\s*(?:个\s*)?(?:dies?|npus?)(?![a-z])", work) else "card"
        # "32G cards" on their own mean the 32 GB Ascend part; "910B 32G" likewise
        if s.memory_gb == 32 and s.hardware in (None, "snt9b") and re.search(r"32\s*g(?:b)?\s*(?:卡|的卡|版|cards?|npus?|version|variant|memory|显存)", work):
            s.hardware = self._hardware_id("snt9b-32g", None)
        s.seq_len = s.seq_len or num.seq_len(work)
        if s.hardware is None and s.memory_gb and num.memory_names_a_device(work):
            s.hardware, s.hardware_guessed = self._hardware_by_memory(s.memory_gb)
        if not (s.devices or s.nodes or s.seq_len or s.zero_stage is not None or s.tokens or s.samples or s.epochs or s.tps):
            s.bare_count = num.bare_count(re.sub(r"zero[-_ ]?\d|ds_z\d|stage\s*\d|\d{1,3}\s*g(?:i?b)?(?![a-z0-9])", " ", work))


    def _intents(self, work: str, s: Slots) -> None:
        s.intents = {name for name, rx in INTENTS.items() if rx.search(work)}
        s.intents = serving_words.serving_intents(s.intents, work, bool(s.method or s.stage or "train" in s.intents),
                                                  bool(s.tps or s.tokens), s.model in self.serving_only,
                                                  bool(s.quant_text and s.weight_bits != 16 or s.concurrency or s.gpu_util))
        if {"memory", "cards"} <= s.intents and not INTENTS["cards"].search(MEMORY_ASKED.sub(" ", work)):
            s.intents.discard("cards")  # "显存占用多少" / "how much memory per card" asks GiB, not a card count
        if "cards" in s.intents and (s.devices or s.nodes) and not ASKS_COUNT.search(work):
            s.intents.discard("cards")  # "with 16 cards" / "我只有16张卡" states what they have; nothing asks for a count
        if (s.tokens or s.tps) and not s.intents - {"train", "estimate", "time"}:
            s.intents.add("time")  # "llama3-8b on 1B tokens with 8 A100": a token total asks for a duration
        if s.hardware_text and "SNT9B23" in (s.hardware or "").upper() and re.search(r"(?<![a-z])die", work):
            s.intents.add("cards")

    @staticmethod
    def _config_format(work: str, s: Slots) -> None:
        """Which file a config request asks for, in the framework named."""
        for name, rx in CONFIG_FORMATS:
            if rx.search(work):
                s.config_format = name
                break
        if s.config_format in ("deepspeed_json", "llamafactory_yaml") and s.framework == "MindSpeed-LLM":
            s.config_format = "mindspeed_env"
        if s.config_format == "mindspeed_env" and s.framework == "LLaMA-Factory":
            s.config_format = "launch"  # LLaMA-Factory's variables live in its launch script
        if s.config_format is None:
            s.config_format = "mindspeed_env" if s.framework == "MindSpeed-LLM" else "llamafactory_yaml"
        # "config" alone on a sizing question ("which DeepSpeed config stage") is not a file request
        if not re.search(r"ya?ml|json|(?<![a-z])env|script|脚本|launch|torchrun|命令|变量|variables?|exports?|generate|生成|give\s+me|给我|写|"
                         r"config\s+file|配置文件|the\s+config|config\s+for|配置", work):
            s.intents.discard("config")

    @staticmethod
    def _length_beside_devices(work: str, s: Slots) -> str:
        """A typical length beside a device word ("16384 npus") is the length when no other length is given."""
        found = num.length_beside_devices(work)
        if not found:
            return work
        n, m = found
        rest = blank(work, m)
        if num.seq_len(rest) is not None:
            return work
        s.seq_len = s.length_from_count = n
        return rest

    @staticmethod
    def _amounts(work: str, s: Slots) -> str:
        """Token totals, samples, epochs and TPS into ``s``; their text blanked. "4096 tokens" and "32k
        tokens" stay: a plain count under 10 million or a k suffix is a sequence length."""
        for m in list(TPS_RX.finditer(work)):
            num = m.group(1) or m.group(3) or m.group(4)
            s.tps = s.tps or amount(num, m.group(2))
            work = blank(work, m)
        for m in list(TOKENS_RX.finditer(work)):
            mag = (m.group(2) or "").lower()
            n = amount(m.group(1), mag)
            if mag == "k" or n < 1e7:
                continue
            s.tokens = s.tokens or n
            work = blank(work, m)
        for m in list(SAMPLES_RX.finditer(work)):
            s.samples = s.samples or int(amount(m.group(1), m.group(2)))
            work = blank(work, m)
        for m in list(EPOCHS_RX.finditer(work)):
            s.epochs = s.epochs or float(m.group(1) or m.group(2))
            work = blank(work, m)
        return work

    def _hardware_id(self, name: str | None, m: re.Match | None) -> str:
        """Catalog id of a hardware mention; an unknown GPU keeps its name (tools will say so)."""
        cands = [name] if name else []
        if not name and m is not None:
            size = m.group(2) if m.lastindex and m.lastindex >= 2 else None
            cands += [f"{m.group(1)} {size}g"] if size else []
            cands += [m.group(1), m.group(0).strip()]
        for cand in cands:
            try:
                return self.resolver.hardware_id(cand)
            except SizingError:
                continue
        return cands[-1]

    def _hardware_by_memory(self, gb: int) -> tuple[str | None, bool]:
        """The catalog part with this much memory ("a 24GB GPU" -> the RTX 4090 row); when several parts
        share the size (80 GB), the first in the catalog, marked as a guess. The 64 GB Snt9B is the default anyway."""
        parts = [h for h in self.resolver.hardware.values() if h.get("memory_gb") == gb]
        if not parts or gb == 64:
            return None, False
        return parts[0]["id"], True

    def _family(self, work: str) -> str | None:
        for _, _, tok in self._tokens(work):
            key = squash(tok)
            if key in self.families:
                return self.families[key]
        return None
