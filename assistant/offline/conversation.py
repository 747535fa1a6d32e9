"""The conversation as a frame: the last turn's frame updated by the new one. A follow-up changes what
it names and keeps the rest; a new topic (another model, a troubleshooting question) starts a new
frame; a device limit persists until the user changes it."""

from __future__ import annotations

import re

from . import checks, spec
from .frame import QuestionFrame

ONE_OF = {"hardwares": "hardware", "frameworks": "framework", "methods": "method"}  # a comparison and its one value
FOLLOWS_HARDWARE = {"node_size", "dies_per_card"}  # the default part's value gives way to the conversation's part
SIZING = {"cards", "zero", "ga", "memory", "config", "inference", "time", "tp", "capacity", "kv"}


def new_topic(s: QuestionFrame, follow_up: bool) -> bool:
    """A troubleshooting or how-to question that names no model and asks no sizing ("BF16 vs FP16,
    which one?") after a sizing answer: a new topic, so the earlier model is not carried into it."""
    stated = any(spec.value_of(s, name) is not None for name in spec.BY_NAME)  # "lora rank goes to 128": a setting of the job
    return (not follow_up and not (s.model or s.params_b or s.devices or s.nodes or stated)
            and bool(s.intents & {"troubleshoot", "compare"} or s.notes_cover) and not s.intents & SIZING)


def names_model(s: QuestionFrame) -> bool:
    return bool(s.model or s.unknown_model or s.params_b)


def starts_over(new: QuestionFrame, follow_up: bool) -> bool:
    """Another model without "what about…", a new topic, or an unknown model: nothing is carried."""
    return (names_model(new) and not follow_up) or new_topic(new, follow_up) or bool(new.unknown_model and follow_up)


def keep_language(new: QuestionFrame, earlier: QuestionFrame, turn: QuestionFrame) -> None:
    """"16呢" is too short to tell its language: the conversation's holds (and its problems are said in it)."""
    if turn.lang_weak:
        new.lang = earlier.lang
    if turn.problems and new.lang != turn.lang:
        new.problems = checks.problems(turn.question.lower(), new.lang)


def bare_count_as_devices(new: QuestionFrame, earlier: QuestionFrame, turn: QuestionFrame, follow_up: bool) -> QuestionFrame:
    """"and with 16?" after a sizing answer: the same job on 16 devices, counted as before (and no
    longer on the earlier nodes). Returns the earlier frame to carry from."""
    if (new.devices is None and new.nodes is None and turn.bare_count and follow_up
            and (earlier.model or earlier.params_b) and not (turn.model or turn.params_b)):
        new.devices, new.device_unit, new.nodes = turn.bare_count, earlier.device_unit, None
        new.mark("said", "devices")
        new.mark("conversation", "device_unit")
        return earlier.model_copy(update={"nodes": None})
    return earlier


def carry(new: QuestionFrame, earlier: QuestionFrame, turn: QuestionFrame) -> None:
    """Every value this turn leaves open, from the conversation (marked so); a turn naming a model
    keeps its own model slots, and one asking which model fits ("what model fits on one A100?",
    "最大能跑多大的模型") asks for a model, so the earlier one is not carried into it."""
    own_model = names_model(turn) or "largest_model" in turn.intents
    switched = turn.task() is not None and earlier.task() not in (None, turn.task())
    left_behind = set(QuestionFrame.TASK_SLOTS.get(earlier.task() or "", ())) if switched else set()
    for name in QuestionFrame.CARRIED:
        if name not in QuestionFrame.model_fields:
            continue  # a specification slot without an attribute: carried in ``settings`` below
        if name in QuestionFrame.MODEL_SLOTS and own_model:
            continue
        if name in left_behind:
            continue  # the earlier task's settings do not apply to the new one
        if name in ONE_OF and getattr(turn, ONE_OF[name]):
            continue  # "on H100 then?" after "A100 vs 910B": one part now, no longer the comparison
        value = getattr(earlier, name)
        open_here = getattr(new, name) in (None, []) or new.origins.get(name) == "default" and name in FOLLOWS_HARDWARE
        if value is not None and open_here and value != []:
            setattr(new, name, value)
            new.origins[name] = "read_as" if earlier.origins.get(name) == "read_as" else "conversation"
    for name, value in earlier.settings.items():  # the specification's settings, carried by their declared task
        if name not in new.settings and (not switched or spec.BY_NAME[name].task != earlier.task()):
            new.settings[name] = value
            new.origins[name] = "conversation"
    new.hardware_guessed = turn.hardware_guessed if turn.hardware else earlier.hardware_guessed
    if new.hardware_guessed:
        new.mark("default", "hardware")


def carry_intents(new: QuestionFrame, earlier: QuestionFrame, turn: QuestionFrame) -> None:
    """"give me the yaml" keeps the model but asks something new; "and with 8k?" asks the same thing again."""
    if not turn.intents - {"estimate", "support"}:
        new.intents |= earlier.intents
    if turn.task() == "serving" and earlier.task() == "training":
        new.intents -= {"train", "cards", "zero", "ga", "config"} - turn.intents
    new.on_topic = new.on_topic or earlier.on_topic


def update(earlier: QuestionFrame | None, turn: QuestionFrame, follow_up: bool) -> QuestionFrame:
    """The conversation's frame after this turn: ``turn`` with what it leaves open filled from ``earlier``."""
    if earlier is None:
        return turn
    new = turn.copy_for_turn()
    keep_language(new, earlier, turn)
    if starts_over(turn, follow_up):
        return new
    earlier = bare_count_as_devices(new, earlier, turn, follow_up)
    carry(new, earlier, turn)
    carry_intents(new, earlier, turn)
    return new


# "that many cards", "those cards", "那么多卡": the count the last answer led with, not one the user typed
THAT_MANY = re.compile(r"that\s+many|those\s+(?:\d+\s+)?(?:cards?|gpus?|npus?|devices?|dies?)|the\s+same\s+(?:cards?|gpus?|npus?)|"
                       r"那么多|这么多|那些卡|这些卡|这么多卡|那个卡数|这个卡数")
# the lead of an earlier answer: "**Answer:** … **32 cards**" / "**结论**：… **32 张卡**" / "= 16 DIE"
LEAD_COUNT = re.compile(r"\*\*(\d{1,5})\s*(?:cards?|GPUs?|DIE|张卡|张 GPU)\*\*|=\s*\*{0,2}(\d{1,5})\s*(?:cards?|GPUs?|DIE|张卡)")


def that_many(new: QuestionFrame, question: str, last_answer: str | None) -> None:
    """A count the question refers to ("that many cards") is the one the last answer led with."""
    if new.devices or not last_answer or not THAT_MANY.search(question.lower()):
        return
    lead = next((line for line in last_answer.splitlines() if line.startswith(("**Answer:**", "**结论**"))), "")
    m = LEAD_COUNT.search(lead)
    if m:
        new.devices = int(m.group(1) or m.group(2))
        new.device_unit = "die" if "DIE" in m.group(0) else "card"
        new.bare_count = None
        new.mark("conversation", "devices", "device_unit")
