"""Settings: every field documented, the README's table in sync, env parsing."""

from __future__ import annotations

from pathlib import Path

from assistant.settings import Settings

README = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")


def test_every_setting_is_described_and_in_the_readme():
    for env, _default, desc in Settings.documentation():
        assert desc, env
        assert f"`{env}`" in README, f"{env} missing from README settings section (run `sizing settings`)"


def test_api_keys_from_env(monkeypatch):
    monkeypatch.setenv("SIZING_API_KEYS", "k1, k2")
    assert Settings().api_keys == ["k1", "k2"]
    monkeypatch.setenv("SIZING_API_KEYS", '["k3"]')
    assert Settings().api_keys == ["k3"]


def test_slack_reads_slack_variable_names(monkeypatch):
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-test")
    monkeypatch.setenv("SLACK_SIGNING_SECRET", "s3cret")
    s = Settings()
    assert s.slack_bot_token.get_secret_value() == "xoxb-test"
    assert s.slack_signing_secret.get_secret_value() == "s3cret"
