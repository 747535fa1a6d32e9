"""The README's generated tables: the tool registry and the settings.

    .venv/bin/python scripts/readme_tables.py --check   # exit 1 and name the stale table (tests/test_readme.py)
    .venv/bin/python scripts/readme_tables.py --write   # rewrite them in place (`make readme`)

Each table sits between `<!-- generated:NAME -->` and `<!-- /generated:NAME -->` in README.md."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def first_sentence(text: str) -> str:
    """Up to the first full stop that ends a sentence (not one inside a number or 'e.g.')."""
    match = re.search(r"(?<!\be\.g)(?<!\bi\.e)\.(\s|$)", text)
    return text[: match.start() + 1] if match else text


def tools_table(schemas: list[dict[str, Any]]) -> str:
    rows = ["| tool | what it answers | arguments (required in bold) |", "|---|---|---|"]
    for s in schemas:
        props = s["input_schema"].get("properties", {})
        required = set(s["input_schema"].get("required", []))
        args = [f"**`{a}`**" if a in required else f"`{a}`" for a in props]
        rows.append(f"| `{s['name']}` | {_cell(first_sentence(s['description']))} | {', '.join(args) or '–'} |")
    return "\n".join(rows)


def settings_table(docs: list[tuple[str, str, str]]) -> str:
    rows = ["| variable | default | description |", "|---|---|---|"]
    rows += [f"| `{env}` | `{default}` | {_cell(desc)} |" for env, default, desc in docs]
    return "\n".join(rows)


def generators() -> dict[str, Callable[[], str]]:
    from assistant.settings import Settings
    from assistant.tools import REGISTRY

    return {"tools": lambda: tools_table(REGISTRY.schemas()), "settings": lambda: settings_table(Settings.documentation())}


def render(readme: str) -> str:
    """README text with every generated table replaced by its current rendering."""
    for name, make in generators().items():
        pattern = re.compile(rf"(<!-- generated:{name} -->\n).*?(<!-- /generated:{name} -->)", re.S)
        if not pattern.search(readme):
            raise SystemExit(f"README.md has no <!-- generated:{name} --> block")
        table = make() + "\n"
        readme = pattern.sub(lambda m, t=table: m.group(1) + t + m.group(2), readme)
    return readme


def main(argv: list[str]) -> int:
    current = README.read_text(encoding="utf-8")
    wanted = render(current)
    if "--write" in argv:
        README.write_text(wanted, encoding="utf-8")
        return 0
    if wanted != current:
        print("README.md's generated tables are stale: run `make readme` (scripts/readme_tables.py --write)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
