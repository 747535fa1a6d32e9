"""The agent: LangChain's ``create_agent`` loop over the tool registry. The chat model is chosen by
settings (``SIZING_LLM`` / ``--llm``): the offline planner (default), any ``init_chat_model``
provider string, or an OpenAI-compatible endpoint (``SIZING_LLM_BASE_URL`` + ``SIZING_LLM_API_KEY``).

Front ends use ``Assistant`` only; they never see LangChain types.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Iterator
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import StructuredTool

from .answer import AgentEvent, Answer, ChatTurn, GeneratedFile, ToolCallRecord
from .errors import SizingError
from .llm import grounding
from .llm.guard import Limits, LLMGaveUp, ProtocolGuard, StreamWatch, TurnBudget
from .llm.protocol import reply_problem
from .llm.schemas import compact_description, llm_schema, tool_use_lines
from .offline import OfflinePlanner
from .offline.model import message_text, tool_result
from .offline.parse import clean_text
from .setup_check.text import cut_log
from .tools import REGISTRY
from .tools.registry import Registry, is_error

log = logging.getLogger(__name__)

OFFLINE = "offline"
HISTORY_TURNS = 20
CJK = re.compile(r"[\u4e00-\u9fff]")
OFFLINE_RECURSION_LIMIT = 12  # graph steps; a tool round is two steps


class LLMUnavailable(SizingError):
    """The configured chat model cannot be built or reached. The message is one line for the user."""

    def __init__(self, message: str):
        super().__init__("llm_unavailable", message, status=503)


# ---------------------------------------------------------------- tools
def langchain_tools(registry: Registry, ctx, compact_from: Any = None) -> list[StructuredTool]:
    """The registry's tools as LangChain tools: same names, descriptions and JSON schemas. Arguments
    go to the registry unvalidated by LangChain, so bad input comes back in the registry's one
    error shape; the JSON result is the content the model sees and the artifact we record.
    ``compact_from`` (the prompts folder) gives the compact descriptions and schemas an LLM sees
    (``llm/schemas.py``); the arguments accepted stay the same."""
    when, hidden = tool_use_lines(compact_from) if compact_from is not None else ({}, set())

    def runner(name: str):
        def run(**kwargs: Any) -> tuple[str, dict[str, Any]]:
            result = registry.call_json(name, kwargs, ctx)
            return json.dumps(result, ensure_ascii=False), result

        return run

    def function_schema(schema: dict[str, Any]) -> dict[str, Any]:
        # LLM function calling (OpenAI and others) wants a plain object at the root: the "model or
        # params_b" anyOf stays in the MCP and REST schemas; the model's description says it.
        return {k: v for k, v in schema.items() if k != "anyOf"}

    return [
        StructuredTool.from_function(
            func=runner(t.name), name=t.name, response_format="content_and_artifact",
            description=compact_description(t.description, when.get(t.name)) if compact_from is not None else t.description,
            args_schema=llm_schema(function_schema(t.input_schema()), hidden) if compact_from is not None
            else function_schema(t.input_schema()))
        for t in registry
    ]


# ---------------------------------------------------------------- chat models
def chat_model(spec: str, settings):
    """Build the chat model for ``spec`` or raise LLMUnavailable with a one-line reason."""
    from langchain.chat_models import init_chat_model

    base_url = settings.llm_base_url
    if ":" not in spec and base_url:
        spec = f"openai:{spec}"  # a bare model name on an OpenAI-compatible endpoint (vLLM)
    kwargs = request_limits(spec, settings)
    if base_url:
        kwargs["base_url"] = base_url
    if settings.llm_api_key:
        kwargs["api_key"] = settings.llm_api_key.get_secret_value()
    elif base_url and spec.startswith("openai:"):
        kwargs["api_key"] = "EMPTY"  # vLLM and most self-hosted OpenAI-compatible endpoints accept any key
    try:
        return init_chat_model(spec, **kwargs)
    except ImportError as e:
        raise LLMUnavailable(f"LLM {spec!r} needs a provider package that is not installed ({e.name or e}); "
                             f"pip install the langchain integration for it, or use --llm offline.") from None
    except Exception as e:  # noqa: BLE001 - providers raise their own types; the user needs one line
        raise LLMUnavailable(f"LLM {spec!r} cannot be used: {describe_llm_error(e)}") from None


def request_limits(spec: str, settings) -> dict[str, Any]:
    """Bounds on every request: no retry (the budget decides, not a retry), a connect timeout for a dead
    endpoint, a read timeout for a stalled one, max_tokens; OpenAI-compatible replies are streamed so
    a stall is seen between pieces and a runaway reply can be stopped (llm/guard.StreamWatch)."""
    provider = spec.split(":", 1)[0]
    kwargs: dict[str, Any] = {"max_retries": 0}
    if provider == "openai":
        import httpx

        kwargs |= {"timeout": httpx.Timeout(settings.llm_timeout_s, connect=settings.llm_connect_timeout_s),
                   "streaming": True, "max_tokens": settings.llm_max_tokens}
        if settings.llm_base_url:  # llama.cpp and older vLLM read max_tokens; langchain-openai sends max_completion_tokens
            kwargs["extra_body"] = {"max_tokens": settings.llm_max_tokens}
    elif provider == "anthropic":
        kwargs |= {"timeout": settings.llm_timeout_s, "max_tokens": settings.llm_max_tokens, "streaming": True}
    elif provider == "ollama":
        kwargs = {"num_predict": settings.llm_max_tokens, "client_kwargs": {"timeout": settings.llm_timeout_s}}
    else:
        kwargs["timeout"] = settings.llm_timeout_s
    return kwargs


def describe_llm_error(e: BaseException) -> str:
    """One line for the usual failures: missing key, endpoint down, timeout, rejected key, bad model."""
    if isinstance(e, LLMGaveUp):
        return f"{e}."
    name = type(e).__name__
    text = str(e).strip().splitlines()[0] if str(e).strip() else name
    low = text.lower()
    if "api_key" in low or "missing credentials" in low or "api key" in low:
        return "missing API key (set SIZING_LLM_API_KEY or the provider's own variable)."
    if name in ("APIConnectionError", "ConnectError", "ConnectionError") or "connection" in low:
        return f"cannot reach the endpoint ({text})."
    if "timeout" in name.lower() or "timed out" in low:
        return "the endpoint timed out."
    if name == "AuthenticationError" or "401" in low:
        return "the endpoint rejected the API key."
    if name == "NotFoundError" or "404" in low:
        return f"the endpoint does not know this model ({text})."
    if "no generations found" in low or name in ("JSONDecodeError", "APIResponseValidationError"):
        return "the endpoint's reply is not an OpenAI-compatible chat completion (no JSON or SSE data)."
    if name == "GraphRecursionError":
        return "the model kept calling tools without finishing."
    return f"{name}: {text}"[:300]


# ---------------------------------------------------------------- the assistant
class Assistant:
    """Answers questions with the tools. Build once and reuse: the agent graph is built here."""

    def __init__(self, ctx, llm: str | BaseChatModel | None = None, budget_s: float | None = None):
        """``llm``: None (settings), "offline", a provider string, or a ready LangChain chat model.
        ``budget_s``: a cap on the LLM's time per answer below ``llm_budget_s`` (REST /v1/ask keeps its
        answer inside the request's time limit with it)."""
        self.ctx = ctx
        self.settings = ctx.settings
        self.tools = langchain_tools(REGISTRY, ctx)
        self.llm_tools = langchain_tools(REGISTRY, ctx, compact_from=self.settings.prompts_dir)
        self.system_prompt = (self.settings.prompts_dir / "system.md").read_text(encoding="utf-8")
        self.budget_s = min(self.settings.llm_budget_s, budget_s or self.settings.llm_budget_s)
        # devices and DIE per node of the catalog's hardware: a node count the LLM works out from a device count is grounded
        self.per_node = sorted({int(n) for h in ctx.kb.hardware() for n in (h.get("devices_per_node"),
                                (h.get("devices_per_node") or 0) * (h.get("dies_per_card") or 1)) if n})
        self._offline: Any = None  # the offline agent graph, built on first use (or by warm_up)
        self._planner: OfflinePlanner | None = None
        self.startup_notice: str | None = None
        if isinstance(llm, BaseChatModel):
            self.model_name = getattr(llm, "model_name", None) or getattr(llm, "model", None) or type(llm).__name__
            self._agent = self.llm_agent(llm)
            return
        requested = (llm or self.settings.llm or OFFLINE).strip()
        if requested == OFFLINE:
            self.model_name, self._agent = OFFLINE, self.offline_agent()
            return
        try:
            model = chat_model(requested, self.settings)
        except LLMUnavailable as e:
            if not self.settings.llm_fallback:
                raise
            self.startup_notice = f"{e.message} Answered by the offline planner."
            self.model_name, self._agent = OFFLINE, self.offline_agent()
            return
        self.model_name = requested
        self._agent = self.llm_agent(model)

    def llm_agent(self, model: BaseChatModel):
        s = self.settings
        timeouts = (s.llm_timeout_s, s.llm_connect_timeout_s) if getattr(model, "_llm_type", "") == "openai-chat" else None
        guard = ProtocolGuard([t.name for t in self.llm_tools],
                              Limits(s.llm_max_steps, s.llm_max_corrections, s.llm_max_reply_chars, timeouts))
        return create_agent(model, self.llm_tools, system_prompt=self.system_prompt, middleware=[guard],
                            context_schema=TurnBudget)

    def offline_agent(self):
        if self._offline is None:
            self._planner = OfflinePlanner(ctx=self.ctx)
            self._offline = create_agent(self._planner, self.tools, system_prompt=self.system_prompt)
        return self._offline

    def warm_up(self) -> None:
        """Builds the offline planner and its reader now (the notes' index, the catalog's names: a second or more on a
        busy machine), so an LLM that runs out of its budget is replaced at once, inside the request's time limit."""
        if self.model_name == OFFLINE or self.settings.llm_fallback:
            self.offline_agent()
            if self._planner is not None:
                _ = self._planner.parser, self._planner.script

    # -- input ---------------------------------------------------------------------------------
    def prepare(self, question: str, history: list[ChatTurn] | None) -> tuple[list[BaseMessage], str | None]:
        """Messages for the agent; control characters dropped, oversized input cut (with a notice)."""
        limit = self.settings.max_question_chars
        notice = None
        text = question or ""
        if len(text) > limit:
            kept, log_notice = cut_log(text)  # a pasted log: the lines that name memory, an error or a setting
            if log_notice and len(kept) <= limit:
                text, notice = kept, log_notice
            else:
                notice = f"The question was {len(text)} characters; only the first {limit} were read."
                text = text[:limit]
        text = clean_text(text) if text.strip() else ""
        messages: list[BaseMessage] = []
        for turn in (history or [])[-HISTORY_TURNS:]:
            turn = turn if isinstance(turn, ChatTurn) else ChatTurn.model_validate(turn)
            content = clean_text(turn.content[:limit])
            messages.append(HumanMessage(content) if turn.role == "user" else AIMessage(content))
        messages.append(HumanMessage(text))
        return messages, notice

    # -- ask -----------------------------------------------------------------------------------
    def ask(self, question: str, history: list[ChatTurn] | None = None) -> Answer:
        """The answer with the tool calls behind it (and a notice when input was cut or the LLM failed)."""
        *_, last = self._answer(question, history, events=False)
        if last.answer is None:  # the stream always ends with the final event, which carries the Answer
            raise RuntimeError("the agent stream ended without its final answer")
        return last.answer

    def stream(self, question: str, history: list[ChatTurn] | None = None) -> Iterator[AgentEvent]:
        """Events while the agent works (tool_call, tool_result, text) and a final one with the Answer.
        An LLM's text comes once it has passed the checks (a reply can turn out to be a tool call written
        as text, or be replaced by the offline planner's answer)."""
        return self._answer(question, history, events=True)

    def _answer(self, question: str, history: list[ChatTurn] | None, events: bool) -> Iterator[AgentEvent]:
        messages, notice = self.prepare(question, history)
        notices = [n for n in (self.startup_notice, notice) if n]
        if self.model_name == OFFLINE:
            try:
                yield from self._run(self._agent, messages, notices, OFFLINE, events)
            except Exception as e:  # noqa: BLE001 - a bug: say it in one line, keep the front end alive
                log.exception("offline planner failed")
                yield self._final([], f"Sorry, I could not answer this: internal error ({type(e).__name__}).",
                                  OFFLINE, [*notices, f"internal error: {type(e).__name__}: {e}"[:300]])
            return
        started = time.monotonic()
        try:
            final: Answer | None = None
            for ev in self._run_llm(messages, notices, events):
                if ev.kind == "final":
                    final = ev.answer
                else:
                    yield ev
            assert final is not None
            problem = reply_problem(final.answer, None, self.settings.llm_max_reply_chars)
            if problem:
                raise LLMGaveUp(problem)
        except Exception as e:  # noqa: BLE001 - the LLM failed, ran out of budget or a bug: offline, or one line
            if not isinstance(e, LLMGaveUp) and time.monotonic() - started >= self.budget_s:  # a timeout cut to the budget
                e = LLMGaveUp(f"no answer within the time budget of {self.budget_s:g} s")
            reason = f"LLM {self.model_name!r} failed: {describe_llm_error(e)}"
            if not isinstance(e, LLMGaveUp):
                log.info("%s", reason)
            if not self.settings.llm_fallback:
                raise LLMUnavailable(reason) from None
            yield from self._run(self.offline_agent(), messages, [*notices, reason + " Answered by the offline planner."],
                                 OFFLINE, events)
            return
        if self.settings.grounding_check:
            conversation = [grounding.without_marked(m.content) for m in messages if isinstance(m.content, str)]
            found = grounding.check(final.answer, texts=[question, *conversation, self.system_prompt],
                                    results=[r.result for r in final.tool_calls],
                                    tools_called=[r.name for r in final.tool_calls if not is_error(r.result)],
                                    per_node=self.per_node)
            if not found.ok:
                yield from self._ungrounded(final, found, messages, notices, events, question)
                return
        if events and final.answer:
            yield AgentEvent(kind="text", text=final.answer)
        yield AgentEvent(kind="final", answer=final)

    def _ungrounded(self, final: Answer, found: grounding.Grounding, messages, notices, events, question) -> Iterator[AgentEvent]:
        """An LLM answer with figures no source gave: the offline planner's answer when it has one from the
        tools, else the LLM's with those figures marked. The notice names them either way."""
        named = ", ".join(found.named())
        log.info("ungrounded LLM answer (%s): %s", self.model_name, named)
        if self.settings.llm_fallback:
            offline = list(self._run(self.offline_agent(), messages, [], OFFLINE, events))
            answer = offline[-1].answer
            if answer is not None and any(not is_error(r.result) for r in answer.tool_calls):
                yield from offline[:-1]
                note = (f"The LLM ({self.model_name}) answered with figures no tool returned ({named}); "
                        "answered by the offline planner.")
                yield self._final(answer.tool_calls, answer.answer, OFFLINE, [*notices, note])
                return
        marked = grounding.mark(final.answer, found, chinese=bool(CJK.search(question)))
        note = f"Figures no tool returned are marked in the answer: {named}."
        if events:
            yield AgentEvent(kind="text", text=marked)
        yield self._final(final.tool_calls, marked, final.model, [*notices, note])

    def _run_llm(self, messages, notices, events) -> Iterator[AgentEvent]:
        deadline = time.monotonic() + self.budget_s
        watch = StreamWatch(deadline, self.budget_s, self.settings.llm_max_reply_chars)
        budget = TurnBudget(deadline=deadline, budget_s=self.budget_s, watch=watch)
        config: dict[str, Any] = {"recursion_limit": 2 * self.settings.llm_max_steps + 3, "callbacks": [watch]}
        yield from self._run(self._agent, messages, notices, self.model_name, events, config=config, context=budget,
                             hold_text=True)

    def _run(self, agent, messages, notices, model_name, events, config=None, context=None,
             hold_text=False) -> Iterator[AgentEvent]:
        new: list[BaseMessage] = []
        modes = ["updates", "messages"] if events and not hold_text else ["updates"]
        kwargs = {"context": context} if context is not None else {}
        for mode, chunk in agent.stream({"messages": messages}, config or {"recursion_limit": OFFLINE_RECURSION_LIMIT},
                                        stream_mode=modes, **kwargs):
            if mode == "messages":
                msg, meta = chunk
                if isinstance(msg, AIMessageChunk) and meta.get("langgraph_node") == "model" and not msg.tool_call_chunks:
                    text = message_text(msg)
                    if text:
                        yield AgentEvent(kind="text", text=text)
                continue
            for update in (chunk or {}).values():
                for msg in (update or {}).get("messages", []) if isinstance(update, dict) else []:
                    new.append(msg)
                    if not events:
                        continue
                    if isinstance(msg, AIMessage):
                        for tc in msg.tool_calls:
                            yield AgentEvent(kind="tool_call", name=tc["name"], args=tc["args"])
                    elif isinstance(msg, ToolMessage):
                        yield AgentEvent(kind="tool_result", name=msg.name, result=tool_result(msg))
        records = tool_records(new)
        final = next((m for m in reversed(new) if isinstance(m, AIMessage) and not m.tool_calls), None)
        text = message_text(final).strip() if final else ""
        if not text and model_name == OFFLINE:
            text = "(the offline planner returned no answer)"
        yield self._final(records, text, model_name, notices)

    @staticmethod
    def _final(records, text, model_name, notices) -> AgentEvent:
        files = [GeneratedFile(filename=f["filename"], content=f["content"], format=str(f.get("format", "")))
                 for r in records if r.name == "generate_config"
                 for f in [r.result, *(r.result.get("companion_files") or [])] if {"filename", "content"} <= set(f)]
        ans = Answer(answer=text, tool_calls=records, model=model_name, files=files, notice=" ".join(notices) or None)
        return AgentEvent(kind="final", answer=ans)


def tool_records(messages: list[BaseMessage]) -> list[ToolCallRecord]:
    """One record per tool call, in the order the model asked for them (tools may finish in any order)."""
    results = {m.tool_call_id: m for m in messages if isinstance(m, ToolMessage)}
    out = []
    for m in messages:
        if isinstance(m, AIMessage):
            for tc in m.tool_calls:
                if tc["id"] in results:
                    out.append(ToolCallRecord(name=tc["name"], args=tc["args"] or {}, result=tool_result(results[tc["id"]])))
    return out
