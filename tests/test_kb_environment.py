"""The knowledge base and the CLI in unfriendly environments (issue 16): a read-only home or cache
folder (a real read-only bind mount in a private mount namespace, since root ignores file modes), a
build killed half-way, a corrupt cache file, and the C locale with Python's UTF-8 coercion off."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from assistant.kb import KnowledgeBase, ensure_database, knowledge_hash

ROOT = Path(__file__).resolve().parents[1]
KNOWLEDGE = ROOT / "knowledge"
SIZING = str(Path(sys.executable).parent / "sizing")


def _clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SIZING_", "XDG_"))}
    return {**env, "SIZING_LLM": "offline", **extra}


def _can_mount_read_only(tmp_path: Path) -> bool:
    if os.geteuid() != 0 or not shutil.which("unshare"):
        return False
    probe = tmp_path / "probe"
    probe.mkdir(exist_ok=True)
    p = subprocess.run(["unshare", "-m", "sh", "-c", f"mount --bind -o ro {probe} {probe} && touch {probe}/x"],
                       capture_output=True, text=True)
    return "Read-only" in p.stderr


def run_read_only(tmp_path: Path, read_only: list[Path], argv: list[str], env: dict[str, str]):
    """Run ``argv`` with each folder of ``read_only`` unwritable: a read-only bind mount as root,
    file modes otherwise."""
    if _can_mount_read_only(tmp_path):
        mounts = " && ".join(f"mount --bind -o ro {d} {d}" for d in read_only)
        cmd = ["unshare", "-m", "sh", "-c", f'{mounts} && exec "$@"', "sh", *argv]
        return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    if os.geteuid() == 0:
        pytest.skip("root without unshare/mount: no way to make a folder read-only")
    for d in read_only:
        d.chmod(0o555)
    try:
        return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
    finally:
        for d in read_only:
            d.chmod(0o755)


def test_read_only_home_falls_back_to_the_temp_dir(tmp_path):
    home, tmp = tmp_path / "home", tmp_path / "tmp"
    home.mkdir()
    tmp.mkdir()
    p = run_read_only(tmp_path, [home], [SIZING, "call", "resolve_model", "--args", '{"name": "千问2.5-72B"}'],
                      _clean_env(HOME=str(home), TMPDIR=str(tmp)))
    assert p.returncode == 0, p.stderr
    assert '"id": "qwen2.5-72b"' in p.stdout.replace('":"', '": "')
    assert "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) <= 1
    assert list(tmp.glob("sizing-cache-*/kb-*.duckdb"))  # built in the temp dir instead


def test_no_writable_folder_is_one_line_naming_the_setting(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    if not _can_mount_read_only(tmp_path):
        pytest.skip("needs a private mount namespace (root) to make /tmp read-only")
    # Python's tempfile tries TMPDIR, /tmp, /var/tmp and the working folder: all read-only here.
    argv = ["env", "-C", str(home), SIZING, "call", "list_hardware"]
    p = run_read_only(tmp_path, [home, Path("/tmp"), Path("/var/tmp")], argv, _clean_env(HOME=str(home)))
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert "Traceback" not in p.stderr
    [message] = [line for line in p.stderr.splitlines() if line.startswith("error:")]
    assert "SIZING_CACHE_DIR" in message


def test_a_build_killed_half_way_leaves_nothing_behind(tmp_path):
    """A build that is killed (SIGKILL) between writing the temporary file and renaming it."""
    cache = tmp_path / "cache"
    holder = textwrap.dedent(f"""
        import sys, time
        import assistant.kb as kb
        real = kb.build_database
        def build_then_hang(knowledge_dir, target):
            real(knowledge_dir, target)
            print("built", flush=True)
            time.sleep(120)
        kb.build_database = build_then_hang
        kb.ensure_database(kb.Path({str(KNOWLEDGE)!r}), kb.Path({str(cache)!r}))
    """)
    proc = subprocess.Popen([sys.executable, "-c", holder], stdout=subprocess.PIPE, text=True, cwd=str(ROOT))
    try:
        assert proc.stdout.readline().strip() == "built"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(30)
    leftovers = [p.name for p in cache.iterdir() if not p.name.endswith(".duckdb")]
    assert leftovers  # what the killed build left

    path = ensure_database(KNOWLEDGE, cache)
    assert sorted(p.name for p in cache.iterdir()) == [path.name]
    kb = KnowledgeBase(path)
    try:
        assert any(r["id"] == "snt9b" for r in kb.hardware())
    finally:
        kb.close()


@pytest.mark.parametrize("damage", ["garbage", "truncated", "empty"])
def test_a_corrupt_cache_file_is_rebuilt(tmp_path, damage):
    cache = tmp_path / "cache"
    good = ensure_database(KNOWLEDGE, cache)
    assert good.name == f"kb-{knowledge_hash(KNOWLEDGE)}.duckdb"
    data = good.read_bytes()
    good.write_bytes({"garbage": os.urandom(len(data)), "truncated": data[: len(data) // 3], "empty": b""}[damage])
    kb = KnowledgeBase.open(KNOWLEDGE, cache)
    try:
        # hardware.csv: snt9b is 64 GB per card
        assert next(r for r in kb.hardware() if r["id"] == "snt9b")["memory_gb"] == 64
    finally:
        kb.close()
    assert good.stat().st_size > 0 and time.time() - good.stat().st_mtime < 60


C_LOCALE = {"PYTHONUTF8": "0", "LC_ALL": "C", "LANG": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONIOENCODING": ""}


@pytest.mark.parametrize("argv", [
    ["ask", "qwen2.5-7b 全参微调 4096 需要几张卡？"],
    ["config", "qwen2.5-7b", "--method", "full"],
])
def test_c_locale_without_utf8_mode(tmp_path, settings, argv):
    env = {**_clean_env(SIZING_CACHE_DIR=str(settings.resolved_cache_dir())), **C_LOCALE}
    env.pop("PYTHONIOENCODING")
    p = subprocess.run([SIZING, *argv], capture_output=True, env=env, timeout=180)
    err = p.stderr.decode("utf-8", "replace")
    assert p.returncode == 0 and "UnicodeEncodeError" not in err, err
    out = p.stdout.decode("utf-8")
    if argv[0] == "ask":
        # min_cards.csv: qwen2.5-7b full 4096 Snt9B: LLaMA-Factory 8 cards, MindSpeed-LLM 4 cards
        assert "8 张卡" in out and "4 张卡" in out
    else:
        assert "finetuning_type: full" in out


# ---------------------------------------------------------------- issue 25: a knowledge base planted in the temp fallback
def _planted_copy(tmp_path: Path) -> Path:
    """A knowledge base built from knowledge/ with one row changed (qwen2.5-72b LoRA 4096 LLaMA-Factory
    Snt9B: 1 card instead of min_cards.csv's 32), named as the real one's cache file would be."""
    from assistant.kb import build_database

    fake = tmp_path / "fake-knowledge"
    shutil.copytree(KNOWLEDGE, fake)
    table = fake / "tables" / "min_cards.csv"
    row = "qwen2.5-72b,qwen2.5-72b,lora,4096,LLaMA-Factory,Snt9B,32,"
    assert row in table.read_text()
    table.write_text(table.read_text().replace(row, "qwen2.5-72b,qwen2.5-72b,lora,4096,LLaMA-Factory,Snt9B,1,"))
    planted = tmp_path / f"kb-{knowledge_hash(KNOWLEDGE)}.duckdb"
    build_database(fake, planted)
    return planted


def _lora_4096_lf_snt9b(kb: KnowledgeBase) -> int:
    [row] = [r for r in kb.min_cards("qwen2.5-72b", "lora", "LLaMA-Factory", "Snt9B") if r["seq_len"] == 4096]
    return row["cards"]


@pytest.mark.parametrize("setup", ["folder of another user", "folder open to all", "file of another user"])
def test_a_knowledge_base_planted_in_the_temp_fallback_is_not_read(tmp_path, monkeypatch, setup):
    import tempfile

    from assistant.kb import fallback_cache_dir

    planted = _planted_copy(tmp_path)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    shared = fallback_cache_dir()
    shared.mkdir(mode=0o700)
    shutil.copy(planted, shared / planted.name)
    other = os.geteuid() + 4242
    if setup == "folder of another user":
        os.chown(shared, other, other)
    elif setup == "folder open to all":
        shared.chmod(0o777)
        (shared / planted.name).chmod(0o666)
    else:
        os.chown(shared / planted.name, other, other)
    unwritable = tmp_path / "a-file" / "cache"  # a folder under a file: cannot be created, so the fallback is used
    (tmp_path / "a-file").write_text("")
    kb = KnowledgeBase.open(KNOWLEDGE, unwritable)
    try:
        assert _lora_4096_lf_snt9b(kb) == 32  # min_cards.csv, not the planted 1
    finally:
        kb.close()
    if setup == "folder of another user":
        assert kb.path.parent != shared and kb.path.parent.stat().st_mode & 0o077 == 0
    else:
        assert kb.path.parent == shared and shared.stat().st_mode & 0o777 == 0o700
        assert kb.path.stat().st_uid == os.geteuid()


def test_our_own_private_fallback_is_reused(tmp_path, monkeypatch):
    import tempfile

    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    (tmp_path / "a-file").write_text("")
    first = ensure_database(KNOWLEDGE, tmp_path / "a-file" / "cache")
    mtime = first.stat().st_mtime_ns
    assert ensure_database(KNOWLEDGE, tmp_path / "a-file" / "cache") == first and first.stat().st_mtime_ns == mtime
