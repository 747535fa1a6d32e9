"""Markdown (what the agent writes) to Slack mrkdwn (what Slack renders), and cutting long text into
messages Slack accepts. Pure functions, no Slack client: the bridge in slack.py posts what these return.

Slack's mrkdwn differs from markdown: *bold*, _italic_, ~strike~, <url|text> links, no headings and
no tables. &, < and > must be escaped everywhere (code blocks included), or Slack reads them as
control sequences."""

from __future__ import annotations

import re

MESSAGE_LIMIT = 3500  # Slack truncates text past 40k and advises staying under 4k characters per message
TABLE_CODE_WIDTH = 90  # wider tables become bullet lists: a code block that wraps is unreadable

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*([\w+.-]*)\s*$")
_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^(\s*)[-*+]\s+(.*)$")
_RULE = re.compile(r"^\s{0,3}([-*_])(\s*\1){2,}\s*$")
_INLINE_CODE = re.compile(r"(`+)(.+?)\1")
_LINK = re.compile(r"!?\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_AUTOLINK = re.compile(r"&lt;((?:https?|mailto):[^\s&]+)&gt;")
_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*|__(?=\S)(.+?)(?<=\S)__")
_ITALIC = re.compile(r"(?<![\w*])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![\w*])")
_STRIKE = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~")
# Private-use characters stand in for protected spans while the other rules run.
_HOLD, _B = "\ue000", "\ue001"


def escape(text: str) -> str:
    """Slack's three control characters."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _inline(text: str) -> str:
    """One line of running text: code spans kept, links, bold, italic and strike-through converted."""
    held: list[str] = []

    def hold(s: str) -> str:
        held.append(s)
        return f"{_HOLD}{len(held) - 1}{_HOLD}"

    text = _INLINE_CODE.sub(lambda m: hold("`" + escape(m.group(2).strip("`")) + "`"), text)
    text = escape(text)
    # Links are held so that underscores or asterisks in URLs are not read as emphasis.
    text = _LINK.sub(lambda m: hold(f"<{m.group(2)}|{m.group(1) or m.group(2)}>"), text)
    text = _AUTOLINK.sub(lambda m: hold(f"<{m.group(1)}>"), text)
    text = _BOLD.sub(lambda m: _B + (m.group(1) or m.group(2)) + _B, text)
    text = _ITALIC.sub(r"_\1_", text)
    text = _STRIKE.sub(r"~\1~", text).replace(_B, "*")
    return re.sub(f"{_HOLD}(\\d+){_HOLD}", lambda m: held[int(m.group(1))], text)


def _plain_cell(cell: str) -> str:
    """A table cell for a code block: markdown emphasis and code marks dropped."""
    cell = _LINK.sub(lambda m: m.group(1) or m.group(2), cell.strip())
    return re.sub(r"\*\*|__|`", "", cell).replace("\\|", "|")


def _cells(line: str) -> list[str]:
    line = line.strip()
    line = line[1:] if line.startswith("|") else line
    line = line[:-1] if line.endswith("|") and not line.endswith("\\|") else line
    return [_plain_cell(c) for c in re.split(r"(?<!\\)\|", line)]


def table_to_mrkdwn(lines: list[str]) -> str:
    """A markdown table as an aligned code block, or as bullets when it would be too wide."""
    header, rows = _cells(lines[0]), [_cells(line) for line in lines[2:]]
    ncol = len(header)
    rows = [(r + [""] * ncol)[:ncol] for r in rows]
    widths = [max(len(x) for x in col) for col in zip(header, *rows, strict=True)]
    if sum(widths) + 2 * (ncol - 1) <= TABLE_CODE_WIDTH:
        def fmt(r: list[str]) -> str:
            return "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()

        body = [fmt(header), "  ".join("-" * w for w in widths)] + [fmt(r) for r in rows]
        return "```\n" + escape("\n".join(body)) + "\n```"
    bullets = []
    for r in rows:
        first, rest = r[0], [f"{h}: {c}" for h, c in zip(header[1:], r[1:], strict=True) if c]
        bullets.append(f"• *{escape(first)}*" + (" — " + escape(", ".join(rest)) if rest else ""))
    return "\n".join(bullets)


def to_mrkdwn(markdown: str) -> str:
    """Convert the agent's markdown to Slack mrkdwn: headings become bold lines, tables become code
    blocks (or bullets), bullets become •, links <url|text>; fenced code stays fenced."""
    lines = markdown.replace("\r\n", "\n").split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        fence = _FENCE.match(line)
        if fence:
            # Slack shows a language tag as code, so it is dropped; the block runs to the closing fence.
            mark, body, i = fence.group(1), [], i + 1
            while i < len(lines) and not lines[i].strip().startswith(mark):
                body.append(lines[i])
                i += 1
            out.append("```\n" + escape("\n".join(body)) + "\n```")
            i += 1
            continue
        if "|" in line and i + 1 < len(lines) and _TABLE_SEP.match(lines[i + 1]) and lines[i + 1].count("-") >= 3:
            block = [line, lines[i + 1]]
            i += 2
            while i < len(lines) and lines[i].strip() and "|" in lines[i]:
                block.append(lines[i])
                i += 1
            out.append(table_to_mrkdwn(block))
            continue
        if heading := _HEADING.match(line):
            out.append("*" + _inline(heading.group(1)).replace("*", "").strip() + "*")
        elif _RULE.match(line):
            out.append("──────────")
        elif bullet := _BULLET.match(line):
            out.append(bullet.group(1) + "• " + _inline(bullet.group(2)))
        elif line.lstrip().startswith(">"):
            # Block quotes are the same in mrkdwn; the marker must stay unescaped.
            out.append("> " + _inline(line.lstrip()[1:].lstrip()))
        else:
            out.append(_inline(line))
        i += 1
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip()


def code_block(content: str, title: str | None = None) -> str:
    """A file shown inline: its name, then its text in a code block."""
    head = f"*{escape(title)}*\n" if title else ""
    return head + "```\n" + escape(content.rstrip("\n")) + "\n```"


def _blocks(text: str) -> list[list[str]]:
    """The text as units that should stay in one message: each code block together with the line
    naming it (the line just before, when not blank), and each other line on its own."""
    lines = text.split("\n")
    units: list[list[str]] = []
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```":
            end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == "```"), None)
            if end is not None:
                block = lines[i:end + 1]
                if units and len(units[-1]) == 1 and units[-1][0].strip() and units[-1][0].strip() != "```":
                    block = units.pop() + block  # "`train.yaml`:" stays with its file
                units.append(block)
                i = end + 1
                continue
        units.append([lines[i]])
        i += 1
    return units


def split_message(text: str, limit: int = MESSAGE_LIMIT) -> list[str]:
    """Cut mrkdwn into messages of at most ``limit`` characters, at line ends. A code block (a config
    file) that fits in one message is never cut: when it does not fit in what is left of the current
    message it starts the next one. Only a block longer than a whole message is cut, closed at the end
    of one message and reopened at the start of the next."""
    messages: list[str] = []
    current: list[str] = []

    def size(lines: list[str]) -> int:
        return sum(len(x) + 1 for x in lines) - 1 if lines else 0

    for unit in _blocks(text):
        if size(current + unit) <= limit or not current and size(unit) <= limit:
            current += unit
            continue
        if current and size(unit) <= limit:
            messages.append("\n".join(current))
            current = list(unit)
            continue
        if current:
            messages.append("\n".join(current))
            current = []
        pieces = _cut(unit, limit)
        messages += pieces[:-1]
        current = pieces[-1].split("\n")
    messages.append("\n".join(current))
    out = [m.strip("\n") for m in messages]
    return [m for m in out if m.strip()] or [""]


def _cut(lines: list[str], limit: int) -> list[str]:
    """Lines too long for one message, at line ends; a code block cut in two is closed at the end of
    one message and reopened at the start of the next."""
    fence = "```"
    chunks: list[list[str]] = [[]]
    size, in_code = 0, False
    room = limit - 2 * (len(fence) + 1)  # space kept for a closing and a reopening fence
    for raw in lines:
        # Lines longer than a message are hard-cut (rare: a minified JSON file, a long URL).
        for line in [raw[k:k + room] for k in range(0, len(raw), room)] or [""]:
            if size + len(line) + 1 > room and chunks[-1]:
                cur = chunks[-1]
                carried = []
                if in_code and cur[-1] == fence:
                    carried = [cur.pop()]  # an opening fence with nothing after it moves on whole
                elif in_code:
                    cur.append(fence)
                    carried = [fence]
                chunks.append(carried)
                size = sum(len(x) + 1 for x in carried)
            chunks[-1].append(line)
            size += len(line) + 1
        if raw.strip() == fence:
            in_code = not in_code
    return ["\n".join(c) for c in chunks if c] or [""]
