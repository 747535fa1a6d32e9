"""The web chat's pieces without a browser: turning agent events into chat messages, the Tables tab
filter and CSV, the Plan tab's chart rows, and building the app (with an LLM that cannot start)."""

from __future__ import annotations

import csv

import pytest

from assistant.answer import AgentEvent, Answer, GeneratedFile
from assistant.frontends import web_plan, web_tables
from assistant.frontends.web_chat import ChatRenderer, collect_sources, step_content


def train_form(model: str, **kw) -> dict:
    return {"model": model, "method": "lora", "stage": "sft", "seq_len": 4096, "hardware": "snt9b",
            "framework": "LLaMA-Factory", "micro_batch": 1, "precision": "bf16", **kw}


def infer_form(model: str, max_model_len: int, **kw) -> dict:
    return {"model": model, "max_model_len": max_model_len, "hardware": "snt9b", "gpu_memory_utilization": 0.9,
            "concurrency": 1, **kw}


MIN_CARDS_ARGS = {"model": "Qwen2.5-72B-Instruct", "strategy": "lora", "seq_len": 4096,
                  "framework": "LLaMA-Factory", "hardware": "Snt9B"}


def test_tool_step_shows_arguments_result_and_source(call):
    result = call("min_cards", **MIN_CARDS_ARGS)
    r = ChatRenderer(files_dir=None)
    r.feed(AgentEvent(kind="tool_call", name="min_cards", args=MIN_CARDS_ARGS))
    assert r.messages[0]["metadata"]["status"] == "pending"
    r.feed(AgentEvent(kind="tool_result", name="min_cards", result=result))
    step = r.messages[0]
    assert step["metadata"]["status"] == "done" and step["metadata"]["title"] == "🔧 min_cards"
    # the vendor table's cell for Qwen2.5-72B LoRA 4096 LLaMA-Factory Snt9B is 32*Ascend (seed 004)
    assert '"cards": 32' in step["content"]
    assert "Qwen2.5-72B-Instruct" in step["content"]  # arguments kept even though the result event had none
    # source first, named as users know the page (title and date), not by the transcription file
    assert "ModelArts: 模型最小卡数配置, 2025-06-24" in step["content"].split("**Arguments**")[0]
    assert step["metadata"]["log"] == "ModelArts: 模型最小卡数配置, 2025-06-24"
    assert ".txt" not in step["content"].split("**Arguments**")[0] and ".txt" not in step["metadata"]["log"]


def test_tool_error_is_a_readable_step(call):
    result = call("min_cards", model="gpt-99-ultra")
    r = ChatRenderer(files_dir=None)
    r.feed(AgentEvent(kind="tool_call", name="min_cards", args={"model": "gpt-99-ultra"}))
    r.feed(AgentEvent(kind="tool_result", name="min_cards", result=result))
    step = r.messages[0]
    assert step["metadata"]["title"].startswith("⚠️") and "error" in step["metadata"]["title"]
    assert "unknown_model" in step["content"] and "gpt-99-ultra" in step["content"]


def test_text_streams_then_final_answer_replaces_it_and_files_are_served(tmp_path):
    r = ChatRenderer(files_dir=tmp_path)
    for chunk in ("You need ", "32 cards."):
        r.feed(AgentEvent(kind="text", text=chunk))
    assert r.messages == [{"role": "assistant", "content": "You need 32 cards."}]
    yaml_text = "finetuning_type: lora\ncutoff_len: 8192\ntemplate: llama3\n"
    ans = Answer(answer="Here is the config.", model="offline",
                 files=[GeneratedFile(filename="../../etc/llama3 8b.yaml", content=yaml_text, format="llamafactory_yaml")])
    r.feed(AgentEvent(kind="final", answer=ans))
    assert r.messages[0]["content"] == "Here is the config."
    code, file_msg = r.messages[1], r.messages[2]
    assert code["content"].startswith("**../../etc/llama3 8b.yaml**\n```yaml\nfinetuning_type: lora")
    path = r.files[0]
    assert file_msg["content"] == {"path": str(path)}
    assert path.parent.parent == tmp_path and path.name == "llama3_8b.yaml"  # no escaping the folder
    assert path.read_text() == yaml_text


