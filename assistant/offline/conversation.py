"""The conversation as a frame: the last turn's frame updated by the new one. A follow-up changes what
it names and keeps the rest; a new topic (another model, a troubleshooting question) starts a new
frame; a device limit persists until the user changes it. What the conversation asks, its domain and the
words that refer back to the last answer are declared in carry.toml."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import checks, proposal, quantity, spec
from .asked import ASKS_VERDICT, HOST_RAM, asks_host_ram, asks_verdict
from .frame import PartFacts, QuestionFrame
from .next_remedy import reports_done, said_done
from .serving_words import KV_EFFECT
from .spans import Reading
from .vocab import (
    ASKS_COUNT,
    DIFFERENCE_ASKED,
    DOUBLES,
    EN_NUMBERS,
    HEADROOM_ASKED,
    NODES_ASKED,
    SETTING_ASKED,
    cn_number,
    cn_numerals_to_digits,
    effect_asked,
)

CARRY_FILE = Path(__file__).with_name("carry.toml")


@dataclass(frozen=True)
class CarrySpec:
    """carry.toml, loaded: each slot's policy, the asked intents (and what states or resets them), the domain, the
    words that refer back."""

    model_slots: tuple[str, ...]
    carried: tuple[str, ...]
    task_slots: dict[str, tuple[str, ...]]
    framework_slots: dict[str, tuple[str, ...]]
    comparisons: dict[str, str]
    follow_part: frozenset[str]
    merged: tuple[str, ...]
    asked: frozenset[str]
    stated_by: dict[str, tuple[str, ...]]
    resets: dict[str, tuple[str, ...]]
    one_quantity: frozenset[str]
    domain: frozenset[str]
    reported: frozenset[str]
    persists: re.Pattern
    on_last_count: frozenset[str]
    refers_back: re.Pattern
    that_many: re.Pattern
    relative: dict[str, list[tuple[re.Pattern, str, float]]]
    together: tuple[tuple[str, ...], ...] = ()
    detour: tuple[str, ...] = ()
    language_asked: dict[str, re.Pattern] | None = None
    defines: re.Pattern | None = None
    howto_chars: int = 300
    hardware_part: tuple[str, ...] = ()
    hardware_devices: tuple[str, ...] = ()
    facts_intents: frozenset[str] = frozenset()
    facts_slots: tuple[str, ...] = ()
    owns: re.Pattern = re.compile(r"(?!)")
    reset_kept: re.Pattern = re.compile(r"(?!)")  # "same TP PP": the value a reset would drop is said to stay
    kept_product: dict[str, re.Pattern] | None = None  # "same global batch": the conversation's product kept
    both: re.Pattern = re.compile(r"(?!)")  # "could both share one card?": the last two models together
    solved: dict[str, re.Pattern] | None = None  # "with TP 8, what PP?": the layout slot asked beside a stated one
    ordinals: tuple[tuple[int, re.Pattern], ...] = ()  # "the first case", "第二种方案": the N-th turn that asked about a job
    back: re.Pattern = re.compile(r"(?!)")  # "回到全参那个方案", "back to the 4k one": the earlier turn with the value named
    referent_slots: tuple[str, ...] = ()  # the slots whose value names the earlier turn gone back to
    proposed_count: re.Pattern = re.compile(r"(?!)")  # "would 12 cards do?": a count proposed, not the user's (carry.toml)
    serving_part: tuple[str, ...] = ()  # the part a serving turn named for its job: not the training job's (carry.toml)
    domain_left: dict[str, frozenset[str]] | None = None  # a task's asked intents left behind on a switch (carry.toml)
    why: re.Pattern = re.compile(r"(?!)")  # "why 16?": where the last answer's figure comes from (carry.toml [why])
    that_stage: re.Pattern = re.compile(r"(?!)")  # "用那个 stage": the ZeRO stage the last answer stated (carry.toml)
    keeps_values: re.Pattern = re.compile(r"(?!)")  # "glm4-9b with the same number of requests": values kept (carry.toml)
    next_step: re.Pattern = re.compile(r"(?!)")  # "…, now what?": the next step of the how-to topic (carry.toml [howto])


def words(table: dict[str, Any]) -> re.Pattern:
    return re.compile("|".join(w for lang in ("en", "zh") for w in table.get(lang, [])))


def load(path: Path = CARRY_FILE) -> CarrySpec:
    with path.open("rb") as f:
        raw = tomllib.load(f)
    asked, slots = raw["asked"], raw["slots"]
    tasks = {task: (*slots[task], *spec.of_task(task)) for task in raw["domain"]}  # and the stated settings of that task
    # one policy per slot: the spec's slots that carry.toml also names are counted once
    carried = tuple(dict.fromkeys((*slots["model"], *slots["persist"], *slots["training"], *slots["serving"], *spec.BY_NAME)))
    return CarrySpec(tuple(slots["model"]), carried,
                     tasks, {fw: tuple(names) for fw, names in slots["framework"].items()}, dict(slots["comparisons"]), frozenset(slots["follow_part"]["slots"]),
                     tuple(slots["merged"]["slots"]),
                     frozenset(asked["intents"]), {k: (v,) if isinstance(v, str) else tuple(v) for k, v in asked.get("stated_by", {}).items()},
                     {k: tuple(v) for k, v in asked.get("resets", {}).items() if k != "kept"}, frozenset(asked.get("one_quantity", ())),
                     frozenset(i for intents in raw["domain"].values() for i in intents),
                     frozenset(raw["reported"]["intents"]), words(raw["reported"]["persists"]), frozenset(raw["on_last_count"]["intents"]),
                     words(raw["refers_back"]), words(raw["that_many"]),
                     {slot: [(re.compile(p), "add", 1.0) for p in ops.get("add", [])] +
                            [(re.compile(p), "times", float(f)) for p, f in ops.get("times", [])]
                      for slot, ops in raw.get("relative", {}).items()},
                     tuple(tuple(group) for group in slots.get("together", {}).values()),
                     tuple(slots.get("detour", {}).get("slots", ())),
                     {lang: re.compile("|".join(pats)) for lang, pats in raw.get("language_asked", {}).items()},
                     words(raw["defines"]) if "defines" in raw else None,
                     int(raw.get("howto", {}).get("keep_chars", 300)),
                     tuple(raw["user_hardware"]["part"]), tuple(raw["user_hardware"]["devices"]),
                     frozenset(raw["facts_quoted"]["intents"]), tuple(raw["facts_quoted"]["slots"]), words(raw["facts_quoted"]["own"]),
                     words(asked.get("resets", {}).get("kept", {})),
                     {slot: words(pats) for slot, pats in raw.get("kept_product", {}).items()},
                     words(raw.get("both", {})),
                     {slot: words(pats) for slot, pats in asked.get("solved", {}).items()},
                     tuple((int(n), words(pats)) for n, pats in raw.get("referents", {}).get("ordinal", {}).items()),
                     words(raw.get("referents", {}).get("back", {})), tuple(raw.get("referents", {}).get("slots", ())),
                     words(raw.get("proposed_count", {})), tuple(slots.get("serving_part", {}).get("slots", ())),
                     {task: frozenset(names) for task, names in raw.get("domain_left", {}).items()},
                     words(raw.get("why", {})), words(raw.get("that_stage", {})), words(raw.get("keeps_values", {})),
                     words(raw.get("howto", {}).get("next_step", {})))


CARRY = load()
ACKNOWLEDGED = re.compile(r"^\s*(?:ok(?:ay)?|好的?|嗯|行)(?![a-z])[\s,，.。!！]*", re.I)

SIZING = {"cards", "zero", "ga", "memory", "config", "inference", "time", "tp", "capacity", "kv"}


def refers_back(s: QuestionFrame) -> bool:
    """"for the same?", "full fine-tuning of it", "同样的配置" with no model of its own: about the last answer."""
    return not names_model(s) and bool(CARRY.refers_back.search(s.question.lower()))


def new_topic(s: QuestionFrame, follow_up: bool) -> bool:
    """A troubleshooting or how-to question that names no model and asks no sizing ("BF16 vs FP16,
    which one?", "what does ZeRO-3 offload move to the CPU?") after a sizing answer: a new topic, so the
    earlier model is not carried into it."""
    from .route import knowledge_question  # the router's test of a question the notes answer

    # "lora rank goes to 128": a setting of the job; a ZeRO stage is also what an explaining question is about.
    # A length is the job's too: "序列长度 16k 可以吗" asks about the job at 16k (its words name the notes' topics)
    stated = any(spec.value_of(s, name) is not None for name in spec.BY_NAME if name != "zero_stage")
    job_said = bool(s.model or s.params_b or s.devices or s.nodes or stated or s.seq_len or s.method or s.framework)
    if defines(s) and not job_said:
        return True  # "what is gradient checkpointing and does it save memory?": a term explained, however short
    # a method said is the job's as a length is ("lora 的话还要开 offload 吗" asks the job as LoRA), unless a term is explained
    if follow_up or s.model or s.params_b or s.devices or s.nodes or stated or s.seq_len or (s.method and not defines(s)):
        return False
    if s.intents & (SIZING - {"zero", "ga"}):
        return False  # "what does ZeRO-3 do" explains a stage; a KV cache, a length or a count asked is sizing
    return bool(s.intents & {"troubleshoot", "compare"} or s.notes_cover) and not s.intents & SIZING or knowledge_question(s)


def defines(s: QuestionFrame) -> bool:
    """"what is X", "X 和 Y 有什么区别" about a term of the domain, asking no count, not referring back to the last answer (carry.toml
    [defines])."""
    q = ACKNOWLEDGED.sub("", s.question.strip().lower())
    # a count or the largest model asked ("LoRA 能训的最大模型是什么") is sizing, whatever its words
    sizing = "largest_model" in s.intents or bool(ASKS_COUNT.search(q))
    return bool(CARRY.defines and CARRY.defines.search(q) and (s.notes_named or s.on_topic) and not sizing
                and not CARRY.refers_back.search(q))


def asked_language(question: str) -> str | None:
    """The language a turn asks the answer in ("and in Chinese?", "用英文再说一遍"), if any (carry.toml [language_asked])."""
    q = question.lower()
    return next((lang for lang, rx in (CARRY.language_asked or {}).items() if rx.search(q)), None)


def language_only(s: QuestionFrame) -> str | None:
    """The language a turn asks for when it asks nothing else ("and in Chinese?", "英文回答一下", "explain in English
    please"): no quantity, model or value of its own."""
    lang = asked_language(s.question)
    stated = s.model or s.params_b or s.devices or s.nodes or s.seq_len or s.method or s.framework or s.hardware
    # "translate that to english" reads as an off-topic request by its verb; it asks the answer again
    return lang if lang and not stated and not s.intents - {"estimate", "support", "off_topic"} else None


def names_model(s: QuestionFrame) -> bool:
    return bool(s.model or s.unknown_model or s.params_b)


def starts_over(new: QuestionFrame, follow_up: bool) -> bool:
    """Another model without "what about…", a new topic, or an unknown model: nothing is carried."""
    return (names_model(new) and not follow_up) or new_topic(new, follow_up) or bool(new.unknown_model and follow_up)


def keep_part(new: QuestionFrame, earlier: QuestionFrame) -> None:
    """The user's part kept under a term explained between sizing turns (carry.toml [slots.detour])."""
    for name in CARRY.detour:
        if getattr(new, name) is None and getattr(earlier, name) is not None:
            setattr(new, name, getattr(earlier, name))
            new.origins[name] = "conversation"
    for name in CARRY.merged:
        setattr(new, name, {**getattr(earlier, name), **getattr(new, name)})


def keep_language(new: QuestionFrame, earlier: QuestionFrame, turn: QuestionFrame) -> None:
    """"16呢" is too short to tell its language: the conversation's holds (and its problems are said in it)."""
    if turn.lang_weak:
        new.lang = earlier.lang
    if asked := asked_language(turn.question):
        new.lang = asked  # "用英文再说一遍": the language asked, not the one the request is written in
    if turn.problems and new.lang != turn.lang:
        new.problems = checks.problems(turn.question.lower(), new.lang)


def bare_count_as_devices(new: QuestionFrame, earlier: QuestionFrame, turn: QuestionFrame, follow_up: bool) -> QuestionFrame:
    """"and with 16?" after a sizing answer: the same job on 16 devices, counted as before (and no
    longer on the earlier nodes). Returns the earlier frame to carry from."""
    if (new.devices is None and new.nodes is None and turn.bare_count and follow_up
            and (earlier.model or earlier.params_b) and not (turn.model or turn.params_b)
            # "switch to qwen2.5-7b with the same 64" after 64 requests: the conversation's own value, not a device count
            and turn.bare_count not in {earlier.concurrency} - {earlier.effective().devices}):
        new.devices, new.device_unit, new.nodes = turn.bare_count, earlier.device_unit, None
        new.mark("said", "devices")
        new.mark("conversation", "device_unit")
        return earlier.model_copy(update={"nodes": None})
    return earlier


def served_counts(new: QuestionFrame, turn: QuestionFrame) -> None:
    """"bump that to 24 sequences" in a serving conversation: the sequences counted are those served at once (as
    parse reads them in a serving question), not a training set; the conversation's domain decides, not the turn's words."""
    if new.task() == "serving" and turn.task() is None and turn.samples and not turn.concurrency:
        new.concurrency, new.samples = int(turn.samples), None
        new.mark("said", "concurrency")


def asks(turn: QuestionFrame) -> set[str]:
    """The quantities this turn asks itself; an intent its own stated value raises ("int8 kv cache") asks nothing,
    and a device word asks no count unless a count is asked ("per card", "on those cards")."""
    solved = solved_slot(turn)  # "with TP 8, what PP?": the stated TP asks nothing, the PP asked does
    out = {i for i in turn.intents & CARRY.asked
           if not (i in CARRY.stated_by and any(spec.value_of(turn, n) is not None for n in CARRY.stated_by[i]))
           or solved in CARRY.stated_by.get(i, ())}
    if "cards" in out and not count_asked(turn.question):
        out.discard("cards")
    return out


def count_asked(question: str) -> bool:
    """A count is asked in words other than a setting's figure asked ("TP 是多少" asks the split, not a count of cards)."""
    return bool(Reading.claiming(question.lower(), "setting_asked", SETTING_ASKED).search(ASKS_COUNT))


def solved_slot(s: QuestionFrame) -> str | None:
    """"with TP 8, what PP should I use?": the layout slot the turn asks the value of, beside a stated one
    (carry.toml [asked.solved]); None when it states that slot too or asks none."""
    q = s.question.lower()
    return next((slot for slot, rx in (CARRY.solved or {}).items()
                 if spec.value_of(s, slot) is None and rx.search(q)
                 and any(spec.value_of(s, other) is not None for other in CARRY.solved or {} if other != slot)), None)


def asks_other_than_verdict(s: QuestionFrame) -> bool:
    """A follow-up asking one quantity of the job on the conversation's devices (carry.toml one_quantity), not
    whether those devices are enough nor how many: the yes/no was the last answer's, so it is not said again."""
    return (s.origin("devices") == "conversation" and not asks_verdict(s) and "cards" not in s.intents
            and bool(s.intents & CARRY.one_quantity))


def asks_count_of_kept_devices(s: QuestionFrame) -> bool:
    """A follow-up asking the count itself ("表里 LlamaFactory 最少要几张卡", "what's the nearest count the table
    accepts?") of a job whose devices the conversation holds: the count leads; whether those devices cover it is no
    longer what is asked (unless the turn asks that yes/no in words)."""
    # "这么多卡的话每张卡显存多少" asks the memory of the count, not the count
    other = s.intents & (CARRY.one_quantity | {"memory", "kv", "max_context", "capacity"})
    return s.origin("devices") == "conversation" and count_asked(s.question) and not asks_verdict(s) and not other


def layout_outgrows_devices(turn: QuestionFrame, earlier: QuestionFrame) -> bool:
    """"tp=2 呢" after serving on one card: a serving layout said now is the devices it runs on (vLLM takes TP × PP
    devices), so a smaller count said before is not carried under it; a training layout is checked against the devices
    ("TP 8 PP 4 on those 24 cards?" is refused as it is)."""
    if not turn.tp or turn.devices or turn.nodes or (turn.task() or earlier.task()) != "serving":
        return False
    return (earlier.effective().devices or 0) < turn.tp * (turn.pp or 1)


USERS = frozenset({"said", "conversation", "read_as"})  # origins of a value the user gave (not a rule's, not the last answer's)


def facts_quoted(earlier: QuestionFrame) -> set[str]:
    """The count slots of a turn that asked a part's own facts with no model and no word saying the user has the devices
    (carry.toml [facts_quoted]): a count of the fact, not the user's devices."""
    from .batch_math import (
        solve,  # the batch identity worked out of them ("64 卡 tp8，GA 设多少"): the user's devices too
    )
    from .quantity import (
        asked,  # a quantity worked out of the counts ("32 张 910B，TP 4 PP 2，DP 是多少"): the user's devices
    )

    if names_model(earlier) or not earlier.intents & CARRY.facts_intents or CARRY.owns.search(earlier.question.lower()) or asked(earlier) \
            or solve(earlier, assume_mbs=True) is not None:
        return set()
    return {name for name in CARRY.facts_slots if earlier.origin(name) == "said"}


def keep_hardware(new: QuestionFrame, earlier: QuestionFrame, turn: QuestionFrame) -> None:
    """A turn naming another model keeps the user's own part and devices (carry.toml [user_hardware]) unless it names
    its own; marked as the conversation's."""
    if turn.hardware or turn.hardwares or turn.memory_gb or earlier.origin("hardware") not in USERS:
        return
    if not (earlier.origin("devices") in USERS or earlier.origin("nodes") in USERS or CARRY.owns.search(earlier.question.lower())):
        return  # a part the last job was sized on ("on Snt9B23, how many cards?") is not hardware the user said they have
    if serving_part_left(new, earlier, turn):
        return  # "back to 训练：qwen2.5-7b full 要几张" after serving it on one 32GB card: the training default part
    names = list(CARRY.hardware_part) + ([] if turn.devices or turn.nodes or earlier.devices_proposed else list(CARRY.hardware_devices))
    skip = facts_quoted(earlier)
    for name in names:
        value = getattr(earlier, name)
        if name in skip or value in (None, []) or earlier.origin(name) not in USERS and name not in CARRY.follow_part:
            continue
        if getattr(new, name) in (None, []) or new.origins.get(name) == "default" and name in CARRY.follow_part:
            setattr(new, name, value)
            new.origins[name] = "conversation"
    new.part_facts = {**earlier.part_facts, **new.part_facts}


def proposes_count(turn: QuestionFrame) -> bool:
    """"would 12 cards do?", "16 张够吗": a count proposed in a yes/no about it (carry.toml [proposed_count]), with no word
    saying the user has the devices."""
    q = turn.question.lower()
    return (turn.devices is not None or turn.nodes is not None) and bool(CARRY.proposed_count.search(q)) and not CARRY.owns.search(q)


def proposed_count_left(new: QuestionFrame, earlier: QuestionFrame, turn: QuestionFrame) -> None:
    """A count the user proposed ("would 12 cards do?") is not their device limit when the next turn asks a count of its
    own ("and the minimum at 8192?"): that turn is answered from the tables, not as a yes/no on the 12. A turn asking the
    same yes/no again ("换成 8192 呢") keeps it."""
    if turn.devices is not None or turn.nodes is not None:
        new.devices_proposed = proposes_count(turn)
        return
    if not earlier.devices_proposed:
        return
    if "cards" in asks(turn) and new.origin("devices") not in ("said", "read_as") and new.origin("nodes") not in ("said", "read_as"):
        new.devices = new.nodes = None
        for slot in ("devices", "nodes"):
            new.origins.pop(slot, None)
        return
    new.devices_proposed = True


def serving_part_left(new: QuestionFrame, earlier: QuestionFrame, turn: QuestionFrame) -> bool:
    """A turn switching from serving to training, naming no part of its own: the part the serving turn named for its job
    stays behind (carry.toml [slots.serving_part]) unless the user said it is theirs or the turn refers back to it."""
    return turn.task() == "training" and earlier.task() == "serving" and not (turn.hardware or turn.hardwares or turn.memory_gb) \
        and not (refers_back(turn) or CARRY.owns.search(earlier.question.lower()))


def carry(new: QuestionFrame, earlier: QuestionFrame, turn: QuestionFrame) -> None:
    """Every value this turn leaves open, from the conversation (marked so); a turn naming a model
    keeps its own model slots, and one asking which model fits ("what model fits on one A100?",
    "最大能跑多大的模型") asks for a model, so the earlier one is not carried into it. A quantity the
    turn asks ("最长能开多少") is not carried either: carry.toml's resets."""
    own_model = names_model(turn) or "largest_model" in turn.intents
    switched = turn.task() is not None and earlier.task() not in (None, turn.task())
    left_behind = set(CARRY.task_slots.get(earlier.task() or "", ())) if switched else set()
    if not CARRY.reset_kept.search(turn.question.lower()):  # "same TP PP" keeps what asking the split would reset
        left_behind |= {slot for intent in asks(turn) for slot in CARRY.resets.get(intent, ())}
    if turn.memory_gb and not (turn.hardware or turn.hardwares) and earlier.memory_gb not in (None, turn.memory_gb):
        # "the 64GB card" after "a 32GB card": the part with the other memory (the default part, or the one the reader
        # picks by memory), not the carried 32 GB one
        left_behind |= {"hardware", "hardware_text", "hardwares"}
    if serving_part_left(new, earlier, turn):
        left_behind |= set(CARRY.serving_part)  # "切回训练" after serving on a 32 GB card: the training default part
    for group in CARRY.together:  # "那只用一台呢" after "两台，每台 8 卡": one node, not the 16 devices said before
        if any(getattr(turn, slot) is not None for slot in group):
            left_behind |= {slot for slot in group if getattr(turn, slot) is None}
    if layout_outgrows_devices(turn, earlier):
        left_behind |= {"devices", "nodes", "device_unit"}
    left_behind |= facts_quoted(earlier)  # "A3 一台机器 = 几个 DIE": the fact's node, not the user's
    if turn.framework and not turn.frameworks and turn.framework != earlier.framework:  # another trainer: its own settings
        left_behind |= {slot for fw, slots in CARRY.framework_slots.items() if fw != turn.framework for slot in slots}
    if "seq_len" in left_behind and earlier.seq_len and not turn.seq_len:
        new.length_before = earlier.seq_len  # "上下文要 32k 呢" then "最长能开多少": how far past the length the thread stated
    for name in CARRY.carried:
        if name not in QuestionFrame.model_fields:
            continue  # a specification slot without an attribute: carried in ``settings`` below
        if name in CARRY.model_slots and own_model:
            continue
        if name in left_behind:
            continue  # the earlier task's settings do not apply to the new one
        if name in CARRY.comparisons and getattr(turn, CARRY.comparisons[name]):
            continue  # "on H100 then?" after "A100 vs 910B": one part now, no longer the comparison
        value = getattr(earlier, name)
        open_here = getattr(new, name) in (None, []) or new.origins.get(name) == "default" and name in CARRY.follow_part
        if value is not None and open_here and value != []:
            setattr(new, name, value)
            new.origins[name] = "read_as" if earlier.origins.get(name) == "read_as" else "conversation"
    for name in CARRY.merged:
        setattr(new, name, {**getattr(earlier, name), **getattr(new, name)})
    keep_product(new, earlier, turn)
    for name, value in earlier.settings.items():  # the specification's settings, carried by their declared task
        if name not in new.settings and name not in left_behind and (not switched or spec.BY_NAME[name].task != earlier.task()):
            new.settings[name] = value
            new.origins[name] = "conversation"
    new.hardware_guessed = turn.hardware_guessed if turn.hardware else earlier.hardware_guessed
    if new.hardware_guessed:
        new.mark("default", "hardware")


def unnamed_gpu(new: QuestionFrame, earlier: QuestionFrame, turn: QuestionFrame) -> None:
    """A turn saying GPUs with no part ("换成 4 张 GPU 呢", "and on 2 GPUs?"): the GPU the conversation named stays
    (the user's A100s); on an Ascend part, or none named, the conversation's job is sized on the unnamed-GPU parts and
    said so (parse.Parser._gpu_unnamed), never on the Ascend part."""
    if not turn.gpu_stand_ins:
        return
    said = earlier.hardware if earlier.origin("hardware") in USERS else None
    if said and (earlier.part_facts.get(said) or PartFacts()).kind == "gpu" and not earlier.gpu_stand_ins:
        note = turn.gpu_unnamed_note
        new.hardware, new.hardwares, new.part_stand_in = earlier.hardware, list(earlier.hardwares), earlier.part_stand_in
        new.rule_notes = [n for n in new.rule_notes if n != note]
        new.mark("conversation", "hardware")
        return
    if new.hardwares == turn.gpu_stand_ins or not (new.model or new.models or new.params_b or new.shape):
        return
    new.hardwares, new.hardware, new.part_stand_in = list(turn.gpu_stand_ins), turn.gpu_stand_ins[0], turn.gpu_unnamed_note
    facts = new.part_facts.get(new.hardware) or PartFacts()
    new.node_size, new.dies_per_card, new.hardware_text = facts.devices_per_node, 1, None
    if new.device_unit == "die":
        new.device_unit = "card"
    new.mark("said", "hardware")


def global_batch_of(s: QuestionFrame) -> int | None:
    """The frame's global batch: stated, or micro batch x data parallelism (devices / (TP x PP)) x accumulation."""
    if s.global_batch:
        return s.global_batch
    devices, split = s.effective().devices, (s.tp or 1) * (s.pp or 1)
    if not (devices and s.micro_batch and s.grad_accum) or devices % split:
        return None
    return s.micro_batch * devices // split * s.grad_accum


def keep_product(new: QuestionFrame, earlier: QuestionFrame, turn: QuestionFrame) -> None:
    """"卡减半，想保持同样的全局 batch": the conversation's global batch kept as the user's (carry.toml [kept_product]), so the
    accumulation asked is solved on the changed devices."""
    rx = (CARRY.kept_product or {}).get("global_batch")
    value_rx = (CARRY.kept_product or {}).get("global_batch_value")
    batch_turn = bool((turn.intents | earlier.intents) & {"ga", "gbs"})
    if value_rx is not None and not turn.global_batch and batch_turn and (m := value_rx.search(turn.question.lower())):
        new.global_batch = int(next(g for g in m.groups() if g))  # "想保持 64": the global batch the user keeps, named
        new.mark("said", "global_batch")
        kept_asks_accumulation(new)
        return
    if rx is None or turn.global_batch or not rx.search(turn.question.lower()):
        return
    if (value := global_batch_of(earlier)) is not None:
        new.global_batch = value
        new.mark("conversation", "global_batch")
        kept_asks_accumulation(new)


def kept_asks_accumulation(new: QuestionFrame) -> None:
    """The global batch kept ("keep the same global batch") names the product, it does not ask it: with the devices
    changed, the factor left to solve is the accumulation (GBS = MBS × DP × GA)."""
    if "gbs" in new.intents and new.grad_accum is None:
        new.intents = (new.intents - {"gbs"}) | {"ga"}


def carry_intents(new: QuestionFrame, earlier: QuestionFrame, turn: QuestionFrame) -> None:
    """"give me the yaml" keeps the model but asks something new; "and with 8k?" asks the same thing again, and
    so does a turn that only changes a value ("int8 kv cache?", "tps drops to 1500"). The domain (serving or
    training) stays until a turn names the other task. A turn saying the reported problem persists asks the earlier
    question again."""
    # "OOM 了" then "已经是 ZeRO-3 了": still the run that ran out of memory; a turn that moves it to other devices ("we can
    # get 16 cards now") asks about another run, which has not failed
    other_devices = turn.devices is not None or turn.nodes is not None or new.devices != earlier.devices
    # "could we do ZeRO-3 instead?", "TP8 PP2 行吗" (carry.toml [proposal]): the proposed run has not run, so it has not failed;
    # it is judged (a yes/no on it) unless the turn asks a quantity of its own
    # ("那 per_device 改成 2 呢" after "how much memory per card?" asks that quantity again; so does "GA 改成 32 呢" after
    # "每个 step 多少 token": a quantity of quantities.toml the thread asks)
    thread_quantity = bool(earlier.quantities_carried or quantity.asked(earlier, inputs=False))
    if turn.proposed and not asks(turn) and (proposal.asks_yes_no(turn.question)
                                             or not earlier.intents & CARRY.asked - CARRY.domain and not thread_quantity):
        new.verdict_carried = True
    if earlier.oom_reported and turn.task() in (None, earlier.task()) and not other_devices and not turn.proposed:
        new.oom_reported = True
        # the remedies said done in this turn and the earlier ones (next_remedy.py): not suggested again
        new.remedies_tried = set(earlier.remedies_tried) | said_done(turn.question)
        new.oom_persists = reports_done(turn.question)
    if earlier.oom_reported and (earlier.tp or earlier.pp) and earlier.effective().devices:
        new.oom_split = (earlier.tp or 1, earlier.pp or 1, earlier.effective().devices or 0)
    elif earlier.oom_split and not new.oom_split:
        new.oom_split = earlier.oom_split
    if earlier.intents & CARRY.reported and CARRY.persists.search(turn.question.lower()):
        new.intents = earlier.intents | (turn.intents - CARRY.asked)
        return
    # "are 16 still enough?" after "how would you split TP and PP?": the yes/no is asked now, not the split again
    # (an opening "ok, and …" acknowledges the last answer; it asks no yes/no)
    not_again = CARRY.one_quantity if ASKS_VERDICT.search(ACKNOWLEDGED.sub("", turn.question)) else frozenset()
    if turn.procedures_named and not asks(turn):
        return  # "and after training, back to HF?": the procedure is asked now, not the earlier turn's quantities
    if not turn.intents - {"estimate", "support"}:
        new.intents |= earlier.intents - CARRY.reported - not_again
    elif not asks(turn):
        new.intents |= earlier.intents & (CARRY.asked | CARRY.domain) - not_again
        # a device word that asks no count ("tps drops to 1500 per card") does not add a card count to the question
        new.intents -= (turn.intents & CARRY.asked) - set(CARRY.stated_by) - earlier.intents
    elif "cards" in new.intents and "cards" not in asks(turn):
        # "on those cards, what ZeRO and GA?": the turn asks its own quantities; its device word asks no count
        new.intents.discard("cards")
    if not asks(turn) and not quantity.asked(turn, inputs=False):
        # "what if the window is 72 hours instead?": the quantity the earlier turn asked, on the changed figures
        new.quantities_carried = list(dict.fromkeys([*earlier.quantities_carried, *(r.name for r in quantity.asked(earlier))]))
    if not asks(turn) and (ASKS_VERDICT.search(earlier.question) or earlier.verdict_carried):
        new.verdict_carried = True  # "够吗?" then "换成 8192 呢": the same yes/no, on the changed job
    if not asks(turn) and not quantity.asked(turn, inputs=False) and not HOST_RAM.search(turn.question) and asks_host_ram(earlier):
        new.host_ram_carried = True  # "每台要多少内存" then "那 8 台呢": the host RAM per node again, on the changed count
    if turn.task() is None:
        new.intents |= earlier.intents & CARRY.domain
    if turn.task() is not None and earlier.task() not in (None, turn.task()):
        # "and for full fine-tuning at 16 bytes per parameter?" after a serving (weights) turn: the training job now
        new.intents -= (CARRY.domain_left or {}).get(earlier.task() or "", frozenset()) - turn.intents
    new.on_topic = new.on_topic or earlier.on_topic


def amount_word(word: str) -> float | None:
    """"3", "两", "three", "an": the amount a relative change names."""
    return float(word) if word.isdigit() else cn_number(word) if cn_number(word) is not None else EN_NUMBERS.get(word)


def changes_relative(turn: QuestionFrame) -> bool:
    """"double the cutoff - does anything change?", "并发翻倍呢": a value changed relative to the conversation's own
    (carry.toml [relative]) says the turn goes on with it, whatever else it says or lacks."""
    q = cn_numerals_to_digits(turn.question.lower())
    return any(rx.search(q) for rules in CARRY.relative.values() for rx, _, _ in rules)


def relative_change(new: QuestionFrame, earlier: QuestionFrame, turn: QuestionFrame) -> set[str]:
    """A carried value the turn changes relative to itself (carry.toml [relative]): "再加一个 epoch" after 3 epochs is 4,
    "double the cards" after 8 is 16; a value the turn states outright wins. The slots changed."""
    q, changed = cn_numerals_to_digits(turn.question.lower()), set()
    for slot, rules in CARRY.relative.items():
        base = earlier.effective().devices if slot == "devices" else getattr(earlier, slot, None)
        if not base:
            continue
        for rx, op, factor in rules:
            m = rx.search(q)
            amount = amount_word(m.group(1)) if m and op == "add" else factor if m else None
            # "再加 8 张卡" reads its 8 as a count of cards too: that count is the amount added, not the new total; a value
            # the turn states outright beside a relative word ("double to 16") wins
            if amount is None or getattr(turn, slot, None) not in (None, amount if op == "add" else None):
                continue
            value = base + amount if op == "add" else base * amount
            setattr(new, slot, value if isinstance(base, float) else int(round(value)))  # a count stays whole
            if slot == "devices":
                new.nodes, new.device_unit = None, earlier.device_unit
            new.mark("said", slot)
            changed.add(slot)
            break
    return changed


def howto_follow_up(turn: QuestionFrame, earlier: QuestionFrame) -> bool:
    """A turn after a how-to topic that names no model and no amount of its own, and reports nothing wrong ("header
    怎么填", "要每个节点都设吗", "我申请了 32 张卡，集群一共才 16 张"): it goes on about that topic. The topic is carried like a
    slot: a turn naming no note, or naming the topic's own note among others ("how long is a token valid?" names the
    training-time note by "how long" and the public-access note by "token"), stays on it; a turn judged outside the
    assistant's scope on its own few words ("what auth options do I have?") is read with the topic; and a count the
    turn words as a condition of the topic's note ("那如果卡数够但还是 Pending 呢") is no amount asked of a job when the
    conversation has no job."""
    from .route import asks_amount  # the router's test of an amount asked of a job

    # "ok and for LoRA of it?", "back to that job": the job asked before the how-to detour, not the topic
    job = bool(earlier.model or earlier.params_b)
    back_to_job = bool(CARRY.refers_back.search(turn.question.lower())) and job
    named = set(turn.notes_named or ())
    if CARRY.next_step.search(turn.question.lower()):
        named = set()  # "found a leftover process eating 50GB, now what": the topic's next step, not another note's subject
    on_topic_note = bool(named & earlier.howto_notes)
    amount = asks_amount(turn) and not (on_topic_note and not job)
    # (judged out of scope on its own words, a question goes on about the topic; a request does not: "recommend me some
    # running earphones" after the public-access answer is still outside what the assistant does)
    request = bool(turn.problems) and not ASKED_FORM.search(turn.question.lower())
    return bool(earlier.howto_before and not names_model(turn) and (not named or on_topic_note)
                and not own_problems(turn) and not request and not amount and not back_to_job)


# a turn worded as a question ("what auth options do I have?", "那 token 多久过期", "能不能…")
ASKED_FORM = re.compile(r"[?？]\s*$|^\s*(?:and\s+|so\s+|ok(?:ay)?[,\s]+)?(?:what|which|how|where|when|why|who|can|could|do|does|is|are|should|"
                        r"will|would)(?![a-z])|吗|呢|什么|怎么|怎样|如何|哪|几|多少|多久|是否|能不能|可不可以")


def own_problems(turn: QuestionFrame) -> list[str]:
    """The problems of a turn besides the reader's judgment that its own words are outside the assistant's scope (the
    reader's sentence, parse.OUT_OF_SCOPE; imported here, as parse.py imports this module's callers)."""
    from .parse import OUT_OF_SCOPE

    return [p for p in turn.problems if p not in OUT_OF_SCOPE.values()]


def on_howto(new: QuestionFrame, earlier: QuestionFrame) -> QuestionFrame:
    """``new`` as a follow-up of the how-to topic: searched with its words and among its notes (the topic's, and the
    turn's own only when none is the topic's), nothing of a job carried."""
    new.howto_before = earlier.howto_before
    new.problems = own_problems(new)
    new.notes_named = set(earlier.howto_notes) or set(new.notes_named or ())
    new.notes_cover = set(new.notes_named) | (new.notes_cover or set())
    new.on_topic = True
    return new


def howto_kept(frame: QuestionFrame, answered_from_notes: bool) -> dict[str, Any]:
    """The how-to topic the conversation keeps after ``frame``'s turn: its words before the topic's earlier words when
    the notes answered it, else none (carry.toml [howto])."""
    if not answered_from_notes:
        return {"howto_before": "", "howto_notes": set()}
    words = f"{frame.topic_text} {frame.howto_before}".strip()[:CARRY.howto_chars]
    return {"howto_before": words, "howto_notes": set(frame.notes_named or ()) | set(frame.howto_notes)}


def models_kept(new: QuestionFrame, earlier: QuestionFrame, turn: QuestionFrame) -> None:
    """The model before the current one (another named now: the earlier one), and the one a turn about both serves
    beside the current one (carry.toml [both])."""
    if turn.model and earlier.model and turn.model != earlier.model:
        new.model_before = earlier.model
    elif not names_model(turn):
        new.model_before = earlier.model_before
        if new.model_before and CARRY.both.search(turn.question.lower()) and new.model_before != earlier.model:
            new.shares_with = new.model_before


def asks_why(turn: QuestionFrame, earlier: QuestionFrame) -> bool:
    """"why 16 though?", "为啥一下翻倍了" after a job was sized (carry.toml [why]): the reason for the last answer's figure,
    naming no other model and reporting no problem."""
    if not CARRY.why.search(turn.question.lower()) or not (earlier.model or earlier.params_b):
        return False
    other_model = names_model(turn) and (turn.unknown_model or turn.model != earlier.model or turn.params_b != earlier.params_b)
    return not other_model and not turn.oom_reported and "problem" not in turn.intents and not turn.proposed


def why_kept(new: QuestionFrame, earlier: QuestionFrame) -> None:
    """A "why" turn asks about the job as it was: a value it quotes ("the 4k row was only 8", "要 8 张这么多") is not a
    new value of the job, and the conversation's question is asked again with the reason leading (frame.why_asked)."""
    for name in CARRY.carried:
        if name not in QuestionFrame.model_fields or getattr(new, name) == getattr(earlier, name):
            continue
        setattr(new, name, getattr(earlier, name))
        if name in earlier.origins:
            new.origins[name] = earlier.origins[name]
        else:
            new.origins.pop(name, None)
    new.settings = dict(earlier.settings)
    new.bare_count = None
    new.intents = set(earlier.intents) - CARRY.reported
    new.why_asked = True


def update(earlier: QuestionFrame | None, turn: QuestionFrame, follow_up: bool) -> QuestionFrame:
    """The conversation's frame after this turn: ``turn`` with what it leaves open filled from ``earlier``."""
    if earlier is None:
        return turn.model_copy(update={"devices_proposed": proposes_count(turn)})
    why = asks_why(turn, earlier)
    follow_up = follow_up or refers_back(turn) or why or changes_relative(turn) or bool(CARRY.keeps_values.search(turn.question.lower()))
    new = turn.copy_for_turn()
    models_kept(new, earlier, turn)
    keep_language(new, earlier, turn)
    if howto_follow_up(turn, earlier):
        return on_howto(new, earlier)
    if starts_over(turn, follow_up):
        if names_model(turn) and not turn.unknown_model and not new_topic(turn, follow_up):
            keep_hardware(new, earlier, turn)  # another model on the user's own hardware
        elif defines(turn) and not names_model(turn):
            keep_part(new, earlier)  # "what is tensor parallelism" on the user's 910B cards
        unnamed_gpu(new, earlier, turn)  # "qwen2.5-14b on 4 GPUs" after the user's A100s: those GPUs
        return new
    earlier = bare_count_as_devices(new, earlier, turn, follow_up)
    # what the turn asks of its own, before a relative change ("卡数翻倍呢") drops its count word
    asked_own = asks(turn) or quantity.asked(turn, inputs=False) or SETTING_ASKED.search(turn.question.lower())
    carry(new, earlier, turn)
    proposed_count_left(new, earlier, turn)
    # "卡数翻倍呢": the same question on the changed job (its 卡数 asks no count); a change of devices the conversation
    # never stated is made on the last answer's count (that_many)
    if (changed := relative_change(new, earlier, turn)) or relative_devices(turn.question, 0) is not None:
        # the changed value is the turn's own, as if said outright ("halve the global batch" states a GBS, asks none)
        turn = turn.model_copy(update={"intents": turn.intents - CARRY.asked, **{slot: getattr(new, slot) for slot in changed}})
        new.intents -= {i for i, slots in CARRY.stated_by.items() if changed & set(slots)}
        new.problems = own_problems(new)  # "double the cutoff - does anything change?" changes the job: not out of scope
    carry_intents(new, earlier, turn)
    served_counts(new, turn)
    # ("and with 64 cards?" after "what GA?" asks that figure again on 64: a quantity the earlier turn asked is not judged)
    again = earlier.intents & {"ga", "gbs", "tp", "time", "max_context", "max_batch", "throughput", "capacity", "kv"} or earlier.quantities_carried
    if not asked_own and not again and new.origin("devices") == "said" and (earlier.model or earlier.params_b) and (
            new.devices, new.nodes) != (earlier.devices, earlier.nodes):
        # "what if I only get 4 of those GPUs?" after "write out the ds_config", "and if I add two more (4 total)?" after the
        # host RAM: a count proposed is judged (does the job fit it, and how), not answered with another file for it
        new.intents.discard("config")
        new.verdict_carried = True
    against_earlier(new, earlier, turn)
    kv_changed(new, earlier, turn)
    unnamed_gpu(new, earlier, turn)
    if new.shares_with:  # "could both share one card?" asks that yes/no, not the last turn's quantities again
        new.intents -= (CARRY.asked - {"compare", "support"}) - turn.intents
    if why:
        why_kept(new, earlier)
    return new


def against_earlier(new: QuestionFrame, earlier: QuestionFrame, turn: QuestionFrame) -> None:
    """"what about full fine-tuning - how many extra cards?", "LlamaFactory 那边比这个多几张?": the value the turn changes
    (a compared slot of carry.toml [slots.comparisons]) is sized beside the earlier one, so the difference asked is said;
    so is whether the count changes ("cutoff 拉到 8k，最少卡数会不会涨", "改成 4k 能省卡吗", vocab.effect_asked), and which one
    has more headroom ("和 910B 64G 比，哪个余量多": each one's free memory per device)."""
    effect = effect_asked(turn.question)
    if not (DIFFERENCE_ASKED.search(turn.question.lower()) or HEADROOM_ASKED.search(turn.question) or effect):
        return
    for many, one in CARRY.comparisons.items():
        now, before = getattr(turn, one, None), getattr(earlier, one, None)
        if one == "seq_len" and before is None and effect and (earlier.model or earlier.params_b):
            before = earlier.effective().seq_len  # "cutoff 拉到 8k" after a job sized at the default length: that length
        if not (now and before and now != before) or getattr(new, many, None) or new.changes:
            continue
        if one == "method":
            new.changes = {"method": [before, now]}  # the methods are compared as a change (frame.variants)
        else:
            setattr(new, many, [before, now])
            new.effect_of = (many, effect) if effect else None
            if effect:
                new.intents.add("cards")  # "占用有区别没": the count each value needs is what changes or not (the vendor rows)
        return


def kv_changed(new: QuestionFrame, earlier: QuestionFrame, turn: QuestionFrame) -> None:
    """"--kv-cache-dtype int8 的话 token 容量翻倍吗", "and with fp8 kv, how many more tokens?": a serving follow-up that
    changes the KV cache's precision and asks what it changes is sized at both precisions, the earlier one first
    (frame.changes), so the answer compares them."""
    now, before = turn.kv_cache_dtype, earlier.kv_cache_dtype or "auto"
    if not now or now == before or new.changes or not (earlier.model or earlier.params_b):
        return
    if DIFFERENCE_ASKED.search(turn.question.lower()) or DOUBLES.search(turn.question.lower()) or KV_EFFECT.search(turn.question.lower()):
        new.changes = {"kv_cache_dtype": [before, now]}


def remembered(earlier: QuestionFrame | None, turn: QuestionFrame, follow_up: bool) -> QuestionFrame:
    """What the conversation holds after ``turn``, for the turns after it: a knowledge or troubleshooting detour
    that names no model ("what does ZeRO-3 offload move to the CPU?") leaves the job asked before in place, so
    "ok, and for full fine-tuning of it?" still means that job."""
    from .route import answered_from_notes  # the router's test of a turn the notes alone answer

    frame = compared_kept(turn.with_history(earlier, follow_up), turn)
    if frame.effect_of:  # "cutoff 拉到 8k，会不会涨": compared with the earlier length for this turn; the thread moves on at 8k
        many = frame.effect_of[0]
        frame = frame.model_copy(update={many: [], CARRY.comparisons[many]: getattr(frame, many)[-1], "effect_of": None})
    kept = earlier if earlier is not None and new_topic(turn, follow_up or refers_back(turn)) else frame
    return kept.model_copy(update=howto_kept(frame, answered_from_notes(frame)))


def compared_kept(frame: QuestionFrame, turn: QuestionFrame) -> QuestionFrame:
    """A turn that compared two values of a slot ("那全量微调要多少，是 lora 的几倍"): the conversation holds both
    (carry.toml [slots.comparisons]), so "放在 Snt9B23 上是多少台机器" answers both, not the one said before the comparison."""
    if not (frame.changes and DIFFERENCE_ASKED.search(turn.question.lower())):
        return frame
    name, values = next(iter(frame.changes.items()))
    many = next((m for m, one in CARRY.comparisons.items() if one == name), None)
    return frame.model_copy(update={many: list(values), name: None, "changes": {}}) if many else frame


def sized_job(earlier: QuestionFrame | None, turn: QuestionFrame, follow_up: bool) -> bool:
    """A turn that asked about a job (a model of its own or the conversation's), not a detour to the notes: the turns an
    ordinal referent counts ("the first case", carry.toml [referents])."""
    if names_model(turn):
        return not turn.unknown_model
    return (earlier is not None and names_model(earlier) and not new_topic(turn, follow_up or refers_back(turn))
            and not howto_follow_up(turn, earlier))


def referent(turn: QuestionFrame, jobs: list[QuestionFrame]) -> int | None:
    """The earlier job turn a follow-up refers to when it is not the last one (carry.toml [referents]): the N-th one an
    ordinal names ("the first case", "第二种方案"), or the latest whose frame has a value the turn names again with words
    going back to it ("回到全参那个方案"), or to its task ("切回训练" after a serving turn); None: the last turn, as for any
    follow-up."""
    q = turn.question.lower()
    for n, rx in CARRY.ordinals:
        if rx.search(q):
            return n - 1 if n < len(jobs) else None
    if len(jobs) < 2 or not CARRY.back.search(q):
        return None
    for slot in CARRY.referent_slots:
        if (value := getattr(turn, slot, None)) is None:
            continue
        found = next((k for k in range(len(jobs) - 1, -1, -1) if getattr(jobs[k], slot, None) == value), None)
        if found is not None:
            return found if found < len(jobs) - 1 else None
    # "back to training: LoRA instead?" after a serving detour: the latest job of the task gone back to (its trainer,
    # length and part), not the serving turn's, whose task's slots stayed behind
    task = turn.task()
    if task is not None and jobs[-1].task() not in (None, task):
        found = next((k for k in range(len(jobs) - 1, -1, -1) if jobs[k].task() == task), None)
        if found is not None:
            return found
    return None


def referred(job: QuestionFrame, last: QuestionFrame) -> QuestionFrame:
    """The earlier job turn gone back to, as the conversation to carry: its own frame, with the devices the user said
    they have since (carry.toml [user_hardware]) where it has none of its own."""
    out = job.model_copy(deep=True)
    if last.origin("devices") in USERS or last.origin("nodes") in USERS:
        for name in (*CARRY.hardware_part, *CARRY.hardware_devices):
            if getattr(out, name) in (None, []) and getattr(last, name) not in (None, []):
                setattr(out, name, getattr(last, name))
                out.origins[name] = "conversation"
    return out


# the lead of an earlier answer: "**Answer:** … **32 cards**" / "**结论**：… **32 张卡**" / "= 16 DIE"
LEAD_COUNT = re.compile(r"\*\*(\d{1,5})\s*(?:cards?|GPUs?|DIE|张卡|张 GPU)\*\*|=\s*\*{0,2}(\d{1,5})\s*(?:cards?|GPUs?|DIE|张卡)")


# the header line of an answer about a job: "**qwen2.5-7b** · LoRA · 4096 tokens · Snt9B"
JOB_HEADER = re.compile(r"\*\*[^*\n]+\*\* · ")


def lead_count(answer: str, framework: str | None) -> tuple[int, str] | None:
    """The device count an answer led with, and its unit ("card" or "die")."""
    lines = answer.splitlines()
    lead = next((line for line in lines if line.startswith(("**Answer:**", "**结论**"))), "")
    # a lead giving another quantity ("**Global batch 64** …") over the count the job needs: "**Needed:** … 8 cards"
    needed = next((line for line in lines if line.startswith(("**Needed:**", "**所需**"))), "")
    for line in (lead, needed):
        # a lead with one count per framework ("LLaMA-Factory: 32 cards; MindSpeed-LLM: 16 cards"): the framework asked now
        # (a lead naming the framework only in its source, after the count: "= **32 张卡** …（来自ModelArts LLaMA-Factory 配方表）",
        # has its one count before it)
        at = line.find(framework) if framework else -1
        if m := LEAD_COUNT.search(line, max(at, 0)) or LEAD_COUNT.search(line):
            return int(m.group(1) or m.group(2)), "die" if "DIE" in m.group(0) else "card"
    return None


def relative_devices(question: str, base: int) -> int | None:
    """The device count a relative change makes of ``base`` ("double the cards", "再加 8 张卡"), if the question says one."""
    q = cn_numerals_to_digits(question.lower())
    for rx, op, factor in CARRY.relative.get("devices", []):
        m = rx.search(q)
        amount = amount_word(m.group(1)) if m and op == "add" else factor if m else None
        if amount is not None:
            return int(base + amount if op == "add" else base * amount)
    return None


# the lead of a split answer: "**Answer:** **TP 8 × PP 4** with data parallel 1 …" / "**结论**：**TP 8 × PP 4**，…"
LEAD_SPLIT = re.compile(r"^\*\*(?:Answer:|结论)\*\*[:：]?\s*\*\*TP (\d+) × PP (\d+)\*\*")


# the stage a training answer's lead planned: "ZeRO-2 fits: about 60 GiB", "**选 ZeRO-2**", "(LLaMA-Factory ZeRO-1, 8 GPUs)"
STAGE_IN_ANSWER = re.compile(r"ZeRO-([0-3])(?![0-9])")


def stage_replaced(new: QuestionFrame, earlier: QuestionFrame | None, answers: list[str]) -> None:
    """"would zero3 be better?" after a ZeRO-2 plan: the stage the conversation had (the user's, else the one the last
    answer's lead planned) is the current one the turn's stage replaces, kept in ``current`` so both stages are
    estimated on the devices and compared (asked.stages_offered), not only the new one judged."""
    if new.zero_stage is None or new.origin("zero_stage") != "said" or "zero_stage" in new.current:
        return
    if earlier is not None and earlier.oom_reported:  # the current stage ran out of memory: no estimate says it fits
        return
    before = earlier.zero_stage if earlier is not None else None
    if before is None and answers:
        lines = answers[-1].splitlines()
        lead = next((ln for ln in lines if ln.startswith(("**Answer:**", "**结论**"))), next((ln for ln in lines if ln.strip()), ""))
        m = STAGE_IN_ANSWER.search(lead)
        before = int(m.group(1)) if m else None
    if before is not None and before != new.zero_stage:
        new.current["zero_stage"] = before


def stage_referred(new: QuestionFrame, answers: list[str]) -> None:
    """"用那个 stage, 每卡 model states 多少", "with that stage, how much per card?": the ZeRO stage the last answer's lead
    stated (the recipe's ZeRO-3), as if the user had said it, not the estimator's own choice nor a stage carried from
    before it (carry.toml [that_stage]); a stage the turn states itself wins."""
    if new.origin("zero_stage") == "said" or not answers or not CARRY.that_stage.search(new.question.lower()):
        return
    lines = answers[-1].splitlines()
    lead = next((ln for ln in lines if ln.startswith(("**Answer:**", "**结论**"))), "")
    if m := STAGE_IN_ANSWER.search(lead):
        new.zero_stage = int(m.group(1))
        new.mark("last_answer", "zero_stage")


def solved_kept(new: QuestionFrame, answers: list[str]) -> None:
    """"how much host RAM per node does that need?" after "with TP 8, what PP?" was answered "TP 8 × PP 4": the layout
    is the user's TP with the answer's PP (not PP 1), as if the user had said it; marked as the last answer's."""
    if not answers or not (new.tp or new.pp) or (new.tp and new.pp) or new.origin("tp" if new.tp else "pp") != "conversation":
        return
    m = next((LEAD_SPLIT.match(line) for line in answers[-1].splitlines() if LEAD_SPLIT.match(line)), None)
    if m and (new.tp or int(m.group(1))) == int(m.group(1)) and (new.pp or int(m.group(2))) == int(m.group(2)):
        missing = "pp" if new.tp else "tp"
        new.tp, new.pp = int(m.group(1)), int(m.group(2))
        new.mark("last_answer", missing)


def proposal_kept(new: QuestionFrame, answers: list[str]) -> None:
    """"改成 PP4 呢" after an answer that led with "TP 8 × PP 2": the proposal changes PP and keeps the answer's TP, halved
    while TP × PP does not divide the devices ("TP 8 × PP 4" on 16 cards is TP 4 × PP 4); marked as the last answer's,
    and the answer's split is the one the proposal replaces (compose.proposal_first)."""
    if not answers or not (new.proposed & {"tp", "pp"}) or (new.tp and new.pp) or not (said := new.tp or new.pp):
        return
    text = answers[-1]
    m = next((LEAD_SPLIT.match(line) for line in text.splitlines() if LEAD_SPLIT.match(line)), None) or PLAN_SPLIT.search(text)
    devices = new.effective().devices
    if m is None or not devices:
        return
    tp0, pp0 = int(m.group(1)), int(m.group(2))
    other = "pp" if new.tp else "tp"
    value = pp0 if other == "pp" else tp0
    while value > 1 and (said * value > devices or devices % (said * value)):
        value //= 2
    setattr(new, other, value)
    new.mark("last_answer", other)
    new.current.update({"tp": tp0, "pp": pp0})


# one line of an answer stating a plan with its count and accumulation: "= **16 张卡**，ZeRO-3，micro batch 1，梯度累积 8",
# "**16 cards** (2 nodes × 8), TP 8 × PP 2, micro batch 1, gradient accumulation 8", "= **16 张卡**；…；梯度累积
# gradient_accumulation_steps **8**"
PLAN_COUNT = re.compile(r"\*\*(\d{1,5})\s*(?:cards?|GPUs?|DIE|张卡|张 GPU)\*\*")
PLAN_SPLIT = re.compile(r"TP (\d+) × PP (\d+)")
PLAN_MICRO = re.compile(r"micro batch (\d+)")
PLAN_GA = re.compile(r"(?:梯度累积|gradient accumulation|gradient_accumulation_steps)\s*\**\s*(?:gradient_accumulation_steps\s*)?\**(\d+)")


def plan_global_batch(answer: str) -> int | None:
    """The global batch of the first plan an answer states with both a count and an accumulation (the vendor recipe's
    row, the lead's plan): micro batch (1 when not said, as in every recipe) × devices / (TP × PP) × accumulation."""
    for line in answer.splitlines():
        count, ga = PLAN_COUNT.search(line), PLAN_GA.search(line)
        if not (count and ga) or ga.start() < count.start():
            continue
        split, micro = PLAN_SPLIT.search(line), PLAN_MICRO.search(line)
        devices, per_replica = int(count.group(1)), int(split.group(1)) * int(split.group(2)) if split else 1
        if devices % per_replica:
            continue
        return (int(micro.group(1)) if micro else 1) * devices // per_replica * int(ga.group(1))
    return None


def product_kept(new: QuestionFrame, answers: list[str]) -> None:
    """"我只有 8 张卡，GA 要改成多少才能保持全局 batch 一样" after an answer that planned the job itself: the global batch kept
    (carry.toml [kept_product]) is that answer's plan's when the conversation stated none, so the accumulation asked is
    solved on the changed devices."""
    rx = (CARRY.kept_product or {}).get("global_batch")
    if new.global_batch or not answers or rx is None or not rx.search(new.question.lower()):
        return
    if (value := plan_global_batch(answers[-1])) is not None:
        new.global_batch = value
        new.mark("last_answer", "global_batch")
        kept_asks_accumulation(new)


def count_quoted(new: QuestionFrame, question: str, answers: list[str]) -> None:
    """"那 16 张是几台机器" after an answer that led with 16 cards: the count the turn names is the last answer's, quoted to
    ask it in nodes (compose.nodes_first), not devices the user says they have (no yes/no on them)."""
    q = question.lower()
    if not (new.devices and new.origin("devices") == "said" and NODES_ASKED.search(q)) or CARRY.owns.search(q):
        return
    led = next((c for a in reversed(answers) if (c := lead_count(a, new.framework))), None)
    if led is not None and led[0] == new.devices:
        new.mark("conversation", "devices")


def that_many(new: QuestionFrame, question: str, answers: list[str]) -> None:
    """A count the question refers to ("that many cards"), or one a quantity asked splits ("TP PP 怎么切"), is the
    one the last answer with a count led with (a detour's answer, "what is ZeRO-3", leads with none); so is the base of
    a relative change the conversation's own devices cannot give ("double the cards" after "8 cards" was answered)."""
    said = CARRY.that_many.search(question.lower())
    count_quoted(new, question, answers)
    changed = new.devices is None and any(rx.search(cn_numerals_to_digits(question.lower())) for rx, _, _ in CARRY.relative.get("devices", []))
    on_count = asks(new) & CARRY.on_last_count or asks_host_ram(new)  # carry.toml [on_last_count]
    # a quantity of the layout whose only figure missing is the count ("TP8 PP4 的话 DP 多少" after "32 张卡"): that count's
    on_count = on_count or any(quantity.missing(row, new) == ["devices"] for row in quantity.asked(new, inputs=False))
    # the nodes the user says ("if we only have 2 nodes?") are the count a quantity asked of them is on, not the last answer's
    users_nodes = bool(new.nodes) and new.origin("nodes") == "said" and not (said or changed)
    if new.devices or users_nodes or not (said or changed or on_count) or defines(new) and not new.model or new.why_asked:
        return  # "what is pipeline parallelism?" explains a term, "为什么要 8 张这么多" asks a reason: no count of the last answer
    led = None
    for answer in reversed(answers):
        led = lead_count(answer, new.framework)
        if led or JOB_HEADER.match(answer):
            break  # a job's answer that led with no count ("TP 8 × PP 2 …") ends the search; a detour's answer is skipped
    if led is None:
        return
    new.devices, new.device_unit = led
    new.bare_count = None
    if changed and (count := relative_devices(question, led[0])):  # "twice that many": the count the last answer led with, changed
        new.devices, new.nodes = count, None
        new.mark("said", "devices")  # "double the cards": the changed count is the user's now
        new.mark("conversation", "device_unit")
        return
    # "that many cards" adopts the count; a split asked of it ("TP PP 怎么设") does not make it the user's cards
    new.mark("conversation" if said else "last_answer", "devices", "device_unit")


# the setting a plan line states: "ZeRO-2 + offload", "ZeRO-3-Offload", "ZeRO-2，开启 offload", "ZeRO-1"
PLAN_STAGE = re.compile(r"ZeRO-([0-3])(?![0-9])(\s*\+\s*(?:CPU\s+)?offload|-Offload|[（(，,]\s*(?:with offload|开启 offload))?", re.I)


# the settings that make a job another one: a plan said for one of them is not the plan of the other
JOB_SLOTS = ("model", "method", "seq_len", "hardware", "framework")


def plan_adopted(new: QuestionFrame, earlier: QuestionFrame | None, answers: list[str]) -> None:
    """"write out the ds_config for that choice", "给我对应的 ds 配置" after an answer that planned the job: the file is for that
    plan, so its DeepSpeed stage and offload (the "Needed" line's, else the lead's) are the conversation's when the turns
    stated neither; a stage the user said keeps, with the offload the plan put beside that same stage (also when a count
    is proposed for it). A turn that changes the job ("4096 呢" after the 8192 row's ZeRO-2-Offload) plans it afresh."""
    if earlier is not None and any(getattr(new, slot) != getattr(earlier, slot) for slot in JOB_SLOTS):
        return
    # (a count proposed of a stage the user chose, "what if I only get 4 of those GPUs?": that stage with the plan's offload)
    users_stage = new.verdict_carried and new.zero_stage is not None and new.origin("zero_stage") in USERS and new.offload is None
    if not ("config" in new.intents or users_stage) or not answers or new.framework == "MindSpeed-LLM" \
            or new.origin("zero_stage") == "said" and new.origin("offload") == "said":
        return
    lines = answers[-1].splitlines()
    plan = [ln for ln in lines if ln.startswith(("**Needed:**", "**所需**"))] + [ln for ln in lines if ln.startswith(("**Answer:**", "**结论**"))]
    for line in plan:
        m = PLAN_STAGE.search(line)
        if m is None or "without offload" in line[m.end():m.end() + 20] or "不开" in line[m.end():m.end() + 6]:
            continue
        stage, offload = int(m.group(1)), bool(m.group(2))
        if new.zero_stage is not None and new.zero_stage != stage:
            return  # the user's own stage: the plan's offload was for another one
        if new.zero_stage is None:
            if new.origin("devices") in USERS:
                return  # the user's own devices: the config plans within them (route.config_calls), not the plan said for more
            new.zero_stage = stage
            new.mark("last_answer", "zero_stage")
        if new.offload is None and offload:
            new.offload = True
            new.mark("last_answer", "offload")
        return


BATCH_SLOTS = ("grad_accum", "micro_batch")


def batch_changed(new: QuestionFrame, earlier: QuestionFrame | None, answers: list[str]) -> None:
    """"梯度累积改成 16 会怎样", "per device batch 改成 4 显存会涨多少" after a plan: the accumulation or micro batch the turn
    states replaces the conversation's (the user's earlier value, else the one the last answer's plan stated), kept in
    ``current`` so the answer leads with what the change does (compose.batch_change_first)."""
    if earlier is None or not answers or new.changes:
        return
    for name in BATCH_SLOTS:
        now = getattr(new, name)
        if now is None or new.origin(name) != "said" or name in new.current:
            continue
        before = getattr(earlier, name)
        if before is None:
            for line in answers[-1].splitlines():  # the plan the last answer stated (its count and accumulation)
                count, ga = PLAN_COUNT.search(line), PLAN_GA.search(line)
                if count and ga and ga.start() > count.start():
                    micro, split = PLAN_MICRO.search(line), PLAN_SPLIT.search(line)
                    before = int(ga.group(1)) if name == "grad_accum" else int(micro.group(1)) if micro else 1
                    # the plan's devices and model-parallel size: the data parallelism of the change when nothing fits after it
                    new.current["batch_plan"] = (int(count.group(1)), int(split.group(1)) * int(split.group(2)) if split else 1)
                    break
        if before is not None and before != now:
            new.current[name] = before
