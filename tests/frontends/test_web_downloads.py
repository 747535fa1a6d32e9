"""The web app's download route (web_downloads) without a browser: only files the app wrote under its
download folder are found, by their folder key and name; links carry the app's address, never a path."""

from __future__ import annotations

from assistant.answer import Answer, GeneratedFile
from assistant.frontends import web_downloads
from assistant.frontends.web_chat import ChatRenderer


def test_only_files_written_under_the_download_folder_are_found(tmp_path):
    files = tmp_path / "files"
    (files / "0123456789ab").mkdir(parents=True)
    (files / "0123456789ab" / "a.yaml").write_text("x: 1\n")
    (files / "tables" / "0123456789abcdef").mkdir(parents=True)
    (files / "tables" / "0123456789abcdef" / "min_cards.csv").write_text("a\n")
    (tmp_path / "secret.txt").write_text("no")
    found = web_downloads.download_path
    assert found(files, "0123456789ab/a.yaml") == (files / "0123456789ab" / "a.yaml").resolve()
    assert found(files, "tables/0123456789abcdef/min_cards.csv") is not None
    for bad in ["../secret.txt", "0123456789ab/../../secret.txt", "0123456789ab/missing.yaml", "0123456789ab/.a.tmp",
                "/etc/passwd", "tables/../0123456789ab/a.yaml", "0123456789ab", "xyz/a.yaml"]:
        assert found(files, bad) is None, bad


def test_chat_files_link_to_the_route_under_the_apps_address(tmp_path):
    r = ChatRenderer(files_dir=tmp_path, root="https://sizing.example/app")
    r.finish(Answer(answer="Here.", model="offline", files=[GeneratedFile(filename="ds z2.json", content="{}", format="deepspeed_json")]))
    value = r.messages[-1]["content"]["file"]
    key = r.files[0].parent.name
    assert value["url"] == value["path"] == f"https://sizing.example/app/download/{key}/ds_z2.json"
    assert value["orig_name"] == "ds_z2.json" and value["mime_type"] == "application/json" and value["is_stream"]
    assert str(tmp_path) not in str(r.messages)