def test_file_already_in_the_answer_is_not_repeated(tmp_path):
    content = '{"zero_optimization": {"stage": 2}}'
    ans = Answer(answer=f"```json\n{content}\n```", model="offline",
                 files=[GeneratedFile(filename="ds_z2.json", content=content, format="deepspeed_json")])
    r = ChatRenderer(files_dir=tmp_path)
    r.finish(ans)
    assert [m["content"] if isinstance(m["content"], str) else "file" for m in r.messages] == [ans.answer, "file"]


def test_collect_sources_walks_rows_once():
    res = {"source": "seeds/a.txt (Page A, 2025-01-01)", "rows": [
        {"source": "seeds/b.txt (Page B)"}, {"source": "seeds/a.txt (Page A, 2025-01-01)"},
        {"x": {"citation": "doc c"}}, {"source": "min_cards"}, {"source": "research/x.md"}]}
    # pages by title, each once; a bare table name or a bare file is no source a user knows
    assert collect_sources(res) == ["Page A, 2025-01-01", "Page B", "doc c"]
    assert "computed by the tool" in step_content({}, {"total_gib": 1.0})


def test_table_filter_finds_the_vendor_row(ctx, tmp_path):
    df, caption, path = web_tables.table_view(ctx, tmp_path, "min_cards", "qwen2.5-72b lora LLaMA-Factory snt9b 4096")
    # both Snt9B and Snt9B23 contain "snt9b"; the Snt9B row says 32 cards, the Snt9B23 row 32 DIE
    assert sorted(df["hardware"]) == ["Snt9B", "Snt9B23"] and set(df["cards"]) == {32}
    assert "2 of " in caption and "ModelArts: 模型最小卡数配置, 2025-06-24" in caption and "seeds/" not in caption
    with path.open() as fh:
        rows = list(csv.DictReader(fh))
    assert [r["cards"] for r in rows] == ["32", "32"] and path.name == "min_cards.csv"
    # the same filter reuses the same file; another filter writes another
    assert web_tables.table_view(ctx, tmp_path, "min_cards", " QWEN2.5-72B  lora LLaMA-Factory snt9b 4096")[2] == path
    assert web_tables.table_view(ctx, tmp_path, "min_cards", "qwen2-72b")[2] != path


def test_table_view_every_table_and_unknown(ctx, tmp_path):
    for name in web_tables.available_tables(ctx):
        df, caption, path = web_tables.table_view(ctx, tmp_path, name, "")
        assert len(df) == len(ctx.kb.table_rows(name)) > 0 and path.exists()
    df, caption, path = web_tables.table_view(ctx, tmp_path, "notes; drop table x", "")
    assert path is None and "Unknown table" in caption and df.empty


def test_memory_chart_rows_stack_parts_against_capacity():
    memory = {"weights_gib": 10.0, "gradients_gib": 2.5, "optimizer_gib": 5.0, "activations_gib": 0,
              "total_gib": 17.5, "allocated_gib": 17.0, "low_gib": 16.6, "high_gib": 19.1, "verdict": "fits",
              "metric": "reserved", "usable_gib": 58.0, "headroom_gib": 40.5, "host_ram_gib": 3.0, "fits": True,
              "how": {"weights": "..."}}
    rows = web_plan.memory_chart_rows(memory)
    est = {r["part"]: r["GiB"] for r in rows if r["bar"] == web_plan.ESTIMATE_BAR}
    assert est == {"weights": 10.0, "gradients": 2.5, "optimizer": 5.0}
    # the range as its own bar: the low end, then the likely spread up to the high end
    assert {r["part"]: r["GiB"] for r in rows if r["bar"] == web_plan.RANGE_BAR} == {"range low end": 16.6, "likely range": 2.5}
    assert [r["GiB"] for r in rows if r["bar"] == web_plan.CAPACITY_BAR] == [58.0]
    assert web_plan.memory_chart_rows(None) == []
    # the cached blocks are a part of the pool's estimate, with their own colour
    cached = web_plan.memory_chart_rows({**memory, "cached_gib": 1.5})
    assert {"bar": web_plan.ESTIMATE_BAR, "part": "cached", "GiB": 1.5} in cached and "cached" in web_plan.PART_COLOURS


