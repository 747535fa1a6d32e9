"""Values the user gives a documented vendor tool's flags are said with their meaning, not answered with the note's
example command (round 17 c4-03; dataset9b helper set). Meanings are the vendor pages' as the notes hold them:
generate_dataset.py lengths follow normal distributions, benchmark_serving.py sends requests with exponential gaps of
mean 1/--request-rate (modelarts_llm_infer_5905029), --epochs rounds per --parallel-num level (default 5),
gpu_memory_utilization × device memory is vLLM's budget (vllm_faq note), GBS = MBS × GA × DP with DP = NPU / (TP × PP)
(launch-script note). Figures are hand computations from the user's values."""

from __future__ import annotations

import pytest

from assistant.offline import tool_flags

from .dialog import converse


def test_every_flag_names_a_note_that_exists():
    from pathlib import Path
    notes = Path(__file__).parents[2] / "knowledge" / "notes"
    flags, derived, lead = tool_flags.spec()
    assert flags and {"en", "zh"} <= set(lead)
    for f in flags:
        assert (notes / f"{f.note}.md").is_file(), f.name
        assert "{v}" in f.meaning["en"] or f.name in ("--handler-name", "--tokenizer-type")


def test_the_users_length_distribution_is_said_with_their_numbers():
    lines = tool_flags.stated("generate_dataset.py --avg-input 2000 --std-input 300 --min-input 500 --max-input 4000", "en")
    text = "\n".join(lines)
    assert "`--avg-input 2000`" in text and "mean 2000 tokens" in text and "300 tokens" in text
    # 2000 ± 300 (about 68% of a normal distribution), every length within the clip range 500–4000
    assert "between 1,700 and 2,300 tokens" in text and "500–4,000" in text
    assert "1800" not in text  # the note's example value is not the user's


def test_spoken_chinese_mean_is_read():
    text = "\n".join(tool_flags.stated("generate_dataset 里我想要平均输入 1000 token，--std-input 200，--max-input 2000 --min-input 200", "zh"))
    assert "均值 1000 token" in text and "800 到 1,200 token" in text


@pytest.mark.parametrize(("question", "lang", "expected"), [
    ("--request-rate 5 --num-prompts 100", "en", ["about 20 s"]),  # 100 / 5
    ("--request-rate 2 --num-prompts 600 要跑多久", "zh", ["约需 5 分钟"]),  # 600 / 2 = 300 s
    ("--request-rate 1 4 8 --num-prompts 200 200 200", "en", ["about 3.3 min", "about 50 s", "about 25 s"]),
])
def test_sending_time_is_requests_over_rate(question, lang, expected):
    text = "\n".join(tool_flags.stated(question, lang))
    assert all(e in text for e in expected), text


def test_rate_and_count_lists_of_different_lengths_give_no_time():
    text = "\n".join(tool_flags.stated("--request-rate 1 2 4 --num-prompts 1000", "en"))
    assert "takes about" not in text


def test_static_rounds_budget_kv_and_accumulation():
    assert "2 concurrency levels × 3 rounds = 6" in "\n".join(tool_flags.stated("--parallel-num 8 16 --epochs 3", "en"))
    assert "0.85 × 64 GB = 54.4 GB" in "\n".join(tool_flags.stated("--gpu-memory-utilization 0.85 on a 64GB card", "en"))
    assert "2,097,152 tokens" in "\n".join(tool_flags.stated("--max-num-seqs 64 --max-model-len 32768", "en"))  # 64 × 32768
    text = "\n".join(tool_flags.stated("MBS=2 and GBS=256 on 16 NPUs with TP=8 PP=1", "en"))
    assert "GBS / MBS = 128" in text and "DP = 16 / (8 × 1) = 2" in text and "gradient accumulation = 64" in text


def test_no_flags_no_lines():
    assert tool_flags.stated("how do I benchmark my vLLM service?", "en") == []
    assert tool_flags.stated("qwen2.5-7b lora on 8 cards at 4096 tokens", "en") == []


@pytest.mark.parametrize(("question", "must"), [
    ("generate_dataset.py --avg-input 2000 --std-input 300 --min-input 500 --max-input 4000 -- what prompt lengths will that give me?",
     ["between 1,700 and 2,300 tokens"]),
    ("genrate_dataset.py --avg-input 1500 --std-input 400 --min-input 200 --max-input 3000 whats the range of prompts i get",
     ["between 1,100 and 1,900 tokens"]),
    ("in the launch script I have MAX_PE=16384 and SEQ_LEN=8192, what does MAX_PE do here?",
     ["`MAX_PE=16384`: max position embeddings 16384", "`SEQ_LEN=8192`"]),
    ("if I run benchmark_serving.py with --request-rate 5 --num-prompts 100, roughly how long does the run take?", ["about 20 s"]),
    ("generate_dataset 里我想要平均输入 1000 token，--std-input 200，--min-input 200 --max-input 2000，大部分请求会落在哪个区间",
     ["800 到 1,200 token"]),
])
def test_the_answer_leads_with_the_users_values(assistant, question, must):
    answer = converse(assistant, question)[0].answer
    assert all(m in answer for m in must), answer
    assert "Which model" not in answer and "哪个模型" not in answer
    quoted = min(i for i in (answer.find("From the notes"), answer.find("以下摘自"), len(answer)) if i >= 0)
    assert must[0] in answer[:quoted]  # said in the answer, before any quote of the note


def test_the_figure_asked_comes_before_the_meanings():
    lines = tool_flags.stated("--request-rate 2 --num-prompts 600 大概要跑多久", "zh")
    assert "约需 5 分钟" in lines[1]  # the lead line, then the time asked, then what each flag means
    lines = tool_flags.stated("what does --request-rate 2 --num-prompts 600 mean", "en")
    assert lines[1].startswith("- `--request-rate 2`")


def test_a_time_question_on_a_benchmark_command_leads_with_the_time(assistant):
    answer = converse(assistant, "if I run benchmark_serving.py with --request-rate 5 --num-prompts 100, roughly how long does the run take?")[0].answer
    assert answer.find("about 20 s") < answer.find("No problem found")


def test_a_flag_left_out_is_said_with_its_default_and_the_rounds_use_it():
    # inference_benchmark note (modelarts_llm_infer_5905029): --epochs defaults to 5 rounds per --parallel-num level;
    # 3 levels x 5 rounds = 15 (round 24 c4-06: "how many rounds if I leave epochs out" went unanswered)
    lines = tool_flags.stated("--parallel-num 1 8 32 --prompt-tokens 1024 --output-tokens 256, how many rounds if I leave epochs out", "en")
    assert lines[1] == "- `--epochs` not given: the default 5 applies, so 5 rounds at each concurrency level"
    assert "3 concurrency levels × 5 rounds = 15" in "\n".join(lines)
    zh = "\n".join(tool_flags.stated("--parallel-num 4 16 --prompt-tokens 512 --output-tokens 128 不加 --epochs 一共跑几轮", "zh"))
    assert "`--epochs` 不写时取默认值 5" in zh and "2 个并发档位 × 5 轮 = 共 10 轮" in zh
    # given, it is the user's value, with the default after it; another tool's flags do not call for it
    assert "3 rounds at each concurrency level (default 5)" in "\n".join(tool_flags.stated("--parallel-num 8 --epochs 3", "en"))
    assert not tool_flags.omitted("--request-rate 1 2 --num-prompts 10 10, how many epochs?")
