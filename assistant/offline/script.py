"""Traditional Chinese questions. The reader's vocabulary, patterns and notes are written in simplified
characters, so a question in traditional characters ("全參微調 4096 最少需要幾張卡", "兩台機器") is read
through OpenCC's traditional-to-simplified conversion, and its answer is converted back, so the user reads
the script they wrote in. Conversion is character by character, so numbers, names and code are untouched."""

from __future__ import annotations

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from opencc import OpenCC


class Script:
    """The two OpenCC converters (built once per planner: loading the dictionaries takes milliseconds)."""

    def __init__(self) -> None:
        self._to_simplified = OpenCC("t2s")
        self._to_traditional = OpenCC("s2t")

    def simplified(self, text: str) -> str:
        """The text with its traditional-only characters simplified. A character both scripts write stays: the brand
        昇腾 keeps its 昇 (OpenCC would make it 升), because 升 written back in traditional is 升, not 昇."""
        if not text:
            return text
        whole = self._to_simplified.convert(text)
        if len(whole) != len(text):  # a phrase of another length (rare): the converter's own reading
            return whole
        return "".join(d if c != d and self._to_traditional.convert(d) == c else c for c, d in zip(text, whole, strict=True))

    def is_traditional(self, text: str) -> bool:
        """Whether the text holds characters that only traditional script writes (its simplified form differs)."""
        return self.simplified(text) != text

    def writes_traditional(self, texts: list[str]) -> bool:
        """Whether the conversation is in traditional characters: the latest of the user's turns whose characters tell
        the scripts apart decides ("那 8192 呢？" is the same in both, so the turn before it does)."""
        for text in reversed(texts):
            if self.is_traditional(text):
                return True
            if self._to_traditional.convert(text) != text:  # simplified-only characters
                return False
        return False

    def traditional(self, text: str) -> str:
        return self._to_traditional.convert(text) if text else text

    def read_simplified(self, messages: list[BaseMessage]) -> list[BaseMessage]:
        """The conversation with the user's turns and the earlier answers in simplified characters (tool results are
        the tools' own text, left as they are)."""
        out: list[BaseMessage] = []
        for m in messages:
            if isinstance(m, HumanMessage | AIMessage) and isinstance(m.content, str) and self.is_traditional(m.content):
                m = m.model_copy(update={"content": self.simplified(m.content)})
            out.append(m)
        return out