def test_plan_training_view_puts_the_vendor_row_beside_the_estimate(ctx):
    md, table_md, rows = web_plan.plan_training_view(ctx, train_form("Qwen2.5-72B-Instruct"))
    assert md.startswith("### Estimate: **") and "DeepSpeed ZeRO stage" in md
    assert "**Model:** qwen2.5-72b (from “Qwen2.5-72B-Instruct”)" in md
    # the minimum-card table's row for this case: 32*Ascend (seed 004), with its source
    assert "| min_cards | **32** |" in table_md and "ModelArts: 模型最小卡数配置, 2025-06-24" in table_md and "seeds/" not in table_md
    est = [r for r in rows if r["bar"] == web_plan.ESTIMATE_BAR]
    cap = [r["GiB"] for r in rows if r["bar"] == web_plan.CAPACITY_BAR]
    assert {"weights", "activations"} <= {r["part"] for r in est}
    assert cap == [60.97]  # a 64 GB Snt9B card reports ~60.97 GiB usable (hardware catalog)
    # the summary says the point, its range and the verdict; the chart has the range as its own bar
    mem = web_plan.REGISTRY.call_json("plan_training", web_plan.training_args(train_form("Qwen2.5-72B-Instruct")), ctx)["memory"]
    word = {"fits": "fits", "tight": "tight", "does_not_fit": "does not fit"}[mem["verdict"]]
    assert (f"about {mem['total_gib']:.1f} GiB, likely {mem['low_gib']:.1f}-{mem['high_gib']:.1f} GiB (estimate) of "
            f"61.0 GiB per device — {word}") in md
    # and what the figure stands for: the allocator's pool (the result's metric), the tensors alone beside it
    assert mem["metric"] == "reserved"
    assert (f"{word} (the figure is the allocator's pool with the runtime beside it, what nvidia-smi and npu-smi show; the tensors alone "
            f"{mem['allocated_gib']:.1f} GiB).") in md
    assert [r["part"] for r in rows if r["bar"] == web_plan.RANGE_BAR] == ["range low end", "likely range"]


def test_plan_inference_view_chart_uses_the_kv_cache_per_token(ctx, call):
    md, table_md, rows = web_plan.plan_inference_view(ctx, infer_form("qwen2.5-72b", 32768))
    # Qwen2.5-72B: 80 layers, 8 KV heads of 128 dims, bf16: 2 x 80 x 8 x 128 x 2 B = 327,680 B per token
    assert "327,680" in md
    tp = call("estimate_inference", model="qwen2.5-72b", max_model_len=32768, hardware="snt9b")["tp"]
    kv = next(r["GiB"] for r in rows if r["part"] == "KV cache for the context")
    assert kv == round(327_680 / tp * 32768 / 2**30, 2)
    # newest vLLM table: Qwen2.5-72B on 64 GB cards, 4 cards at 32K ("4/32")
    assert "| vllm-newest | 64 | 4 | 32768 |" in table_md and "modelarts_llm_infer_5910003" in table_md


def test_plan_inference_view_takes_the_kv_cache_precision(ctx):
    # Qwen2.5-72B with an fp8 KV cache: 2 x 80 x 8 x 128 x 1 B = 163,840 B per token on an H100
    form = {**infer_form("qwen2.5-72b", 32768), "hardware": "h100-80g", "kv_cache_dtype": "fp8"}
    md, _, _ = web_plan.plan_inference_view(ctx, form)
    assert "163,840" in md and "--kv-cache-dtype fp8" in md
    md, _, rows = web_plan.plan_inference_view(ctx, {**form, "hardware": "snt9b"})
    assert md.startswith("⚠️") and "int8" in md and rows == []


def test_plan_form_reports_tool_errors(ctx):
    md, table_md, rows = web_plan.plan_training_view(ctx, train_form("gpt-99-ultra"))
    assert md.startswith("⚠️ **unknown_model**") and rows == []
    md, table_md, rows = web_plan.plan_inference_view(ctx, infer_form("qwen2.5-72b", -5))
    assert md.startswith("⚠️") and rows == []
    assert web_plan.schema_choices("plan_training", "method") == ["full", "freeze", "lora", "qlora"]


