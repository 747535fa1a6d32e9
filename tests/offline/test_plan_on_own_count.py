"""The user's own device count ("we have 16 cards", "我手上 24 张") is the count a plan is made on: the stage, the gradient
accumulation (keeping the global batch, GBS = MBS x DP x GA) and the memory per card on it, the fewest that would do
beside it; a count said as a limit ("at most 16 cards") keeps the fewest within it. Figures by hand from the recipe
table (seeds/000) and the minimum-card table (seeds/004)."""

from __future__ import annotations

from .dialog import last_answer, lead


def test_count_read_as_limit_or_own(parse):
    assert parse("llama3.1-8b lora 4096, at most 16 cards available - what's the fewest I need?").devices_limit is True
    assert parse("最多给我 8 张卡，qwen2.5-14b 全参 4096 能跑吗").devices_limit is True
    assert parse("llama3.1-8b lora 4096, we have 16 cards, which ZeRO stage?").devices_limit is None
    assert parse("我手上 24 张 Snt9B，qwen2-72b lora 4096 怎么切").devices_limit is None


def test_stage_and_accumulation_on_those_cards(assistant):
    # no recipe row for qwen2.5-14b full; the fewest plan (8 cards, GA 8) runs a global batch of 1 x 8 x 8 = 64, which
    # GA 64 / 16 = 4 keeps on the user's 16 cards (2 nodes x 8)
    ans = last_answer(assistant, "qwen2.5-14b full 4096, minimum cards?",
                      "we have 16 cards. ZeRO stage and gradient accumulation on those 16?")
    head = lead(ans)
    assert "16 cards" in head and "gradient accumulation 4" in head and "fewer of them" not in head
    assert "keeps the fewest-device plan's global batch of 64" in ans.answer


def test_split_asked_in_words_on_the_users_cards(assistant):
    # "怎么切" on 24 cards (3 nodes x 8): MindSpeed-LLM TP x PP must divide 24 with TP within a node: TP 8 x PP 1, DP 3
    ans = assistant.ask("llama3.1-70b lora 4096，我们手上 24 张 Snt9B，怎么切？")
    assert "TP 8 × PP 1" in lead(ans) and "数据并行 3" in lead(ans) and "24 张卡" in lead(ans)


def test_recipe_batch_with_no_whole_accumulation(assistant):
    # recipe llama3.1 8B full: GA 8 on 8 cards = 64; on 12 cards 64 / 12 = 5.33: GA 5 gives 60, said as the nearest
    ans = assistant.ask("we have 12 Snt9B cards, llama3.1-8b full 4096. ZeRO stage and grad accumulation on those 12?")
    assert "gradient accumulation 5 gives 60" in lead(ans)


def test_limit_keeps_the_fewest(assistant):
    ans = assistant.ask("llama3.1-8b full 4096, at most 16 Snt9B cards. how many do I need?")
    assert "on all your" not in ans.answer and "8 cards" in lead(ans)


def test_twice_that_many_doubles_the_last_answers_count(assistant):
    # recipe GLM4 9B full: 1 node x 8 cards, GA 8 (global 64); twice that many = 16 cards: GA 4 keeps 64
    ans = last_answer(assistant, "glm4-9b full 4096, how many cards in the recipe table and what GA?",
                      "we have twice that many. GA to keep the same global batch?")
    assert "16 cards" in ans.answer and "gradient accumulation 4" in lead(ans)


def test_memory_per_card_is_the_one_on_the_users_count(assistant):
    # recipe llama2 13B full: ZeRO-3, GA 8 on 1 x 8 cards; the memory asked on 16 is the plan on all 16 (GA 4 keeps 64)
    ans = assistant.ask("llama2-13b full 4096 on our 2 nodes (16 cards) - per-card memory and GA?")
    mine = next(c.result for c in ans.tool_calls if c.name == "plan_training" and c.args.get("all_devices"))
    assert mine["devices"] == 16 and mine["grad_accum"] == 4
    needed = next(line for line in ans.answer.splitlines() if line.startswith("**Needed:**"))
    assert "on 16 cards" in needed and "gradient accumulation 4" in lead(ans)
