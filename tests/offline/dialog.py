"""A conversation driver shared by the offline planner's tests."""

from __future__ import annotations

from assistant.answer import ChatTurn


def converse(assistant, *questions):
    """Ask each question with the earlier turns as history; the answers in order."""
    history, answers = [], []
    for q in questions:
        ans = assistant.ask(q, history)
        answers.append(ans)
        history += [ChatTurn(role="user", content=q), ChatTurn(role="assistant", content=ans.answer)]
    return answers


def last_answer(assistant, *questions):
    """The answer to the last of ``questions``, asked as one conversation."""
    return converse(assistant, *questions)[-1]


def lead(ans) -> str:
    """The headline paragraph: from the answer label to the first blank line."""
    text = ans if isinstance(ans, str) else ans.answer
    for label in ("**Answer:**", "**结论**："):
        if label in text:
            return text.split(label, 1)[1].split("\n\n", 1)[0].strip()
    return text.split("\n\n", 1)[0]


def lead_line(ans) -> str:
    """The answer's labelled line (the one that opens with "**Answer:**" or "**结论**"), label included."""
    text = ans if isinstance(ans, str) else ans.answer
    return next(line for line in text.splitlines() if line.startswith(("**Answer:**", "**结论**")))
