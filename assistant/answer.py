"""What the agent returns to every front end: the answer text, the tool calls behind it, and
stream events. Front ends depend on these shapes, not on LangChain types."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class ChatTurn(BaseModel):
    """One earlier message of the conversation, as front ends keep it."""

    role: Literal["user", "assistant"]
    content: str


class ToolCallRecord(BaseModel):
    name: str
    args: dict[str, Any]
    result: dict[str, Any] = Field(description="The tool's JSON result, or the canonical error object.")


class GeneratedFile(BaseModel):
    """A config the assistant produced (from generate_config), for download buttons and uploads."""

    filename: str
    content: str
    format: str


class Answer(BaseModel):
    answer: str
    tool_calls: list[ToolCallRecord] = Field(default_factory=list)
    model: str = Field(description="Chat model that produced the answer: 'offline' or the provider string.")
    files: list[GeneratedFile] = Field(default_factory=list)
    notice: str | None = Field(None, description="E.g. 'LLM endpoint failed; answered by the offline planner'.")


class AgentEvent(BaseModel):
    """Streamed while the agent works: tool_call, tool_result, text (a chunk of the answer), final."""

    kind: Literal["tool_call", "tool_result", "text", "final"]
    name: str | None = None
    args: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    text: str | None = None
    answer: Answer | None = None
