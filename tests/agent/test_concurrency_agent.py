"""Many threads asking the assistant (and calling tools) at once get exactly the answers serial calls
get: one Assistant shared by all threads, as the API and the web chat share it, and one per thread.
The table questions are also checked against the hand-typed seed transcriptions, so "the same as
serial" cannot hide a wrong answer."""

from __future__ import annotations

import random
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml

from assistant.agent import Assistant
from assistant.answer import ChatTurn
from tests.seedfiles import min_cards_rows

THREADS = 16
REPEATS = 3
DEV_QUESTIONS = Path(__file__).resolve().parents[1] / "eval" / "dev_questions.yaml"

# Every 7th seed row of the minimum-card table, as a question whose answer the seed pins.
SEED_ROWS = [r for r in list(min_cards_rows())[::7] if r[1] in ("lora", "full")]


def seed_question(row) -> str:
    model, strategy, seq, fw, hw, _ = row
    return f"How many cards for {model} {'LoRA' if strategy == 'lora' else 'full fine-tuning'} with {fw} at {seq} tokens on {hw}?"


def seed_headline_ok(text: str, row) -> bool:
    *_, fw, hw, cards = row
    line = next((ln for ln in text.splitlines() if ln.startswith("**Answer:**")), "")
    if cards is None:
        return "not supported" in line
    unit = "DIE" if hw == "Snt9B23" else ("card" if cards == 1 else "cards")
    return f"{fw}: **{cards} {unit}**" in line


def workload() -> list[tuple[str, list[ChatTurn] | None]]:
    """(question, history): dev questions, seed-row questions, follow-ups that lean on their history,
    and input that gets a clarifying question."""
    dev = [q["q"] for q in yaml.safe_load(DEV_QUESTIONS.read_text(encoding="utf-8"))]
    history = [ChatTurn(role="user", content="qwen2.5-72b LoRA 4096 on Snt9B, how many cards?"),
               ChatTurn(role="assistant", content="(earlier answer)")]
    follow_ups = [("and with full fine-tuning?", history), ("用MindSpeed呢？", history), ("give me the yaml", history)]
    odd = [("", None), ("hello", None), ("gpt-99-ultra 几张卡", None), ("训练OOM了怎么办", None)]
    return [(q, None) for q in dev] + [(seed_question(r), None) for r in SEED_ROWS] + follow_ups + odd


def tool_workload() -> list[tuple[str, dict]]:
    calls = [("min_cards", {"model": m, "strategy": s, "seq_len": q, "framework": fw, "hardware": hw})
             for m, s, q, fw, hw, _ in SEED_ROWS]
    calls += [("plan_training", {"model": m, "method": "lora", "seq_len": 4096, "hardware": hw})
              for m, hw in [("qwen2.5-7b", "snt9b"), ("llama3.1-70b", "snt9b23"), ("qwen2.5-32b", "a100")]]
    calls += [("resolve_model", {"name": n}) for n in ["千问2.5-72B", "Meta-Llama-3.1-8B", "no-such-model-9b"]]
    calls += [("search_notes", {"query": q}) for q in ["显存溢出", "checkpoint timeout"]]
    return calls


def snapshot(answer) -> dict:
    """Everything an answer carries: text, tool calls with their results, files, notice."""
    return answer.model_dump()


@pytest.fixture(scope="module")
def assistant(ctx):
    return Assistant(ctx)


@pytest.fixture(scope="module")
def serial(assistant):
    return [snapshot(assistant.ask(q, h)) for q, h in workload()]


def test_serial_answers_match_the_seed_tables(serial):
    by_question = {q: snap for (q, _), snap in zip(workload(), serial, strict=True)}
    for row in SEED_ROWS:
        answer = by_question[seed_question(row)]["answer"]
        assert seed_headline_ok(answer, row), (row, answer[:400])


def test_threads_sharing_one_assistant_get_the_serial_answers(assistant, serial):
    work = workload()
    jobs = [i for i in range(len(work)) for _ in range(REPEATS)]
    random.Random(9).shuffle(jobs)  # neighbours in time ask different things
    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        got = list(pool.map(lambda i: (i, snapshot(assistant.ask(*work[i]))), jobs))
    for i, snap in got:
        assert snap == serial[i], work[i][0]


def test_threads_mixing_asks_streams_and_tool_calls(ctx, registry, assistant, serial):
    """Asks, streamed asks and direct tool calls interleaved on one pool, against the serial results."""
    work = workload()
    tools = tool_workload()
    tool_serial = [registry.call_json(n, a, ctx) for n, a in tools]

    def streamed(i: int) -> dict:
        events = list(assistant.stream(*work[i]))
        assert events[-1].kind == "final"
        return snapshot(events[-1].answer)

    jobs = [("ask", i) for i in range(len(work))] + [("stream", i) for i in range(len(work))]
    jobs += [("tool", i) for i in range(len(tools))] * REPEATS
    random.Random(11).shuffle(jobs)

    def run(job):
        kind, i = job
        if kind == "tool":
            return job, registry.call_json(tools[i][0], tools[i][1], ctx)
        return job, streamed(i) if kind == "stream" else snapshot(assistant.ask(*work[i]))

    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        results = list(pool.map(run, jobs))
    for (kind, i), got in results:
        assert got == (tool_serial[i] if kind == "tool" else serial[i]), (kind, tools[i] if kind == "tool" else work[i][0])


def test_one_assistant_per_thread_gives_the_same_answers(ctx, serial):
    """Assistants built concurrently (the agent graph, the planner's parser) answer like the shared one."""
    work = workload()
    picks = list(range(0, len(work), 3))

    def own_assistant(k: int) -> list[dict]:
        a = Assistant(ctx)
        return [snapshot(a.ask(*work[i])) for i in picks[k::4]]

    with ThreadPoolExecutor(max_workers=4) as pool:
        per_thread = list(pool.map(own_assistant, range(4)))
    for k, snaps in enumerate(per_thread):
        for i, snap in zip(picks[k::4], snaps, strict=True):
            assert snap == serial[i], work[i][0]
    assert any(re.search(r"\*\*\d+ (?:cards?|DIE)\*\*", s["answer"]) for s in serial)  # the answers carry numbers
