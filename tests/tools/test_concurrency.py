"""Many threads calling tools at once give the same answers as serial calls (a DuckDB cursor per thread)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from tests.seedfiles import min_cards_rows


def test_parallel_tool_calls_match_serial(ctx, registry):
    calls = [("min_cards", {"model": m, "strategy": s, "seq_len": q, "framework": fw, "hardware": hw})
             for m, s, q, fw, hw, _ in list(min_cards_rows())[::3]]
    calls += [("resolve_model", {"name": n}) for n in ["qwen2.5 72b", "千问2.5-72B", "Meta-Llama-3.1-8B", "nope"]] * 5
    calls += [("search_notes", {"query": q}) for q in ["显存溢出", "checkpoint timeout", "bf16"]] * 5
    serial = [registry.call_json(n, a, ctx) for n, a in calls]
    with ThreadPoolExecutor(max_workers=16) as pool:
        parallel = list(pool.map(lambda c: registry.call_json(c[0], c[1], ctx), calls * 3))
    assert parallel == serial * 3
