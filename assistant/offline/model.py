"""The offline planner as a LangChain chat model: it reads the conversation, emits tool calls
deterministically, and once the results are in, writes the answer from them. The agent loop is the
same one an LLM runs in; only the model differs."""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterator, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict, PrivateAttr

from ..notes import covering, load_notes, note_topics, outside_scope, subject_notes
from ..setup_check.text import blocks
from . import proposal, quantity, spec, subquestions
from .compose import compose
from .conversation import (
    batch_changed,
    language_only,
    plan_adopted,
    product_kept,
    proposal_kept,
    referent,
    referred,
    remembered,
    sized_job,
    solved_kept,
    stage_referred,
    stage_replaced,
    that_many,
)
from .parse import FOLLOW_UP, Parser, Slots
from .route import PRODUCES, Done, Router, note_query
from .script import Script
from .setup_answer import ASKS_MEANING, is_pasted_setup, setup_reply, unreadable_paste, without_setup_turn

HISTORY_TURNS = 8  # earlier user turns read for follow-ups
MAX_ROUNDS = 2


def message_text(msg: BaseMessage) -> str:
    content = msg.content
    if isinstance(content, str):
        return content
    return " ".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content)


# the note an answer's lead was quoted from: "(notes: Calling an online service …)", "（笔记：《通过公网访问通道调用在线服务》）"
# (the history's text reaches the planner with its full-width punctuation made ASCII: compared in NFKC)
NOTE_QUOTED = re.compile(r"\(notes: ([^()\n]+(?:\([^()\n]*\)[^()\n]*)*)\)|\(笔记:\s*《([^》\n]+)》\)")


def note_quoted(answer: str, topics: dict[str, Any]) -> str | None:
    """The note file whose title the answer's first "(notes: …)" names, if any."""
    m = NOTE_QUOTED.search(unicodedata.normalize("NFKC", answer))
    if not m:
        return None
    title = (m.group(1) or m.group(2)).strip()
    return next((file for file, topic in topics.items() if title in unicodedata.normalize("NFKC", topic.titles)), None)


def is_follow_up(text: str) -> bool:
    """'and with 8k?', '用MindSpeed呢？', 'what about qwen2-7b': short or explicitly continuing."""
    words = re.findall(r"[A-Za-z0-9.\-]+|[\u4e00-\u9fff]", text)
    return bool(FOLLOW_UP.search(text.lower())) or len(words) <= 6


