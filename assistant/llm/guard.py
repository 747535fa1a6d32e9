"""The protocol guard around a real chat model, as LangChain agent middleware plus a streaming callback.

Per answer it bounds the model calls (``llm_max_steps``), the tool errors and unreadable replies sent
back to the model (``llm_max_corrections``), the wall-clock time (``TurnBudget.deadline``) and the
reply size; it turns tool calls written as text into real ones. Anything it cannot repair ends the
LLM's turn with ``LLMGaveUp`` (a one-line reason), and the agent falls back to the offline planner.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from .protocol import read_text_calls, repeating, reply_problem


class LLMGaveUp(Exception):  # noqa: N818 - a reason to stop, not a bug
    """The model's turn ended without an answer that can be shown; ``str(e)`` is the reason."""


@dataclass(frozen=True)
class TurnBudget:
    """Per-answer limits, passed to the agent as its runtime context, with the stream watch of this answer."""

    deadline: float  # time.monotonic() by which the LLM must have answered
    budget_s: float  # the same as a duration, for messages
    watch: StreamWatch | None = None


@dataclass(frozen=True)
class Limits:
    max_steps: int
    max_corrections: int
    max_reply_chars: int
    # (read, connect) timeouts in seconds, cut to the time left of the budget on each call; None for a
    # model whose client takes no per-call timeout (only OpenAI-compatible ones do, and only their
    # streams are known to end with a finish_reason)
    timeouts: tuple[float, float] | None = None


def text_of(msg: BaseMessage) -> str:
    content = msg.content
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content)


def check_deadline(budget: TurnBudget | None) -> None:
    if budget is not None and time.monotonic() > budget.deadline:
        raise LLMGaveUp(f"no answer within the time budget of {budget.budget_s:g} s")


