"""In-process latency of every registry tool (p50/p99) next to its floor: the bare DuckDB query it
wraps, measured in the same run. Targets: p50 <= 1 ms for table tools, <= 5 ms for estimator tools."""

from __future__ import annotations

import tempfile
from pathlib import Path

from _common import ms, pct, print_table, timeit

from assistant.context import Context
from assistant.settings import Settings
from assistant.tools import REGISTRY

# One representative call per tool; the floor is the SQL the tool's main lookup runs.
CALLS = {
    "resolve_model": ({"name": "Qwen2.5-72B-Instruct"}, ("SELECT * FROM models WHERE id = ?", ["qwen2.5-72b"])),
    "training_recipe": ({"model": "qwen2-72b", "strategy": "full", "seq_len": 4096},
                        ("SELECT * FROM recipes_llamafactory WHERE model_id = ?", ["qwen2-72b"])),
    "min_cards": ({"model": "qwen2.5-72b", "strategy": "lora", "seq_len": 4096, "framework": "LLaMA-Factory", "hardware": "Snt9B"},
                  ("SELECT * FROM min_cards WHERE model_id = ? AND strategy = ?", ["qwen2.5-72b", "lora"])),
    "inference_min_cards": ({"model": "qwen2.5-72b"}, ("SELECT * FROM vllm_min_cards WHERE model_id = ?", ["qwen2.5-72b"])),
    "search_notes": ({"query": "checkpoint save timeout"}, ("SELECT * FROM notes LIMIT 3", [])),
    "list_models": ({}, ("SELECT * FROM models", [])),
    "list_hardware": ({}, ("SELECT * FROM hardware", [])),
    "estimate_training_memory": ({"model": "llama3.1-8b", "method": "full", "seq_len": 4096, "devices": 8, "zero_stage": 2},
                                 ("SELECT * FROM models WHERE id = ?", ["llama3.1-8b"])),
    "plan_training": ({"model": "qwen2.5-72b", "method": "lora", "seq_len": 4096, "hardware": "snt9b"},
                      ("SELECT * FROM models WHERE id = ?", ["qwen2.5-72b"])),
    "estimate_inference": ({"model": "llama3.1-70b", "max_model_len": 32768, "hardware": "snt9b"},
                           ("SELECT * FROM models WHERE id = ?", ["llama3.1-70b"])),
    "compare_hardware": ({"model": "qwen2.5-7b", "method": "lora", "seq_len": 4096},
                         ("SELECT * FROM hardware", [])),
    "generate_config": ({"model": "llama3-8b", "method": "lora", "seq_len": 8192, "hardware": "snt9b",
                         "framework": "LLaMA-Factory", "format": "llamafactory_yaml"},
                        ("SELECT * FROM recipes_llamafactory WHERE model_id = ?", ["llama3-8b"])),
    "estimate_training_time": ({"model": "llama3-8b", "tokens": 1e9, "devices": 8, "hardware": "a100-80g"},
                               ("SELECT * FROM models WHERE id = ?", ["llama3-8b"])),
}
ESTIMATOR = {"estimate_training_time", "estimate_training_memory", "plan_training", "estimate_inference", "compare_hardware", "generate_config"}


def main(n: int = 400) -> list[list[object]]:
    ctx = Context.create(Settings(cache_dir=Path(tempfile.mkdtemp())))
    rows = []
    for name in REGISTRY.names():
        args, (sql, params) = CALLS.get(name, ({}, ("SELECT 1", [])))
        status = "error: " + REGISTRY.call_json(name, args, ctx)["error"]["code"] if "error" in REGISTRY.call_json(name, args, ctx) else ""
        tool_t = timeit(lambda: REGISTRY.call(name, args, ctx), n)  # noqa: B023
        floor_t = timeit(lambda: ctx.kb.query(sql, params), n)  # noqa: B023
        target = 5.0 if name in ESTIMATOR else 1.0
        p50 = pct(tool_t, 50)
        rows.append([name, ms(p50), ms(pct(tool_t, 99)), ms(pct(floor_t, 50)), f"{p50 / pct(floor_t, 50):.1f}x",
                     f"{target:.0f} ms", status or ("ok" if p50 * 1000 <= target else "OVER")])
    print("\nTool call latency, in-process (ms)")
    print_table(["tool", "p50", "p99", "floor p50 (bare DuckDB)", "tool/floor", "target p50", ""], rows)
    return rows


if __name__ == "__main__":
    main()
