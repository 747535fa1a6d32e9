"""Round trip: every config generate_config writes, pasted back into check_setup (the files as a person
would paste them, in fences, with the hardware said), reads back as the same plan, and the estimator
finds that plan fits."""

from __future__ import annotations

import pytest

CASES = [  # (model, method, stage, seq_len, hardware, framework)
    ("qwen2.5-7b", "lora", "sft", 4096, "snt9b", "LLaMA-Factory"),
    ("qwen2.5-7b", "qlora", "sft", 4096, "a100", "LLaMA-Factory"),
    ("qwen2.5-72b", "full", "sft", 4096, "snt9b", "LLaMA-Factory"),
    ("qwen2.5-72b", "lora", "dpo", 4096, "snt9b", "LLaMA-Factory"),
    ("llama3-8b", "lora", "sft", 8192, "snt9b", "LLaMA-Factory"),
    ("llama3-8b", "full", "sft", 4096, "h100", "LLaMA-Factory"),
    ("glm4-9b", "lora", "sft", 8192, "4090", "LLaMA-Factory"),
    ("qwen2.5-14b", "freeze", "sft", 2048, "snt9b23", "LLaMA-Factory"),
    ("qwen2.5-32b", "lora", "pt", 16384, "snt9b", "LLaMA-Factory"),
    ("qwen2.5-72b", "full", "sft", 4096, "snt9b", "MindSpeed-LLM"),
    ("qwen2.5-7b", "lora", "sft", 32768, "snt9b", "MindSpeed-LLM"),
    ("llama3-8b", "full", "sft", 8192, "snt9b23", "MindSpeed-LLM"),
    ("qwen2.5-14b", "lora", "sft", 4096, "snt9b23", "MindSpeed-LLM"),
    ("qwen2.5-7b", "full", "sft", 4096, "snt9b-32g", "LLaMA-Factory"),
    ("llama3-8b", "lora", "kto", 4096, "l40s", "LLaMA-Factory"),
    ("qwen2.5-72b", "qlora", "sft", 4096, "h100", "LLaMA-Factory"),
    ("qwen2.5-32b", "full", "rm", 2048, "a100", "LLaMA-Factory"),
]


def _paste(out: dict) -> str:
    files = [(out["filename"], out["content"]), *((f["filename"], f["content"]) for f in out["companion_files"])]
    return "Is this right?\n" + "\n".join(f"{name}:\n```{'json' if name.endswith('.json') else 'bash' if name.endswith('.sh') else 'yaml'}\n"
                                         f"{content}```" for name, content in files)


@pytest.mark.parametrize("model,method,stage,seq_len,hardware,framework", CASES)
@pytest.mark.parametrize("fmt", ["launch", "main"])
def test_generated_config_reads_back_as_its_plan(call, model, method, stage, seq_len, hardware, framework, fmt):
    main = "mindspeed_env" if framework == "MindSpeed-LLM" else "llamafactory_yaml"
    gen = call("generate_config", model=model, method=method, stage=stage, seq_len=seq_len, hardware=hardware,
               framework=framework, format=main if fmt == "main" else "launch")
    assert "error" not in gen, gen
    plan = gen["plan"]
    # A YAML alone does not say how many devices: the person says it, as with "on 8 cards".
    extra = {} if fmt == "launch" or framework == "MindSpeed-LLM" else {"devices": plan["devices"]}
    out = call("check_setup", text=_paste(gen), hardware=hardware, **extra)
    assert "error" not in out, out
    read = {r["name"]: r["value"] for r in out["read"]}
    t = out["training"]
    assert (t["model"], t["method"], t["stage"], t["seq_len"], t["devices"], t["micro_batch"], t["framework"]) == (
        gen["model_id"], method, stage, seq_len, plan["devices"], plan["micro_batch"], framework)
    if framework == "LLaMA-Factory":
        assert (t["zero_stage"], t["offload"], read["grad_accum"]) == (plan["zero_stage"], plan["offload"], plan["grad_accum"])
    else:
        gbs = plan["micro_batch"] * plan["grad_accum"] * plan["devices"] // (plan["tp"] * plan["pp"] * plan["cp"])
        assert (t["tp"], t["pp"], t["cp"], read["global_batch"]) == (plan["tp"], plan["pp"], plan["cp"], gbs)
    assert out["unknown"] == [], out["unknown"]
    assert out["verdict"] in ("fits", "tight"), (out["verdict"], t["total_gib"], t["usable_gib"], plan["source_detail"])
