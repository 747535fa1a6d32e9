"""Front ends are thin modules over the core and do not import each other. Allowed: a front end's
own helper modules (web_* for web.py, slack_format for slack.py), the CLI command modules launching
the front end they name, and server.py, the composition root that puts REST, MCP and Slack in one app."""

from __future__ import annotations

import ast
from pathlib import Path

FRONTENDS = Path(__file__).resolve().parents[2] / "assistant" / "frontends"
ALLOWED = {
    "server": {"api", "mcp_server", "slack"},
    "cli_api": {"mcp_server", "server"},
    "cli_web": {"web"},
    "cli_slack": {"slack"},
    "web": {"web_chat", "web_plan", "web_tables"},
    "slack": {"slack_format"},
}


def sibling_imports(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                out.add(node.module.split(".")[0])
            else:
                out.update(a.name for a in node.names)
    return out


def test_front_ends_do_not_import_each_other():
    for path in sorted(FRONTENDS.glob("*.py")):
        name = path.stem
        if name.startswith("cli") and name not in ALLOWED:  # CLI plumbing: cli.py and its command modules
            siblings = {s for s in sibling_imports(path) if not s.startswith("cli")}
        else:
            siblings = sibling_imports(path)
        extra = siblings - ALLOWED.get(name, set())
        assert not extra, f"{path.name} imports front end(s) {sorted(extra)}"


def test_api_and_mcp_share_the_core_runner():
    assert "mcp_server" not in sibling_imports(FRONTENDS / "api.py")
    assert "api" not in sibling_imports(FRONTENDS / "mcp_server.py")
