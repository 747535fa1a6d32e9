"""What the agent returns to every front end: the answer text, the tool calls behind it, and
stream events. Front ends depend on these shapes, not on LangChain types."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError


class ChatTurn(BaseModel):
    """One earlier message of the conversation, as front ends keep it."""

    role: Literal["user", "assistant"]
    content: str


class AskLine(BaseModel):
    """One request as REST's /v1/ask takes it, also read line by line by `sizing ask --json -`."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1)
    history: list[ChatTurn] = Field(default_factory=list)

    @classmethod
    def read(cls, line: str) -> AskLine | str:
        """A JSON object line {"question", "history"} as a request; a plain line is the question itself.
        A line that looks like such an object but is not valid comes back as the error message."""
        import json

        text = line.strip()
        if not (text.startswith("{") and text.endswith("}")):
            return cls(question=text)
        try:
            obj = json.loads(text)
        except ValueError:
            return cls(question=text)  # braces in a plain question
        if not isinstance(obj, dict) or "question" not in obj:
            return cls(question=text)
        try:
            return cls.model_validate(obj)
        except ValidationError as e:
            first = e.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            return f"invalid request line: {where}: {first['msg']} (expected {{\"question\": str, \"history\": [{{\"role\": \"user\"|\"assistant\", \"content\": str}}]}})"


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


# How every front end names a source: as users know it, never by the file it was transcribed into.
FILE_REF = re.compile(r"[\w\-/]+\.(?:txt|md|csv|yaml|json|py)(?:\s*§\s*[\d.]+)?\s*:?\s*")


def source_as_known(source: str) -> str:
    """A source as users know it (the vendor page, its title and date), not the file it was transcribed
    into: "seeds/004_….txt (ModelArts: 模型最小卡数配置, 2025-06-24)" -> "ModelArts: 模型最小卡数配置, 2025-06-24"."""
    text = FILE_REF.sub("", source).strip(" ;,")
    if text.startswith("(") and text.endswith(")") and text.count("(") == 1:
        text = text[1:-1]
    return re.sub(r"\s{2,}", " ", text).replace("( ", "(").replace(" )", ")")
