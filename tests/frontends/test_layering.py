"""The package is layered (ARCHITECTURE.md): a module imports only its own layer and the layers below,
and every module has a layer. Front ends are thin modules over the core and do not import each other.
Allowed: a front end's own helper modules (web_* for web.py, slack_format and slack_store for slack.py), the CLI
command modules launching the front end they name, and server.py, the composition root that puts
REST, MCP and Slack in one app."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "assistant"
FRONTENDS = PACKAGE / "frontends"

# Bottom to top. A top-level module or subpackage of assistant/ goes in exactly one layer.
LAYERS = [
    {"assistant", "assistant.settings", "assistant.errors", "assistant.answer", "assistant.wordings"},  # shared types and settings
    {"assistant.notes", "assistant.note_kinds", "assistant.kb"},  # knowledge/ -> DuckDB, note index
    {"assistant.resolve", "assistant.estimate", "assistant.configs", "assistant.hf_config", "assistant.what_fits",
     "assistant.setup_check"},  # pure domain functions
    {"assistant.context"},  # the dependencies a tool receives (settings, kb, resolver)
    {"assistant.tools"},  # the registry and the LLM-facing tools
    {"assistant.offline"},  # composed over tool calls
    {"assistant.llm", "assistant.agent"},  # the agent loop over the tools, and its guards for a real LLM
    {"assistant.httpguard"},  # the HTTP policy the servers share
    {"assistant.frontends"},
]
ALLOWED = {
    "server": {"api", "mcp_server", "slack"},
    "cli_api": {"mcp_server", "server"},
    "cli_web": {"web"},
    "cli_slack": {"slack"},
    "web": {"web_chat", "web_downloads", "web_history", "web_plan_form", "web_setup", "web_tables"},
    "web_history": {"web_chat"},
    "web_plan_form": {"web_chart", "web_plan"},
    "web_chart": {"web_plan"},
    "web_chat": {"web_downloads"},
    "web_tables": {"web_downloads"},
    "slack": {"slack_format", "slack_store"},
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


def unit(module: str) -> str:
    """The layer unit of a dotted module name: assistant.X (a top-level module or subpackage)."""
    return ".".join(module.split(".")[:2])


def assistant_imports(path: Path) -> set[str]:
    """Every assistant module that ``path`` imports, at the top or inside functions, resolved to dotted names."""
    module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    package = package.removesuffix(".__init__")
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
            target = ".".join(base + ([node.module] if node.module else []))
            out |= {f"{target}.{a.name}" for a in node.names} if node.module is None else {target}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("assistant"):
            out.add(str(node.module))
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("assistant")}
    return out


def rank(module: str) -> int:
    return next(i for i, layer in enumerate(LAYERS) if unit(module) in layer)


def test_every_module_has_a_layer():
    units = {unit(".".join(p.relative_to(PACKAGE.parent).with_suffix("").parts)) for p in PACKAGE.rglob("*.py")}
    units = {u.removesuffix(".__init__") for u in units}
    placed = set().union(*LAYERS)
    assert not units - placed, f"add {sorted(units - placed)} to LAYERS here and to ARCHITECTURE.md"


def test_no_module_imports_a_layer_above_its_own():
    upward = []
    for path in sorted(PACKAGE.rglob("*.py")):
        me = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__")
        upward += [f"{me} -> {dep}" for dep in sorted(assistant_imports(path))
                   if unit(dep) != unit(me) and rank(dep) > rank(me)]
    assert not upward, "upward imports: " + "; ".join(upward)