class OfflinePlanner(BaseChatModel):
    """Deterministic planner over the tool registry. ``ctx`` gives the catalog for name resolution."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    ctx: Any
    tool_fields: dict[str, set[str]] = {}
    _parser: Parser | None = PrivateAttr(default=None)
    _script: Script | None = PrivateAttr(default=None)
    _fields_cache: dict[tuple[int, ...], dict[str, set[str]]] = PrivateAttr(default_factory=dict)

    @property
    def _llm_type(self) -> str:
        return "offline-planner"

    @property
    def script(self) -> Script:
        if self._script is None:
            self._script = Script()
        return self._script

    @property
    def parser(self) -> Parser:
        if self._parser is None:
            sections = load_notes(self.ctx.settings.knowledge_dir / "notes")
            self._parser = Parser(self.ctx.resolver, self.ctx.kb.models(), note_topics(sections))
        return self._parser

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> OfflinePlanner:
        """The planner only calls the tools it is given, with the arguments their schemas accept."""
        key = tuple(id(t) for t in tools)  # the agent binds the same tools before every model call
        fields = self._fields_cache.get(key)
        if fields is None:
            fields = {}
            for t in tools:
                fn = convert_to_openai_tool(t)["function"]
                fields[fn["name"]] = set((fn.get("parameters") or {}).get("properties", {}))
            if len(self._fields_cache) > 8:  # tools rebuilt elsewhere: keep the cache small
                self._fields_cache.clear()
            self._fields_cache[key] = fields
        bound = self.model_copy(update={"tool_fields": fields})
        bound._fields_cache = self._fields_cache
        bound._parser = self.parser
        bound._script = self.script
        return bound

    # -- reading the conversation --------------------------------------------------------------
    def slots(self, messages: list[BaseMessage]) -> tuple[Slots, list[BaseMessage]]:
        """Slots of the last user turn (with earlier user turns filling the gaps) and the messages after it."""
        humans = [i for i, m in enumerate(messages) if isinstance(m, HumanMessage)]
        if not humans:
            return self.parser.parse(""), []
        last = humans[-1]
        text = message_text(messages[last])
        if len(humans) > 1 and (lang := language_only(self.parser.parse(text))):
            # "英文回答一下": the turn before asked again, as it was read then (its count from the answer before it too),
            # answered in the language asked
            frame, _ = self.slots(messages[:humans[-2] + 1])
            frame.lang = lang
            return frame, messages[last + 1:]
        earlier = None
        jobs: list[tuple[Slots, int]] = []  # the conversation after each earlier turn that asked about a job, and that turn
        for i in humans[:-1][-HISTORY_TURNS:]:
            text = message_text(messages[i])
            turn = self.sibling(self.parser.parse(text) if not is_pasted_setup(text) else self.pasted(text), earlier, text)
            sized = sized_job(earlier, turn, is_follow_up(text))
            before, earlier = earlier, remembered(earlier, turn, is_follow_up(text))
            if before is not None and turn.proposed & proposal.LAYOUT:
                # a split proposed and refused by the layout rules ("TP4 PP1 行不行": not with 2 KV heads) is not the job
                # the turns after it ask about: the split before it stays
                probe = earlier.model_copy(deep=True)
                self.parser.check_layout(probe)
                if probe.layout_refused:
                    earlier = earlier.model_copy(update={"tp": before.tp, "pp": before.pp})
            if sized:
                jobs.append((earlier, i))
        text = message_text(messages[last])
        turn = self.sibling(self.parser.parse(text), earlier, text)
        answers = [m for m in messages[:last] if isinstance(m, AIMessage) and not m.tool_calls]
        follow_up = is_follow_up(text)
        if earlier is not None and (k := referent(turn, [job for job, _ in jobs])) is not None:
            # "the first case", "回到全参那个方案": that turn's job and its answer, not the last ones
            gone_back, at = jobs[k]
            earlier, follow_up = referred(gone_back, earlier), True
            upto = next((n for n in humans if n > at), last)
            answers = [m for m in messages[at:upto] if isinstance(m, AIMessage) and not m.tool_calls]
        frame = turn.with_history(earlier, follow_up)
        proposal_kept(frame, [message_text(a) for a in answers[-1:]])  # "改成 PP4 呢": the last answer's TP kept beside it
        stage_replaced(frame, earlier, [message_text(a) for a in answers[-1:]])  # "zero3 会更好吗" after a ZeRO-2 plan
        stage_referred(frame, [message_text(a) for a in answers[-1:]])  # "用那个 stage": the stage the last answer stated
        if earlier is not None:
            self.parser.check_layout(frame)  # the turn's TP / PP on the devices said before
        if frame.howto_before and answers:  # a follow-up of a how-to topic: the note the last answer quoted
            frame.topic_note = note_quoted(message_text(answers[-1]), self.parser.note_topics or {})
            frame.topic_said = unicodedata.normalize("NFKC", message_text(answers[-1]).split("\n\n", 1)[0])
        that_many(frame, text, [message_text(a) for a in answers[-HISTORY_TURNS:]])
        solved_kept(frame, [message_text(a) for a in answers[-1:]])
        product_kept(frame, [message_text(a) for a in answers[-1:]])
        batch_changed(frame, earlier, [message_text(a) for a in answers[-1:]])  # "GA 改成 16 会怎样": the value it replaces
        plan_adopted(frame, earlier, [message_text(a) for a in answers[-1:]])  # "the ds_config for that choice": the plan said
        return frame, messages[last + 1:]

    def sibling(self, turn: Slots, earlier: Slots | None, text: str) -> Slots:
        """A follow-up naming a size and no model ("and the 14b one?", "换成 14b 的呢") asks about the conversation's model at
        that size when the catalog has it (qwen2.5-7b, then 14b: qwen2.5-14b); otherwise a model of that size."""
        if (earlier is None or not earlier.model or turn.model or turn.unknown_model or not turn.params_b or turn.shape_only
                or not is_follow_up(text)):
            return turn
        if member := self.parser.names.sibling(earlier.model, turn.params_b):
            # "那 8192 呢？32b 在 8192 下又是多少": a first part that names no model asks of the conversation's model; the
            # size asked after it is a second model, each answered
            at = next((sp.start for sp in turn.spans if sp.slot == "params_b"), None)
            first = subquestions.asked_apart(text)
            if first and at is not None and member != earlier.model and subquestions.apart(text, [first[0].start, at]):
                turn.models = [earlier.model, member]
            turn.model, turn.model_text, turn.params_b = member, member, None
            turn.same_shape = self.parser.names.same_shape(member)
        return turn

    def pasted(self, text: str) -> Slots:
        """An earlier turn that pasted a setup, as the job it states: the check asked of it ("这个 yaml 能跑吗") asks
        for no config file, so "那我改成 lora 呢" asks about the changed job, not for a YAML nobody requested."""
        s, words = self.parser.parse(text), blocks(text)[1]
        # what the turn asks is in its words; the pasted keys ("deepspeed: ds_z2", "model_name_or_path") ask nothing
        s.intents = (s.intents & {"train", "inference"}) | self.parser.parse(words).intents
        if not PRODUCES.search(words.lower()):
            s.intents.discard("config")
        return s

    @staticmethod
    def done_calls(after: list[BaseMessage]) -> tuple[list[Done], int]:
        results = {m.tool_call_id: m for m in after if isinstance(m, ToolMessage)}
        done, rounds = [], 0
        for m in after:
            if isinstance(m, AIMessage) and m.tool_calls:
                rounds += 1
                for tc in m.tool_calls:
                    tm = results.get(tc["id"] or "")
                    if tm is not None:
                        done.append(Done(tc["name"], tc["args"], tool_result(tm)))
        return done, rounds

    def prose_args(self, prose: str) -> dict[str, Any]:
        """What the words around a pasted setup state, as check_setup arguments: model (or size), part, devices."""
        s = self.parser.parse(prose)
        devices = s.effective().devices if (s.devices or s.nodes) else None
        said = {"model": s.model, "params_b": None if s.model else s.params_b, "hardware": s.hardware, "devices": devices,
                # a quantity of quantities.toml asked of the figures ("MBS=1, GA=32, DP=4: tokens per step?"): no setup to check
                "quantity": bool(quantity.asked(s)),
                # a layout said in words ("pp=5 for a model with 40 layers", "TP=4, PP=3 跑在 16 张卡上"): the reader's
                # layout rules answer it when the setup check reads no setup in it
                "layout": s.pp is not None or spec.value_of(s, "layers") is not None}
        return {k: v for k, v in said.items() if v}

    def respond(self, messages: list[BaseMessage]) -> AIMessage:
        """The next message: tool calls, or the answer. A question in traditional characters is read in simplified
        ones (the reader's vocabulary) and answered in traditional ones."""
        humans = [m for m in messages if isinstance(m, HumanMessage)]
        traditional = self.script.writes_traditional([message_text(m) for m in humans])
        reply = self.plan(self.script.read_simplified(messages))
        if traditional and not reply.tool_calls:
            reply = AIMessage(content=self.script.traditional(message_text(reply)))
        return reply

    def plan(self, messages: list[BaseMessage]) -> AIMessage:
        if (reply := setup_reply(messages, self.tool_fields, self.prose_args)) is not None:  # a pasted setup
            return reply
        s, after = self.slots(messages)
        if (text := last_human_text(messages)) and is_pasted_setup(text) and ASKS_MEANING.search(blocks(text)[1]):
            # the reader takes a pasted setup over to say what its keys do: the words ask, the keys' names ask nothing
            # ("pin_memory" is no memory question, "device" no count)
            s.intents = (s.intents & {"train", "inference"}) | self.parser.parse(blocks(text)[1]).intents
        unreadable = unreadable_paste(messages)  # a malformed paste is said before the reader's answer to the words
        after = without_setup_turn(after)  # a paste check_setup could not read: the reader answers it
        if self.parser.note_topics is not None:  # the notes' topics, named in the question or in the words it maps to
            # (and the notes the turn names by a procedure, or the how-to topic a follow-up goes on about: on_howto)
            s.notes_cover = covering(f"{s.question} {note_query(s)}".lower(), self.parser.note_topics) | (s.notes_named or set())
            s.out_of_scope = outside_scope(s.question, self.parser.note_topics)
            s.subject_notes = subject_notes(s.question, self.parser.note_topics)
        done, rounds = self.done_calls(after)
        router = Router(self.tool_fields)
        calls = (router.first(s) if rounds == 0 else router.more(s, done) if rounds < MAX_ROUNDS else
                 router.last(s, done) if rounds == MAX_ROUNDS else [])
        if calls:
            return AIMessage(content="", tool_calls=[
                {"name": c.name, "args": c.args, "id": f"offline-{rounds + 1}-{i}-{c.name}", "type": "tool_call"}
                for i, c in enumerate(calls)
            ])
        answer = compose(s, done, self.ctx.kb.hardware())
        return AIMessage(content=f"{unreadable}\n\n{answer}" if unreadable else answer)

    # -- LangChain entry points ----------------------------------------------------------------
    def _generate(self, messages: list[BaseMessage], stop=None, run_manager=None, **kwargs: Any) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self.respond(messages))])

    def _stream(self, messages: list[BaseMessage], stop=None, run_manager=None, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        """Tool calls in one chunk; the answer line by line so chat front ends can render as it comes."""
        msg = self.respond(messages)
        if msg.tool_calls:
            yield ChatGenerationChunk(message=AIMessageChunk(content="", tool_call_chunks=[
                {"name": tc["name"], "args": json.dumps(tc["args"], ensure_ascii=False), "id": tc["id"], "index": i}
                for i, tc in enumerate(msg.tool_calls)
            ]))
            return
        for piece in re.findall(r"[^\n]*\n|[^\n]+$", message_text(msg)):
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=piece))
            if run_manager:
                run_manager.on_llm_new_token(piece, chunk=chunk)
            yield chunk


def last_human_text(messages: list[BaseMessage]) -> str:
    humans = [m for m in messages if isinstance(m, HumanMessage)]
    return message_text(humans[-1]) if humans else ""


def tool_result(msg: ToolMessage) -> dict[str, Any]:
    """The JSON result of a tool call: the artifact our adapter attaches, else the parsed content."""
    if isinstance(msg.artifact, dict):
        return msg.artifact
    try:
        out = json.loads(message_text(msg))
        return out if isinstance(out, dict) else {"value": out}
    except (ValueError, TypeError):
        return {"error": {"code": "tool_failed", "message": message_text(msg)[:500]}}
