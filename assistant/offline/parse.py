"""Read a free-form question (Chinese, English or mixed) into slots: which model, method, sequence
length, framework, hardware, device counts and what is being asked. Deterministic and cheap: regular
expressions plus the catalog resolver; nothing here knows any particular example question."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field, fields, replace

from ..errors import SizingError
from ..resolve import FAMILY_WORDS, squash  # the resolver's own Chinese family words: one list, one truth
from .vocab import (  # noqa: F401  (FOLLOW_UP and cn_number are part of this module's interface)
    ASKS_COUNT,
    CONFIG_FORMATS,
    COUNT_BEFORE_HW,
    DOMAIN,
    EN_NUMBERS,
    EPOCHS_RX,
    FOLLOW_UP,
    FRAMEWORKS,
    HARDWARE,
    INTENTS,
    METHODS,
    NODE_WORDS,
    SAMPLES_RX,
    STAGES,
    TOKENS_RX,
    TPS_RX,
    UNIT_WORDS,
    amount,
    blank,
    cn_number,
)

CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
# Control characters other than tab and newline are dropped before parsing (and before the agent).
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff]")
MAX_TOKENS = 4000  # model-mention scan bound: a 20 kB paste is still answered in milliseconds

# ---------------------------------------------------------------- slots
@dataclass
class Slots:
    """What one user turn (or the conversation so far) says. None means not said."""

    lang: str = "en"
    model: str | None = None
    model_text: str | None = None
    unknown_model: str | None = None
    family: str | None = None
    params_b: float | None = None
    method: str | None = None
    stage: str | None = None
    seq_len: int | None = None
    framework: str | None = None
    hardware: str | None = None
    hardware_text: str | None = None
    memory_gb: int | None = None
    devices: int | None = None
    device_unit: str | None = None  # "die" when counted in DIE/NPUs ("8个DIE"), "card" for cards ("16张卡")
    nodes: int | None = None
    zero_stage: int | None = None
    offload: bool | None = None
    tokens: float | None = None  # training tokens per epoch ("1B tokens")
    samples: int | None = None
    epochs: float | None = None
    tps: float | None = None  # measured tokens/s per device
    config_format: str | None = None
    intents: set[str] = field(default_factory=set)
    question: str = ""
    topic_text: str = ""  # the question with the model name blanked: what the notes are searched with
    on_topic: bool = False

    CARRIED = ("model", "model_text", "family", "params_b", "method", "stage", "seq_len", "framework", "hardware",
               "hardware_text", "memory_gb", "devices", "device_unit", "nodes", "zero_stage", "offload", "tokens", "samples", "epochs", "tps")

    def with_history(self, earlier: Slots | None, follow_up: bool) -> Slots:
        """Fill what this turn leaves open from the conversation so far. A turn naming a new model
        starts over unless it reads as a follow-up ("what about qwen2-7b?")."""
        if earlier is None:
            return self
        new = replace(self, intents=set(self.intents))
        starts_over = bool(self.model or self.unknown_model or self.params_b) and not follow_up
        if starts_over:
            return new
        if self.unknown_model and follow_up:
            return new
        for name in self.CARRIED:
            if getattr(new, name) is None and getattr(earlier, name) is not None:
                if name in ("model", "model_text", "family", "params_b") and (self.model or self.params_b or self.unknown_model):
                    continue
                setattr(new, name, getattr(earlier, name))
        # "give me the yaml" keeps the model but asks something new; "and with 8k?" asks the same thing again
        asked = self.intents - {"estimate", "support"}
        if not asked:
            new.intents |= earlier.intents
        new.on_topic = new.on_topic or earlier.on_topic
        return new


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
    rest = text
    for zh, _ in FAMILY_WORDS:
        rest = rest.replace(zh, "")
    cjk = len(CJK.findall(rest))
    english = [w for w in re.findall(r"(?<![a-z0-9])[a-z]{2,}(?![a-z0-9])", rest.lower()) if w not in TECH_WORDS]
    return "zh" if cjk >= 2 and cjk >= len(english) else "en"


class Parser:
    """Parses questions against one catalog (the resolver's model and hardware names)."""

    def __init__(self, resolver, models: list[dict]):
        self.resolver = resolver
        self.keys = resolver.model_keys  # squashed spelling -> id: a set lookup per candidate span
        zh = "|".join(re.escape(z) for z, _ in sorted(FAMILY_WORDS, key=lambda p: -len(p[0])))
        self.token_rx = re.compile(rf"(?:(?:{zh})\s*)?[a-z0-9][a-z0-9._/\-]*|(?:{zh})")
        self.families = {}
        for m in models:
            fam = squash(str(m.get("family") or ""))
            if fam:
                self.families.setdefault(fam, str(m.get("family")))
        stems = {re.match(r"[a-z]+", k).group(0) for k in self.keys if re.match(r"[a-z]+", k)}
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

    def find_model(self, text: str) -> tuple[str | None, str | None, tuple[int, int] | None]:
        """(model id, the words as typed, character span) of the longest known model mention."""
        toks = self._tokens(text)
        best = None
        for i in range(len(toks)):
            if not re.search(r"[a-z\u4e00-\u9fff]", toks[i][2]):
                continue
            for j in range(i + 1, min(len(toks), i + 5) + 1):
                span = " ".join(t[2] for t in toks[i:j])
                key = squash(span)
                if key in self.keys:
                    length = toks[j - 1][1] - toks[i][0]
                    if best is None or length > best[0]:
                        best = (length, self.keys[key], (toks[i][0], toks[j - 1][1]))
        if not best:
            return None, None, None
        s, e = best[2]
        return best[1], text[s:e], best[2]

    def find_unknown_model(self, text: str) -> str | None:
        """A word that looks like a model name but is not in the catalog ('gpt-99-ultra', 'qwen9-13b')."""
        toks = [t[2] for t in self._tokens(text)]
        for i, tok in enumerate(toks):
            stem = re.match(r"[a-z]+", tok)
            if not stem:
                continue
            if re.fullmatch(r"(?:zero|ds|fp|bf|int|ms|lf|tp|pp|sp|cp|dp|ep|mbs|gbs|snt|sxm|pcie|cuda|cann|torch|vllm|"
                            r"deepspeed|mindspeed|llama-factory|qlora|lora|seq|cutoff|max|rank|lr|top|stage|a\d|h\d|v\d|l\d|"
                            r"rtx|nvidia|atlas|ascend|step|epoch|gpu|npu|die|node)[-_.\d]*.*", tok):
                continue
            has_digit = bool(re.search(r"\d", tok))
            hyphened = bool(re.search(r"[-_]", tok))
            if stem.group(0) in self.family_stems and (has_digit or (i + 1 < len(toks) and re.fullmatch(r"[\d.]+b", toks[i + 1]))):
                nxt = toks[i + 1] if i + 1 < len(toks) and re.fullmatch(r"[\d.]+[bm]|[\d.]+x[\d.]+b", toks[i + 1]) else ""
                return (tok + (" " + nxt if nxt else "")).strip()
            if has_digit and hyphened and re.match(r"[a-z]{2,}", tok):
                return tok
        return None

    # -- everything ----------------------------------------------------------------------------
    def parse(self, question: str) -> Slots:
        text = clean_text(question)
        s = Slots(lang=language(text), question=text)
        low = text.lower()

        # framework and hardware first; their words are blanked so "llama factory" is not a model
        work = low
        for rx, name in FRAMEWORKS:
            m = rx.search(work)
            if m and s.framework is None:
                s.framework = name
            work = rx.sub(lambda m: " " * len(m.group(0)), work)
        hw_count = None
        for rx, name in HARDWARE:
            m = rx.search(work)
            if m and s.hardware is None:
                s.hardware_text = m.group(0).strip()
                s.hardware = self._hardware_id(name, m)
                before = COUNT_BEFORE_HW.search(work[: m.start()])
                hw_count = int(before.group(1)) if before and int(before.group(1)) > 0 else None
            work = rx.sub(lambda m: " " * len(m.group(0)), work)
        work = self._amounts(work, s)

        mid, typed, span = self.find_model(work)
        if mid:
            s.model, s.model_text = mid, typed.strip()
            work = work[: span[0]] + " " * (span[1] - span[0]) + work[span[1]:]
        else:
            raw = self._raw_size(work)
            unknown = self.find_unknown_model(work)
            fam = self._family(work)
            if unknown and not (raw and unknown.endswith("b") and not re.search(r"[a-z]{2,}", unknown.replace(str(raw), ""))):
                s.unknown_model = unknown
            elif raw:
                s.params_b = raw
            elif fam:
                s.family = fam
            if s.unknown_model:
                work = work.replace(s.unknown_model, " " * len(s.unknown_model))

        methods = [name for name, rx in METHODS if rx.search(work)]
        if "qlora" in methods and re.search(r"q[-_ ]lora", work) and not re.search(r"(?<![a-z\-_ ])lora", work):
            methods.remove("lora")  # "q-lora" also contains "lora"
        if len(methods) == 1:  # "LoRA 和全参分别..." names both: answer both
            s.method = methods[0]
        for name, rx in STAGES:
            if rx.search(work):
                s.stage = name
                break
        if s.stage == "pt" and s.method is None:
            s.method = "full"
        s.zero_stage, s.offload = self._zero(work)
        s.memory_gb = self._memory_gb(work)
        s.nodes = self._nodes(work)
        s.devices = self._devices(work) or hw_count
        if s.devices:
            s.device_unit = "die" if re.search(r"(?<![0-9.])\d+\s*(?:个\s*)?(?:dies?|npus?)(?![a-z])", work) else "card"
        # "32G cards" on their own mean the 32 GB Ascend part; "910B 32G" likewise
        if s.memory_gb == 32 and s.hardware in (None, "snt9b") and re.search(r"32\s*g(?:b)?\s*(?:卡|的卡|版|cards?|npus?|version|variant|memory|显存)", work):
            s.hardware = self._hardware_id("snt9b-32g", None)
        s.seq_len = self._seq_len(work)

        s.intents = {name for name, rx in INTENTS.items() if rx.search(work)}
        if "cards" in s.intents and (s.devices or s.nodes) and not ASKS_COUNT.search(work):
            s.intents.discard("cards")  # "with 16 cards" / "我只有16张卡" states what they have; nothing asks for a count
        if (s.tokens or s.tps) and not s.intents - {"train", "estimate", "time"}:
            s.intents.add("time")  # "llama3-8b on 1B tokens with 8 A100": a token total asks for a duration
        if s.hardware_text and "SNT9B23" in (s.hardware or "").upper() and re.search(r"(?<![a-z])die", work):
            s.intents.add("cards")
        if "config" in s.intents:
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
        s.topic_text = re.sub(r"\s+", " ", low if not mid else low[: span[0]] + " " + low[span[1]:]).strip()
        s.on_topic = bool(s.model or s.params_b or s.unknown_model or s.family or s.hardware or s.framework or DOMAIN.search(work))
        return s

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

    def _hardware_id(self, name: str | None, m: re.Match) -> str:
        """Catalog id of a hardware mention; an unknown GPU keeps its name (tools will say so)."""
        cands = [name] if name else []
        if not name:
            size = m.group(2) if m.lastindex and m.lastindex >= 2 else None
            cands += [f"{m.group(1)} {size}g"] if size else []
            cands += [m.group(1), m.group(0).strip()]
        for cand in cands:
            try:
                return self.resolver.hardware_id(cand)
            except SizingError:
                continue
        return cands[-1]

    def _family(self, work: str) -> str | None:
        for _, _, tok in self._tokens(work):
            key = squash(tok)
            if key in self.families:
                return self.families[key]
        return None

    @staticmethod
    def _raw_size(work: str) -> float | None:
        m = re.search(r"(?<![a-z0-9.\-])(\d+(?:\.\d+)?)\s*(?:b|bn|billion|b\s*params?)(?![a-z0-9])", work)
        if m:
            return float(m.group(1))
        m = re.search(r"(?<![0-9.])(\d+(?:\.\d+)?)\s*(?:十亿|billion)", work)
        if m:
            return float(m.group(1))
        m = re.search(r"(?<![0-9.])(\d+)\s*亿", work)
        return float(m.group(1)) / 10 if m else None

    @staticmethod
    def _zero(work: str) -> tuple[int | None, bool | None]:
        m = re.search(r"zero[-_ ]?(\d)|ds_z(\d)|stage\s*(\d)", work)
        stage = int(next(g for g in m.groups() if g)) if m else None
        offload = True if re.search(r"offload|卸载", work) else None
        if stage is not None and stage > 3:
            stage = None
        return stage, offload

    @staticmethod
    def _memory_gb(work: str) -> int | None:
        m = re.search(r"(?<![0-9.])(\d{1,3})\s*g(?:b|ib)?(?![a-z0-9])", work)
        if m and 8 <= int(m.group(1)) <= 256:
            return int(m.group(1))
        return None

    @staticmethod
    def _nodes(work: str) -> int | None:
        m = re.search(rf"(?<![0-9.])(\d+|[一二两三四五六七八九十]+)\s*{NODE_WORDS}", work)
        if m and not re.search(r"几|多少", m.group(0)):
            return cn_number(m.group(1))
        if re.search(r"单机|single\s+node|one\s+node", work):
            return 1
        return None

    @staticmethod
    def _devices(work: str) -> int | None:
        m = re.search(rf"(?<![0-9.a-z])(\d+)\s*(?:x|×|\*)?\s*{UNIT_WORDS}(?![a-z数])", work)  # "4096 卡数是多少" is no count
        if m:
            return int(m.group(1))
        m = re.search(rf"([一二两三四五六七八九十单双]+)\s*{UNIT_WORDS}(?!数)", work)
        if m and (n := cn_number(m.group(1))):
            return n
        m = re.search(r"(?<![a-z])(one|a single|single|two|four|eight|sixteen|thirty-two|sixty-four|three|six|twelve)\s+"
                      r"(?:\w+\s+)?(?:cards?|npus?|gpus?|devices?|dies?)(?![a-z])", work)
        if m:
            return EN_NUMBERS[m.group(1)]
        m = re.search(r"(?<![0-9])(\d+)\s*(?:机|nodes?\s*x?)\s*(\d+)\s*卡", work)  # "2机16卡" = 16 in total
        return int(m.group(2)) if m else None

    @staticmethod
    def _seq_len(work: str) -> int | None:
        m = re.search(r"(?<![a-z0-9.])(\d+(?:\.\d+)?)\s*k(?![a-z0-9])", work)
        if m:
            return int(float(m.group(1)) * 1024)
        keyword = r"(?:seq(?:uence)?[-_ ]?len(?:gth)?|seq|cutoff[-_ ]?len|max[-_ ]?(?:model[-_ ]?)?len|context(?:\s+length)?|ctx|长度|序列|上下文|length)"
        m = re.search(keyword + r"\D{0,12}?(\d{3,7})(?![0-9])", work)
        if m:
            return int(m.group(1))
        m = re.search(r"(?<![0-9.])(\d{3,7})\s*(?:tokens?|个token|token)", work)
        if m:
            return int(m.group(1))
        for m in re.finditer(r"(?<![0-9.a-z])(\d{3,7})(?![0-9.])(?!\s*(?:x|×)?\s*(?:卡|张|块|步|节点|(?:cards?|npus?|gpus?|dies?|nodes?|gi?b?|steps?|iters?)(?![a-z])))", work):
            n = int(m.group(1))
            if n >= 512 and n % 256 == 0:
                return n
        return None


def field_names() -> list[str]:
    return [f.name for f in fields(Slots)]