def this_turn(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """The messages after the user's last question: what the model did for this answer so far."""
    for i in range(len(messages) - 1, -1, -1):
        if isinstance(messages[i], HumanMessage):
            return list(messages[i + 1:])
    return list(messages)


def is_tool_error(msg: ToolMessage) -> bool:
    if msg.status == "error":
        return True
    text = text_of(msg)
    return text.startswith('{"error"')


class ProtocolGuard(AgentMiddleware):
    """Repairs or bounds each model call of an LLM turn (see the module docstring)."""

    def __init__(self, tool_names: list[str], limits: Limits):
        super().__init__()
        self.tool_names = set(tool_names)
        self.names_line = ", ".join(tool_names)
        self.limits = limits

    def wrap_model_call(self, request: ModelRequest, handler) -> ModelResponse:
        budget = getattr(request.runtime, "context", None) if request.runtime is not None else None
        turn = this_turn(request.messages)
        if sum(isinstance(m, AIMessage) for m in turn) >= self.limits.max_steps:
            raise LLMGaveUp(f"the model took more than {self.limits.max_steps} steps")
        errors = [m for m in turn if isinstance(m, ToolMessage) and is_tool_error(m)]
        if len(errors) > self.limits.max_corrections:
            raise LLMGaveUp(f"the model kept calling tools wrongly ({len(errors)} tool errors; "
                            f"last: {text_of(errors[-1])[:160]})")
        extra: list[Any] = []
        problem: str | None = ""
        for _ in range(self.limits.max_corrections + 1):
            check_deadline(budget)
            response = handler(self.bounded(request, budget, extra))
            msg = next((m for m in reversed(response.result) if isinstance(m, AIMessage)), None)
            if msg is None:
                raise LLMGaveUp("the model returned no message")
            watch = budget.watch if budget is not None else None
            if (self.limits.timeouts is not None and watch is not None and watch.streamed
                    and not (msg.response_metadata or {}).get("finish_reason")):  # an OpenAI stream always ends with one
                raise LLMGaveUp("the reply stream ended before the model finished (no finish_reason)")
            if watch is not None and watch.bad_arguments and msg.tool_calls:
                # streamed arguments are parsed leniently ('{"model": "x", "strategy": lora' reads as {"model": "x"}):
                # a call whose text was not JSON must not run with what was guessed from it
                name, error = watch.bad_arguments[0]
                msg = AIMessage(content="", invalid_tool_calls=[{"name": name, "args": None, "id": None, "error": error,
                                                                 "type": "invalid_tool_call"}])
            repaired, problem, correction = self.repair(msg)
            if repaired is not None:
                return ModelResponse(result=[repaired], structured_response=response.structured_response)
            extra += [AIMessage(content=text_of(msg)[:2000] or _invalid_calls_text(msg)), HumanMessage(correction)]
        raise LLMGaveUp(problem or "the model's replies could not be used")

    def bounded(self, request: ModelRequest, budget: TurnBudget | None, extra: list[Any]) -> ModelRequest:
        """The request with the corrections so far and timeouts that end by the deadline, so no request
        outlives its answer (REST /v1/ask must not leave one running for the next caller to wait on)."""
        changes: dict[str, Any] = {"messages": [*request.messages, *extra]} if extra else {}
        if self.limits.timeouts is not None and budget is not None:
            import httpx

            left = max(0.1, budget.deadline - time.monotonic())
            read, connect = self.limits.timeouts
            changes["model_settings"] = {**request.model_settings,
                                         "timeout": httpx.Timeout(min(read, left), connect=min(connect, left))}
        return request.override(**changes) if changes else request

    def repair(self, msg: AIMessage) -> tuple[AIMessage | None, str | None, str]:
        """(the message to use, or None) and, when None, the problem and what to tell the model."""
        if msg.invalid_tool_calls:
            bad = msg.invalid_tool_calls[0]
            return None, f"the arguments of {bad.get('name')!r} were not valid JSON", (f"Your call to {bad.get('name')} could not be read: its arguments are not valid JSON "
                                   f"({str(bad.get('error') or '')[:120]}). Call the tool again with a JSON object.")
        if msg.tool_calls:
            return msg, "", ""
        text = text_of(msg)
        meta = msg.response_metadata or {}
        finish = meta.get("finish_reason") or ("length" if meta.get("stop_reason") == "max_tokens" else None)  # Anthropic's name
        problem = reply_problem(text, finish, self.limits.max_reply_chars)
        if problem and "empty" not in problem:
            raise LLMGaveUp(problem)  # cut, oversized or looping: asking again costs as much and rarely helps
        found = read_text_calls(text, self.tool_names)
        if found.calls:
            calls = [{"name": n, "args": a, "id": f"text_call_{uuid.uuid4().hex[:12]}", "type": "tool_call"}
                     for n, a in found.calls]
            return AIMessage(content="", tool_calls=calls, response_metadata=msg.response_metadata, id=msg.id), "", ""
        if found.unreadable:
            return None, found.unreadable, (f"Your reply could not be used: {found.unreadable}. Use the tool-calling "
                                            f"interface (tools: {self.names_line}), or answer in plain text.")
        if problem:  # empty
            return None, problem, (f"Your reply was empty. Call one of the tools ({self.names_line}) or answer from "
                                   "the tool results.")
        return msg, "", ""


def _invalid_calls_text(msg: AIMessage) -> str:
    return " ".join(f"{c.get('name')}({c.get('args')})" for c in msg.invalid_tool_calls) or "(empty reply)"


class _QuietStops(logging.Filter):
    """LangChain logs every exception a callback raises as a warning before re-raising it; a StreamWatch
    stop is the intended way out (the agent reports it in the answer's notice), not a warning."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "StreamWatch" not in str(record.msg % record.args if record.args else record.msg)


logging.getLogger("langchain_core.callbacks.manager").addFilter(_QuietStops())


class StreamWatch(BaseCallbackHandler):
    """Stops a reply while it streams: past the deadline, past the size limit, or once it loops.
    Raising from the callback closes the HTTP stream, so the server stops generating too."""

    raise_error = True

    def __init__(self, deadline: float, budget_s: float, max_chars: int):
        self.budget = TurnBudget(deadline, budget_s)
        self.max_chars = max_chars
        self.text: dict[Any, str] = {}
        self.streamed = False  # the current model call streamed (so it must end with a finish_reason)
        self.call_args: dict[int, list[str]] = {}  # the current call's tool-call arguments as streamed: index -> [name, text]

    def on_chat_model_start(self, *args: Any, **kwargs: Any) -> None:
        self.streamed, self.call_args = False, {}

    @property
    def bad_arguments(self) -> list[tuple[str, str]]:
        """(tool, error) for each tool call of the current model call whose streamed arguments are not JSON."""
        out = []
        for name, text in self.call_args.values():
            try:
                json.loads(text or "{}")
            except ValueError as e:
                out.append((name, f"{e}: {text[:80]}"))
        return out

    def on_llm_new_token(self, token: Any, *, run_id: Any = None, chunk: Any = None, **kwargs: Any) -> None:
        self.streamed = True
        for tc in getattr(getattr(chunk, "message", None), "tool_call_chunks", None) or []:
            entry = self.call_args.setdefault(tc.get("index") or 0, ["", ""])
            entry[0] += tc.get("name") or ""
            entry[1] += tc.get("args") or ""
        token = token if isinstance(token, str) else ""
        text = self.text.get(run_id, "") + token
        self.text[run_id] = text
        check_deadline(self.budget)
        if len(text) > self.max_chars:
            raise LLMGaveUp(f"the reply passed {self.max_chars:,} characters")
        if len(text) // 400 != (len(text) - len(token)) // 400:  # look for a loop every 400 characters
            loop = repeating(text, times=4)
            if loop:
                raise LLMGaveUp(f"the reply repeats itself ({loop[:60]!r} …)")

