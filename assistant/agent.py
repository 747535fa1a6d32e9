"""The agent: LangChain's ``create_agent`` loop over the tool registry. The chat model is chosen by
settings (``SIZING_LLM`` / ``--llm``): the offline planner (default), any ``init_chat_model``
provider string, or an OpenAI-compatible endpoint (``SIZING_LLM_BASE_URL`` + ``SIZING_LLM_API_KEY``).

Front ends use ``Assistant`` only; they never see LangChain types.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import StructuredTool

from .answer import AgentEvent, Answer, ChatTurn, GeneratedFile, ToolCallRecord
from .errors import SizingError
from .offline import OfflinePlanner
from .offline.model import message_text, tool_result
from .offline.parse import clean_text
from .tools import REGISTRY
from .tools.registry import Registry

log = logging.getLogger(__name__)

OFFLINE = "offline"
HISTORY_TURNS = 20
RECURSION_LIMIT = {"offline": 12, "llm": 25}  # graph steps; a tool round is two steps


class LLMUnavailable(SizingError):
    """The configured chat model cannot be built or reached. The message is one line for the user."""

    def __init__(self, message: str):
        super().__init__("llm_unavailable", message, status=503)


# ---------------------------------------------------------------- tools
def langchain_tools(registry: Registry, ctx) -> list[StructuredTool]:
    """The registry's tools as LangChain tools: same names, descriptions and JSON schemas. Arguments
    go to the registry unvalidated by LangChain, so bad input comes back in the registry's one
    error shape; the JSON result is the content the model sees and the artifact we record."""

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
        StructuredTool.from_function(func=runner(t.name), name=t.name, description=t.description,
                                     args_schema=function_schema(t.input_schema()), response_format="content_and_artifact")
        for t in registry
    ]


# ---------------------------------------------------------------- chat models
def chat_model(spec: str, settings):
    """Build the chat model for ``spec`` or raise LLMUnavailable with a one-line reason."""
    from langchain.chat_models import init_chat_model

    base_url = settings.llm_base_url
    if ":" not in spec and base_url:
        spec = f"openai:{spec}"  # a bare model name on an OpenAI-compatible endpoint (vLLM)
    kwargs: dict[str, Any] = {"timeout": settings.llm_timeout_s, "max_retries": 1}
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


def describe_llm_error(e: BaseException) -> str:
    """One line for the usual failures: missing key, endpoint down, timeout, rejected key, bad model."""
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
    if name == "GraphRecursionError":
        return "the model kept calling tools without finishing."
    return f"{name}: {text}"[:300]


# ---------------------------------------------------------------- the assistant
class Assistant:
    """Answers questions with the tools. Build once and reuse: the agent graph is built here."""

    def __init__(self, ctx, llm: str | BaseChatModel | None = None):
        """``llm``: None (settings), "offline", a provider string, or a ready LangChain chat model."""
        self.ctx = ctx
        self.settings = ctx.settings
        self.tools = langchain_tools(REGISTRY, ctx)
        self.system_prompt = (self.settings.prompts_dir / "system.md").read_text(encoding="utf-8")
        self._offline: Any = None  # the offline agent graph, built on first use
        self.startup_notice: str | None = None
        if isinstance(llm, BaseChatModel):
            self.model_name = getattr(llm, "model_name", None) or getattr(llm, "model", None) or type(llm).__name__
            self._agent = create_agent(llm, self.tools, system_prompt=self.system_prompt)
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
        self._agent = create_agent(model, self.tools, system_prompt=self.system_prompt)

    def offline_agent(self):
        if self._offline is None:
            planner = OfflinePlanner(ctx=self.ctx)
            self._offline = create_agent(planner, self.tools, system_prompt=self.system_prompt)
        return self._offline

    # -- input ---------------------------------------------------------------------------------
    def prepare(self, question: str, history: list[ChatTurn] | None) -> tuple[list[BaseMessage], str | None]:
        """Messages for the agent; control characters dropped, oversized input cut (with a notice)."""
        limit = self.settings.max_question_chars
        notice = None
        text = question or ""
        if len(text) > limit:
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

    def config(self, offline: bool) -> dict[str, Any]:
        return {"recursion_limit": RECURSION_LIMIT["offline" if offline else "llm"]}

    # -- ask -----------------------------------------------------------------------------------
    def ask(self, question: str, history: list[ChatTurn] | None = None) -> Answer:
        """The answer with the tool calls behind it (and a notice when input was cut or the LLM failed)."""
        *_, last = self._answer(question, history, events=False)
        if last.answer is None:  # the stream always ends with the final event, which carries the Answer
            raise RuntimeError("the agent stream ended without its final answer")
        return last.answer

    def stream(self, question: str, history: list[ChatTurn] | None = None) -> Iterator[AgentEvent]:
        """Events while the agent works (tool_call, tool_result, text) and a final one with the Answer."""
        return self._answer(question, history, events=True)

    def _answer(self, question: str, history: list[ChatTurn] | None, events: bool) -> Iterator[AgentEvent]:
        messages, notice = self.prepare(question, history)
        notices = [n for n in (self.startup_notice, notice) if n]
        offline = self.model_name == OFFLINE
        try:
            yield from self._run(self._agent, messages, notices, self.model_name, offline, events)
        except Exception as e:  # noqa: BLE001 - the LLM failed (or a bug): answer offline or say it in one line
            if offline:
                log.exception("offline planner failed")
                yield self._final([], f"Sorry, I could not answer this: internal error ({type(e).__name__}).",
                                  OFFLINE, [*notices, f"internal error: {type(e).__name__}: {e}"[:300]])
                return
            reason = f"LLM {self.model_name!r} failed: {describe_llm_error(e)}"
            if not self.settings.llm_fallback:
                raise LLMUnavailable(reason) from None
            yield from self._run(self.offline_agent(), messages, [*notices, reason + " Answered by the offline planner."],
                                 OFFLINE, True, events)

    def _run(self, agent, messages, notices, model_name, offline, events) -> Iterator[AgentEvent]:
        new: list[BaseMessage] = []
        modes = ["updates", "messages"] if events else ["updates"]
        for mode, chunk in agent.stream({"messages": messages}, self.config(offline), stream_mode=modes):
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
        yield self._final(records, text or "(the model returned no answer)", model_name, notices)

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
