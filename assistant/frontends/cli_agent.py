"""`sizing ask` and `sizing chat`: the agent on the command line. LangChain and rich are imported
inside the commands so that `sizing call` stays fast."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

LLM_OPTION = typer.Option("--llm", help="Chat model: 'offline' (default), a provider string such as 'openai:gpt-4o-mini', "
                          "or a model name served at SIZING_LLM_BASE_URL. Overrides SIZING_LLM.")


def _assistant(llm: str | None):
    """Build the assistant or exit with one line (missing key, unreachable endpoint, bad provider)."""
    from ..agent import Assistant, LLMUnavailable
    from ..context import Context

    try:
        return Assistant(Context.create(), llm=llm)
    except LLMUnavailable as e:
        typer.echo(f"error: {e.message}", err=True)
        raise typer.Exit(2) from None


def _emit(obj) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def ask_cmd(
    question: Annotated[str, typer.Argument(help="The question; '-' reads one request per line from stdin: a plain "
                                            "question, or a JSON object {\"question\": ..., \"history\": [...]} as REST's /v1/ask takes.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print {answer, tool_calls, model, files, notice} as JSON.")] = False,
    llm: Annotated[str | None, LLM_OPTION] = None,
):
    """Ask one question (Chinese or English) and print the answer, with the tool calls behind it."""
    from ..agent import LLMUnavailable
    from ..answer import AskLine

    assistant = _assistant(llm)
    lines = (line.rstrip("\r\n") for line in sys.stdin) if question == "-" else iter([question])
    code = 0
    for line in lines:
        if question == "-" and not line.strip():
            continue
        req = AskLine.read(line) if question == "-" else AskLine(question=line or " ")
        if isinstance(req, str):
            if as_json:
                _emit({"answer": "", "error": {"code": "invalid_input", "message": req}, "tool_calls": [], "model": assistant.model_name})
            else:
                typer.echo(f"error: {req}", err=True)
            code = 2
            continue
        try:
            ans = assistant.ask(req.question, req.history or None)
        except LLMUnavailable as e:
            if as_json:
                _emit({"answer": "", "error": {"code": e.code, "message": e.message}, "tool_calls": [], "model": assistant.model_name})
            else:
                typer.echo(f"error: {e.message}", err=True)
            code = 2
            continue
        if as_json:
            _emit(ans.model_dump(mode="json"))
        else:
            _print_answer(ans)
    raise typer.Exit(code)


def _print_answer(ans, console=None) -> None:
    from rich.console import Console

    console = console or Console()
    if ans.notice:
        console.print(f"[yellow]note:[/] {ans.notice}", markup=True, highlight=False)
    for c in ans.tool_calls:
        console.print(f"[dim]· {c.name}({json.dumps(c.args, ensure_ascii=False)})[/]", markup=True, highlight=False)
    _print_markdown(console, ans.answer)


def _print_markdown(console, text: str) -> None:
    """Rendered on a terminal; the Markdown source as is when piped (configs stay copy-pasteable)."""
    from rich.markdown import Markdown

    if console.is_terminal:
        console.print(Markdown(text))
    else:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()


def chat_cmd(llm: Annotated[str | None, LLM_OPTION] = None):
    """A conversation in the terminal: follow-ups reuse the model, method and hardware. /reset, /exit."""
    from rich.console import Console

    from ..agent import LLMUnavailable
    from ..answer import ChatTurn

    console = Console()
    assistant = _assistant(llm)
    console.print(f"[bold]sizing chat[/] · model: {assistant.model_name} · /reset clears the history, /exit quits", markup=True)
    history: list[ChatTurn] = []
    while True:
        try:
            q = console.input("[bold cyan]you>[/] ")
        except (EOFError, KeyboardInterrupt):
            console.print()
            return
        q = q.strip()
        if not q:
            continue
        if q in ("/exit", "/quit", "exit", "quit"):
            return
        if q == "/reset":
            history.clear()
            console.print("[dim]history cleared[/]", markup=True)
            continue
        try:
            final = None
            with console.status("thinking…"):
                for ev in assistant.stream(q, history):
                    if ev.kind == "tool_call":
                        console.print(f"[dim]· {ev.name}({json.dumps(ev.args, ensure_ascii=False)})[/]", markup=True, highlight=False)
                    elif ev.kind == "final":
                        final = ev.answer
        except LLMUnavailable as e:
            console.print(f"[red]error:[/] {e.message}", markup=True, highlight=False)
            continue
        if final is None:  # the stream ended without its final event
            console.print("[red]error:[/] no answer came back; try again.", markup=True, highlight=False)
            continue
        if final.notice:
            console.print(f"[yellow]note:[/] {final.notice}", markup=True, highlight=False)
        _print_markdown(console, final.answer)
        history += [ChatTurn(role="user", content=q), ChatTurn(role="assistant", content=final.answer)]


def register(app: typer.Typer) -> None:
    app.command("ask")(ask_cmd)
    app.command("chat")(chat_cmd)
