"""The LLM path's bounds, measured against the fake OpenAI-compatible endpoint on loopback: how long an
answer takes when the endpoint is dead, stalled, failing or running away (each ends with the offline
planner's answer), the size of what the LLM is sent, and the grounding check's cost. Before issue 27 a
dead or stalled endpoint took 122 s (a 60 s timeout and one retry) and the first request was ~14,500
tokens by a real tokenizer."""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

from _common import ROOT, print_table
from langchain_core.utils.function_calling import convert_to_openai_tool

from assistant.agent import Assistant
from assistant.context import Context
from assistant.llm import grounding
from assistant.llm.schemas import prompt_tokens
from assistant.settings import Settings
from tests.agent.fake_openai import FakeOpenAI, sequence

QUESTION = "qwen3-8b lora mindspeed minimum npus"
CASES = {
    "dead endpoint (nothing listens)": None,
    "stalled endpoint (no byte)": {"sleep": 600, "content": "late"},
    "HTTP 500": {"status": 500},
    "runaway reply (300,000 chars, streamed)": {"content": "x" * 300_000, "piece_delay": 0.001},
    "invented figures (grounding check)": {"content": "You need 12 nodes; a node costs 0.18 dollars."},
}


def main() -> None:
    settings = Settings(cache_dir=Path(tempfile.mkdtemp()))
    ctx = Context.create(settings)
    a = Assistant(ctx, llm="offline")
    system = prompt_tokens(a.system_prompt)
    compact = prompt_tokens(json.dumps([convert_to_openai_tool(t) for t in a.llm_tools], ensure_ascii=False))
    full = prompt_tokens(json.dumps([convert_to_openai_tool(t) for t in a.tools], ensure_ascii=False))
    print("\nWhat the LLM is sent (tokens, chars/4)")
    print_table(["what", "tokens"], [["system prompt", str(system)], ["compact tool schemas", str(compact)],
                                     ["first request in all", f"{system + compact} (target <= 4000)"],
                                     ["complete schemas (REST/MCP) instead", f"{system + full} ({(system + full) / (system + compact):.1f}x)"]])
    rows = []
    offline_s = _timed(lambda: a.ask(QUESTION))[0]
    rows.append(["offline planner alone", f"{offline_s:.2f}", "offline"])
    for name, reply in CASES.items():
        with FakeOpenAI(sequence(reply or {"content": ""}), 0) as srv:
            url = srv.base_url
            if reply is None:
                srv.server.server_close()  # free the port: connection refused
            llm = Assistant(Context(settings=settings.model_copy(update={"llm": "openai:x", "llm_base_url": url}), kb=ctx.kb))
            seconds, ans = _timed(lambda llm=llm: llm.ask(QUESTION))
        rows.append([name, f"{seconds:.2f}", f"{ans.model}: {(ans.notice or '')[:70]}"])
    print(f"\nTime to an answer with the default bounds (connect {settings.llm_connect_timeout_s:g} s, stall "
          f"{settings.llm_timeout_s:g} s, budget {settings.llm_budget_s:g} s); was 122 s for a dead or stalled endpoint")
    print_table(["endpoint", "seconds", "answered by"], rows)
    answer = "You need 32 cards (ModelArts minimum-card table, 2025-06-24), 4 nodes of 8, ZeRO-3 at 4096 tokens."
    result = {"cards": 32, "nodes": 4, "cards_per_node": 8, "deepspeed": "ZeRO-3", "seq_len": 4096, "source": "2025-06-24"}
    n = 2000
    t = time.perf_counter()
    for _ in range(n):
        grounding.check(answer, texts=[QUESTION, a.system_prompt], results=[result], tools_called=["min_cards"])
    print(f"\nGrounding check: {(time.perf_counter() - t) / n * 1e6:.0f} µs per answer (system prompt + one tool result)")


def _timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


if __name__ == "__main__":
    import sys

    sys.path.insert(0, str(ROOT))
    main()
