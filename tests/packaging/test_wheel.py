"""The built wheel carries its data: built from this checkout, installed into a fresh virtual environment
in another folder, it answers questions from the knowledge/ and prompts/ inside the package.

The new environment gets the wheel alone (`--no-deps`); its dependencies come from the environment
running the tests through a `.pth` line naming that environment's site-packages. Python reads `.pth`
files only in site folders, so the project's own editable-install hook there stays inert, and the test
checks that `assistant` is imported from the new environment, not from this checkout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """bin/ of a fresh virtual environment holding the wheel built from this checkout."""
    work = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                    "-w", str(work / "dist"), str(ROOT)], check=True, capture_output=True, text=True)
    (wheel,) = (work / "dist").glob("sizing_assistant-*.whl")
    env_dir = work / "env"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    env_python = env_dir / "bin" / "python"
    site = subprocess.run([str(env_python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    Path(site, "deps_of_the_test_env.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(env_python), "install", "-q", "--no-deps",
                    "--no-index", str(wheel)], check=True, capture_output=True, text=True)
    return env_dir / "bin"


def run(bin_dir: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SIZING_", "PYTHON"))}
    env["SIZING_CACHE_DIR"] = str(cwd / "cache")
    return subprocess.run([str(bin_dir / args[0]), *args[1:]], capture_output=True, text=True, cwd=cwd, env=env, timeout=120)


def test_the_installed_package_reads_its_own_data(installed, tmp_path):
    code = ("import assistant, assistant.settings as s; "
            "print(assistant.__file__); print(s.Settings().knowledge_dir); print(s.Settings().prompts_dir)")
    out = run(installed, "python", "-c", code, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    module, knowledge, prompts = (Path(line) for line in out.stdout.splitlines())
    env_dir = installed.parent
    for path in (module, knowledge, prompts):
        assert path.is_relative_to(env_dir) and not path.is_relative_to(ROOT), path
    assert (knowledge / "tables" / "min_cards.csv").is_file() and (prompts / "system.md").is_file()


def test_the_installed_cli_answers_from_the_vendor_table(installed, tmp_path):
    # knowledge/tables/min_cards.csv, seed row 33 (ModelArts minimum-cards table, 2025-06-24):
    # Qwen2.5-72B, full fine-tuning, 4096 tokens, LLaMA-Factory, Snt9B -> 64 cards.
    args = {"model": "qwen2.5-72b", "strategy": "full", "seq_len": 4096, "framework": "LLaMA-Factory", "hardware": "Snt9B"}
    out = run(installed, "sizing", "call", "min_cards", "--args", json.dumps(args), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["cards"] == 64

    ask = run(installed, "sizing", "ask", "--json",
              "How many Snt9B cards to fully fine-tune Qwen2.5-72B at 4096 tokens with LLaMA-Factory?", cwd=tmp_path)
    assert ask.returncode == 0, ask.stderr
    answer = json.loads(ask.stdout)
    assert answer["model"] == "offline" and "min_cards" in [c["name"] for c in answer["tool_calls"]]
    assert "64 cards" in answer["answer"].replace("*", "")
