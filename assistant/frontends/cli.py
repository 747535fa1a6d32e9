"""`sizing` command line: the entry point. A plain ``sizing call TOOL [--args JSON | -]`` is answered
here without importing typer or any tool module but the one that defines TOOL, because agents call
the CLI once per tool and pay its start-up each time; everything else goes to the typer app in
``cli_app.py`` (which imports heavy libraries only inside the commands that need them)."""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..context import Context
    from ..tools.registry import Registry

for _k, _v in {"GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1",
               "ANONYMIZED_TELEMETRY": "False", "DO_NOT_TRACK": "1", "FASTMCP_SHOW_SERVER_BANNER": "false",
               "FASTMCP_CHECK_FOR_UPDATES": "off", "LANGCHAIN_TRACING_V2": "false"}.items():
    os.environ.setdefault(_k, _v)


def context() -> Context:
    from ..context import Context

    return Context.create()


def registry(tool: str | None = None) -> Registry:
    """Every tool, or (for one call) only the tool modules up to the one that defines ``tool``."""
    from .. import tools

    return tools.REGISTRY if tool is None else tools.registry_for(tool)


def print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def run_call(name: str, stdin: str | None, args: str) -> int:
    """`sizing call`: print the result (or the canonical error) as JSON; the exit code (1 on an error result)."""
    from ..errors import SizingError

    if stdin is not None and stdin != "-":
        message = f"Unexpected argument {stdin!r}; use '-' for stdin or --args."
        print_json(SizingError("invalid_arguments", message).to_model().model_dump())
        return 2
    reg, ctx = registry(name), context()
    lines = (line for line in sys.stdin if line.strip()) if stdin == "-" else [args]
    code = 0
    for line in lines:
        out = reg.call_json(name, line, ctx)
        code = code or (1 if "error" in out else 0)
        print_json(out)
    return code


def plain_call(argv: list[str]) -> tuple[str, str | None, str] | None:
    """(tool, '-' or None, arguments) when ``argv`` is ``call TOOL [-] [--args JSON]``; None for anything
    else (help, other commands, unknown options), which the typer app parses and explains."""
    if len(argv) < 2 or argv[0] != "call" or argv[1].startswith("-"):
        return None
    name, rest, stdin, args = argv[1], argv[2:], None, "{}"
    while rest:
        head = rest.pop(0)
        if head == "--args" and rest:
            args = rest.pop(0)
        elif head.startswith("--args="):
            args = head.removeprefix("--args=")
        elif head == "-" and stdin is None:
            stdin = head
        else:
            return None
    return name, stdin, args


def __getattr__(attr: str) -> Any:
    if attr == "app":  # tests and `register(app)` callers use the typer app by this name
        from .cli_app import app

        return app
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")


def main() -> None:
    for stream in (sys.stdout, sys.stderr):  # the C locale without UTF-8 mode makes them ASCII: answers are not
        if hasattr(stream, "reconfigure") and stream.encoding.lower().replace("-", "") != "utf8":
            stream.reconfigure(encoding="utf-8", errors="replace")
    if sys.getfilesystemencoding().lower().replace("-", "") != "utf8":  # argv arrived as escaped bytes: read UTF-8
        sys.argv = [os.fsencode(a).decode("utf-8", "replace") for a in sys.argv]
    try:
        call = plain_call(sys.argv[1:])
        if call is not None:
            raise SystemExit(run_call(*call))
        from .cli_app import app

        app()
    except Exception as e:  # a SizingError (e.g. no writable folder for the knowledge base): one line
        from ..errors import SizingError  # here, not at the top: `sizing call` starts without pydantic

        if not isinstance(e, SizingError):
            raise
        print(f"error: {e.message}", file=sys.stderr)
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
