"""Messages the domain writes in English (a reading's remarks, a plan's errors) with their Chinese wording beside them,
in tables of ``{key: {"en": template, "zh": template}}``.

The domain and the tools keep the English text (their output is English); an answer in Chinese gets the Chinese
wording by matching the text against the English templates of every registered table (``in_language``), so such a
message cannot reach a Chinese answer in English. A new message is added to its table with both wordings;
``tests/offline/test_answer_language.py`` checks each table has both and that each English text comes back in Chinese."""

from __future__ import annotations

import re
import string


def _pattern(template: str) -> re.Pattern[str]:
    out = []
    for literal, field, _, _ in string.Formatter().parse(template):
        out.append(re.escape(literal))
        if field:
            out.append(rf"(?P<{field}>.+?)")
    return re.compile("^" + "".join(out) + "$", re.S)


class Wordings:
    """One table of messages in both languages; ``words_zh`` turns the English words a template fills in (``{what}``)
    into Chinese for ``{what_zh}``."""

    def __init__(self, table: dict[str, dict[str, str]], words_zh: dict[str, str] | None = None):
        self.table, self.words_zh = table, words_zh or {}
        self.patterns = {key: _pattern(t["en"]) for key, t in table.items()}
        REGISTERED.append(self)

    def en(self, key: str, **values: object) -> str:
        """The message ``key`` in English (the domain's text)."""
        return self.table[key]["en"].format(**values)

    def zh(self, text: str) -> str | None:
        """The Chinese wording of an English text made from one of this table's templates, or None."""
        for key, rx in self.patterns.items():
            if m := rx.match(text):
                values = m.groupdict()
                values |= {f"{k}_zh": self.words_zh.get(v, v) for k, v in values.items()}
                return self.table[key]["zh"].format(**values)
        return None


REGISTERED: list[Wordings] = []


def in_language(text: str, lang: str) -> str:
    """A domain message in the answer's language: its Chinese wording from the table it was made from ("zh"); the
    text itself otherwise (or when no table made it)."""
    if lang != "zh":
        return text
    return next((zh for w in REGISTERED if (zh := w.zh(text)) is not None), text)