def test_build_app_falls_back_to_offline_when_the_llm_cannot_start(ctx, settings, tmp_path):
    pytest.importorskip("assistant.agent")
    from assistant.agent import Assistant
    from assistant.frontends.web import build_app

    def factory(c, llm=None):
        if llm != "offline":
            raise RuntimeError("no credentials for openai:gpt-test")
        return Assistant(c, llm="offline")

    s = settings.model_copy(update={"llm": "openai:gpt-test", "llm_fallback": True})
    demo = build_app(ctx, s, assistant_factory=factory, files_dir=tmp_path)
    assert demo.sizing_assistant.model_name == "offline"
    notices = [b for b in demo.blocks.values() if getattr(b, "elem_id", None) == "llm-notice"]
    assert notices and "no credentials" in notices[0].value and notices[0].visible
    with pytest.raises(RuntimeError):
        build_app(ctx, s.model_copy(update={"llm_fallback": False}), assistant_factory=factory, files_dir=tmp_path)


def test_sizing_web_reports_startup_problems_in_one_line(monkeypatch, tmp_path):
    import socket

    from typer.testing import CliRunner

    from assistant.frontends.cli import app

    monkeypatch.setenv("SIZING_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("SIZING_LLM_API_KEY", raising=False)
    monkeypatch.delenv("SIZING_LLM_BASE_URL", raising=False)
    monkeypatch.setenv("SIZING_LLM_FALLBACK", "false")
    res = CliRunner().invoke(app, ["web", "--port", "1", "--llm", "openai:gpt-test"])
    assert res.exit_code == 2 and "missing API key" in res.output and "Traceback" not in res.output

    monkeypatch.setenv("SIZING_LLM_FALLBACK", "true")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        res = CliRunner().invoke(app, ["web", "--port", str(busy.getsockname()[1]), "--llm", "offline"])
    assert res.exit_code == 2 and "cannot serve" in res.output


def test_no_table_row_is_not_shown_as_a_failure(call):
    # the recipe table has no LoRA row for qwen2.5-72b (only the minimum-card table lists it)
    result = call("training_recipe", model="qwen2.5-72b", strategy="lora", seq_len=4096)
    assert result["error"]["code"] == "no_table_row"
    r = ChatRenderer(files_dir=None)
    r.feed(AgentEvent(kind="tool_call", name="training_recipe", args={"model": "qwen2.5-72b"}))
    r.feed(AgentEvent(kind="tool_result", name="training_recipe", result=result))
    assert r.messages[0]["metadata"]["title"] == "ℹ️ training_recipe — no table row"


def test_prune_files_removes_only_old_download_folders(tmp_path):
    import os
    import time

    from assistant.frontends.web import prune_files

    old, new, old_csv = tmp_path / "a1", tmp_path / "b2", tmp_path / "tables" / "c3"
    for d in (old, new, old_csv):
        d.mkdir(parents=True)
        (d / "f.yaml").write_text("x: 1\n")
    past = time.time() - 2 * 86_400
    for d in (old, old_csv):
        os.utime(d, (past, past))
    prune_files(tmp_path)
    assert not old.exists() and not old_csv.exists() and new.exists() and (tmp_path / "tables").exists()


class _BrokenAssistant:
    """Calls a tool, then fails (an LLM endpoint dropping mid-answer), or ends without a final event."""

    model_name = "openai:broken"

    def __init__(self, ctx, llm=None, final=False):
        self.final = final

    def stream(self, question, history=None):
        yield AgentEvent(kind="tool_call", name="min_cards", args={"model": "qwen2.5-72b"})
        if not self.final:
            raise ConnectionError("endpoint went away")


def _answer_fn(demo):
    return next(f.fn for f in demo.fns.values() if getattr(f.fn, "__name__", "") == "answer")


def test_failing_agent_leaves_a_readable_message_and_the_history_intact(ctx, settings, tmp_path):
    from assistant.frontends.web import EMPTY_REPLY, build_app

    demo = build_app(ctx, settings, assistant_factory=_BrokenAssistant, files_dir=tmp_path)
    answer = _answer_fn(demo)
    turns = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    *_, (chat, new_turns, banner) = answer("qwen2.5-72b 几张卡", [], turns)
    assert chat[0]["metadata"]["title"].endswith("— interrupted")
    assert chat[-1]["content"].startswith("回答失败: ConnectionError: endpoint went away")
    assert new_turns == turns and banner["visible"] is True
    # empty input: a hint, no call to the agent
    [(chat, new_turns, _)] = list(answer("  ", [], turns))
    assert chat == [{"role": "assistant", "content": EMPTY_REPLY}] and new_turns == turns

    demo = build_app(ctx, settings, assistant_factory=lambda c, llm=None: _BrokenAssistant(c, final=True),
                     files_dir=tmp_path)
    *_, (chat, new_turns, _) = _answer_fn(demo)("how many cards", [], [])
    assert "No final answer" in chat[-1]["content"] and new_turns == []


def test_estimate_steps_say_estimate_and_cite_the_row_beside_them(call):
    from assistant.frontends.web_chat import step_log

    result = call("plan_training", model="qwen2.5-72b", method="lora", seq_len=4096, hardware="snt9b")
    content = step_content({"model": "qwen2.5-72b"}, result)
    source_line = content.split("\n\n")[0]
    assert source_line.startswith("**Source**: estimate") and "ModelArts: 模型最小卡数配置, 2025-06-24" in source_line
    assert step_log(result) == "estimate"


def test_plan_view_shows_fewer_devices_with_offload(ctx):
    # min-card table: llama3.1-70b full 4096 LLaMA-Factory Snt9B = 64 cards; offload fits on 2 nodes
    md, table_md, _ = web_plan.plan_training_view(ctx, train_form("llama3.1-70b", method="full"))
    assert "### Estimate: **64 cards**" in md and "| 64 |" in table_md.replace("**", "")
    assert "**Fewer devices, slower:** 16 cards with ZeRO-3 + CPU offload" in md


def test_a_plan_that_does_not_fit_is_headed_so(ctx):
    """Not "4,096 cards … does not fit": the count is where the search stopped, not what the job needs."""
    # Llama-3.1-405B full fine-tuning at 131,072 tokens: the activations alone exceed a 24 GB card at any count
    md, _, _ = web_plan.plan_training_view(ctx, train_form("llama3.1-405b", method="full", seq_len=131072,
                                                            hardware="rtx4090-24g"))
    assert md.startswith("### Does not fit on any number of cards") and "Estimate: **4,096" not in md
    # Qwen2.5-72B full fine-tuning needs far more than 2 × 24 GB (72.7B parameters x 16 B of model states alone)
    md, _, _ = web_plan.plan_training_view(ctx, train_form("qwen2.5-72b", method="full", hardware="rtx4090-24g",
                                                            max_devices=2))
    assert md.startswith("### Does not fit within **2 cards**")


def test_pasted_config_or_parameter_count_is_sized_instead_of_the_name(ctx):
    # Qwen2.5-7B's config.json (28 layers, hidden 3584, ffn 18944, 28 heads, 4 KV heads, vocab 152064): 7.6B parameters
    config = ('{"hidden_size": 3584, "intermediate_size": 18944, "num_attention_heads": 28, "num_hidden_layers": 28,'
              ' "num_key_value_heads": 4, "vocab_size": 152064, "tie_word_embeddings": false}')
    md, table_md, _ = web_plan.plan_training_view(ctx, train_form("qwen2.5-72b", config=config))
    assert "sized from the pasted config.json, 7.6" in md and "“qwen2.5-72b” in the model box was not used" in md
    assert "No vendor-table row" in table_md  # not the 72B model's 32-card row
    md, _, _ = web_plan.plan_inference_view(ctx, infer_form("qwen2.5-72b", 4096, params_b=7))
    assert "sized from the parameter count given, 7B parameters" in md
    md, _, _ = web_plan.plan_inference_view(ctx, infer_form("llama3-8b", 1_000_000))
    assert "beyond llama3-8b's own limit of 8,192 tokens" in md  # Llama-3-8B config: max_position_embeddings 8192
