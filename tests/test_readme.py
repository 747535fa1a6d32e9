"""The README's generated tables (tools from the registry, settings from the settings class) are current."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_readme_tables_match_the_registry_and_settings():
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "readme_tables.py"), "--check"], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def test_the_tool_table_lists_every_registered_tool():
    from assistant.tools import REGISTRY

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("<!-- generated:tools -->")[1].split("<!-- /generated:tools -->")[0]
    listed = [line.split("`")[1] for line in block.splitlines() if line.startswith("| `")]
    assert listed == REGISTRY.names()
    assert {"list_models", "list_hardware"} <= set(listed)


def test_the_readmes_sizing_call_examples_pass_the_registrys_argument_check():
    """Issue 25: the resolve_model example passed `model`, which the tool refuses (its argument is `name`)."""
    import json
    import re
    from pathlib import Path

    from assistant.tools import REGISTRY

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    calls = re.findall(r"sizing call (\w+) --args '(\{.*?\})'", readme)
    calls += [(tool, args) for args, tool in re.findall(r"echo '(\{.*?\})' \| \S*sizing call (\w+) -", readme)]
    assert len(calls) >= 5 and ("resolve_model", '{"name": "千问2.5-72B"}') in calls
    for tool, args in calls:
        REGISTRY.parse_args(REGISTRY.get(tool), json.loads(args))  # raises SizingError on a wrong argument
