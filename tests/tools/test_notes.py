"""Note search: ranked passages with their source, Chinese and English queries, and the Chinese
versions of the notes (knowledge/notes/zh/) kept in step with the English ones."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from assistant.notes import load_notes, query_lang

NOTES = Path(__file__).resolve().parents[2] / "knowledge" / "notes"
EN_NOTES = sorted(p.name for p in NOTES.glob("*.md"))
FENCE = re.compile(r"```.*?```", re.S)
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")  # 1,500 / 614.4e6 -> 614.4, 6 / 2^-23 -> 2, 23


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def front_matter(text: str) -> dict:
    return yaml.safe_load(text.split("---", 2)[1]) if text.startswith("---") else {}


# ------------------------------------------------------------------ the Chinese twins
def test_every_note_has_a_chinese_twin():
    assert "oom.md" in EN_NOTES and "README.md" in EN_NOTES
    assert sorted(p.name for p in (NOTES / "zh").glob("*.md")) == EN_NOTES


@pytest.mark.parametrize("name", EN_NOTES)
def test_chinese_note_keeps_sections_code_and_numbers(name):
    en, zh = read(NOTES / name), read(NOTES / "zh" / name)
    heads = [[ln for ln in t.splitlines() if ln.startswith("## ")] for t in (en, zh)]
    assert len(heads[0]) == len(heads[1]), heads
    assert re.search(r"[\u4e00-\u9fff]", "".join(heads[1]) + zh.split("\n## ", 1)[0]) or not heads[1]
    for block in FENCE.findall(en):  # commands and scripts verbatim
        assert block in zh, (name, block)
    prose = FENCE.sub("", en)
    missing = sorted({c for c in re.findall(r"`([^`\n]+)`", prose) if c not in zh})
    assert not missing, f"{name}: backticked text missing from zh/{name}: {missing}"
    missing = sorted(set(NUMBER.findall(en)) - set(NUMBER.findall(zh)))
    assert not missing, f"{name}: numbers missing from zh/{name}: {missing}"


@pytest.mark.parametrize("name", [n for n in EN_NOTES if n != "README.md"])
def test_chinese_note_front_matter_matches(name):
    en, zh = front_matter(read(NOTES / name)), front_matter(read(NOTES / "zh" / name))
    assert zh["topic"] == en["topic"]
    assert zh["source"] and re.search(r"[\u4e00-\u9fff]", zh["title"])
    assert set(map(str, en["keywords"])) <= set(map(str, zh["keywords"]))  # the zh note may add Chinese phrasings


def test_both_languages_index_the_same_sections():
    sections = load_notes(NOTES)
    count = {}
    for s in sections:
        count[(s.lang, s.file)] = count.get((s.lang, s.file), 0) + 1
    files = {f for _, f in count}
    assert len(files) == len(EN_NOTES) - 1  # README.md is an index, not a note
    assert all(count[("en", f)] == count[("zh", f)] for f in files), count


# ------------------------------------------------------------------ search
@pytest.mark.parametrize("query,topic_file", [
    ("checkpoint save timeout multi-node", "ckpt_timeout.md"),
    ("NPU out of memory", "oom.md"),
    ("FlashAttention constraints", "flash_attention.md"),
    ("which zero stage offload", "zero_stages.md"),
    ("DIE Snt9B23", "snt9b_vs_snt9b23.md"),
    ("how long does training take, TPS formula", "training_time.md"),
    # the pages of the vendor index that had no note before (questions that name no model)
    ("pod stuck in Pending", "pod_pending.md"),
    ("offline installation package without network", "offline_package.md"),
    ("public network access to an online service", "public_access.md"),
    ("upload files to JupyterLab", "jupyterlab_upload.md"),
    ("custom image from a preset image", "custom_image.md"),
    ("how do I benchmark my vLLM service", "inference_benchmark.md"),
    ("PP must match what", "launch_scripts.md"),
    ("what does MASTER_ADDR mean", "launch_scripts.md"),
    ("dataset preprocessing", "data_preprocessing.md"),
    ("head_dim 576 NPU_Flash_Attn", "flash_attention.md"),
])
def test_english_query_finds_the_english_note(call, query, topic_file):
    out = call("search_notes", query=query)
    assert out["results"], out
    top = out["results"][0]
    assert top["file"] == topic_file and top["source"]
    assert {r["lang"] for r in out["results"]} == {"en"}
    assert not re.search(r"[\u4e00-\u9fff]", top["heading"])


@pytest.mark.parametrize("query,topic_file,heading_words", [
    ("显存溢出怎么办", "oom.md", "显存溢出|OOM"),
    ("训练时显存溢出 OOM", "oom.md", "显存溢出|OOM"),
    ("保存权重超时", "ckpt_timeout.md", "超时"),
    ("BF16 和 FP16 区别", "bf16_fp16.md", "BF16"),
    ("bf16 fp16 区别", "bf16_fp16.md", "BF16"),
    ("Snt9B23 的 DIE", "snt9b_vs_snt9b23.md", ""),
    ("训练时间怎么估算", "training_time.md", ""),
    ("ZeRO 各阶段", "zero_stages.md", "ZeRO 各阶段"),
    ("flash_attn 报 ImportError", "flash_attention.md", "ImportError"),
    ("TP 和 PP 怎么设置", "parallelism.md", ""),
    ("训练作业一直Pending怎么办", "pod_pending.md", ""),
    ("资源池不能联网 离线安装包", "offline_package.md", ""),
    ("公网访问在线服务", "public_access.md", ""),
    ("上传文件到JupyterLab", "jupyterlab_upload.md", ""),
    ("预置镜像制作自定义镜像", "custom_image.md", ""),
    ("vLLM 服务性能测试", "inference_benchmark.md", ""),
    ("多模态模型性能测试", "inference_benchmark.md", "多模态"),
    ("PP 要和什么一致", "launch_scripts.md", "一致"),
    ("GBS 和 MBS 的区别", "launch_scripts.md", "GBS"),
    ("数据集预处理", "data_preprocessing.md", ""),
])
def test_chinese_query_finds_the_chinese_section(call, query, topic_file, heading_words):
    out = call("search_notes", query=query)
    assert out["results"], out
    top = out["results"][0]
    assert top["file"] == topic_file, [(r["file"], r["heading"]) for r in out["results"]]
    assert {r["lang"] for r in out["results"]} == {"zh"}
    assert re.search(heading_words, top["heading"]), top["heading"]
    assert re.search(r"[\u4e00-\u9fff]", top["title"]) and re.search(r"[\u4e00-\u9fff]", top["text"])
    assert top["heading"] in read(NOTES / "zh" / topic_file)


def test_checkpoint_note_states_36_minutes_in_both_languages(call):
    for query in ("checkpoint timeout", "保存权重超时"):
        text = " ".join(r["text"] for r in call("search_notes", query=query, limit=5)["results"])
        assert "36" in text and "HCCL_EXEC_TIMEOUT" in text, query


def test_lang_overrides_the_query_language(call):
    en = call("search_notes", query="显存溢出怎么办", lang="en")
    assert en["results"][0]["file"] == "oom.md"
    assert {r["lang"] for r in en["results"]} == {"en"}
    zh = call("search_notes", query="checkpoint timeout HCCL_EXEC_TIMEOUT", lang="zh")
    assert zh["results"][0]["file"] == "ckpt_timeout.md"
    assert {r["lang"] for r in zh["results"]} == {"zh"}
    assert call("search_notes", query="显存溢出", lang="中文")["results"][0]["lang"] == "zh"
    assert call("search_notes", query="显存溢出", lang="English")["results"][0]["lang"] == "en"


def test_invalid_lang_is_the_one_error_shape(call):
    out = call("search_notes", query="显存溢出", lang="fr")
    assert set(out) == {"error"}
    err = out["error"]
    assert err["code"] == "invalid_arguments" and err["field"] == "lang"
    assert all(v in str(err["valid"]) for v in ("auto", "en", "zh"))


@pytest.mark.parametrize("query,lang", [
    ("显存溢出怎么办", "zh"),
    ("Snt9B23 的 DIE", "zh"),
    ("ZeRO 各阶段", "zh"),
    ("Qwen2.5-72B LoRA 微调显存不够怎么办", "zh"),
    ("DeepSpeed ZeRO-3 offload 是什么", "zh"),
    ("用llamafactory训练时报flash_attn importerror", "zh"),
    ("NPU out of memory", "en"),
    ("DIE Snt9B23", "en"),
    # English questions with Chinese glosses appended (as the offline planner does) stay English
    ("oom? out of memory OOM 显存溢出 remedies", "en"),
    ("flashattention constraints 约束 NPU_Flash_Attn training 训练", "en"),
    ("what's the difference between bf16 and fp16 区别", "en"),
])
def test_auto_language(query, lang):
    assert query_lang(query) == lang


def test_nonsense_query_returns_no_results_not_error(call):
    for query in ("zzzqqq xyzzy", "嗯嗯嗯"):
        out = call("search_notes", query=query)
        assert out["results"] == [], query


# ------------------------------------------------------------------ answer-first summaries
NOTE_FILES = [n for n in EN_NOTES if n != "README.md"]
CODE = re.compile(r"`([^`\n]+)`")
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
LANG_DIRS = {"en": NOTES, "zh": NOTES / "zh"}
MAX_CHARS = {"en": 420, "zh": 260}  # "about 400" / "about 200" characters, code spans included


def summary_and_body(name: str, lang: str) -> tuple[str, str]:
    text = read(LANG_DIRS[lang] / name)
    return str(front_matter(text).get("summary") or "").strip(), text.split("---", 2)[2]


def prose(summary: str) -> str:
    return CODE.sub(" ", summary)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", NOTE_FILES)
def test_summary_states_only_what_its_note_says(name, lang):
    summary, body = summary_and_body(name, lang)
    assert summary, f"{lang}/{name} has no summary"
    assert len(summary) <= MAX_CHARS[lang], (name, lang, len(summary))
    assert "~" not in summary and "seeds/" not in summary  # strikethrough; seed file names
    missing = sorted(set(NUMBER.findall(summary)) - set(NUMBER.findall(body)))
    assert not missing, f"{lang}/{name}: numbers not in the note body: {missing}"
    missing = sorted(c for c in CODE.findall(summary) if c not in body)
    assert not missing, f"{lang}/{name}: code not in the note body: {missing}"


@pytest.mark.parametrize("name", NOTE_FILES)
def test_summary_is_in_its_notes_language(name):
    zh, _ = summary_and_body(name, "zh")
    cjk, latin = len(CJK.findall(prose(zh))), len(re.findall(r"[A-Za-z]+", prose(zh)))
    assert cjk >= 2 * latin, (name, cjk, latin)  # each Latin word counted once against each Chinese character
    en, _ = summary_and_body(name, "en")
    unquoted = re.sub(r"\([^()]*\)", lambda m: "" if CJK.search(m.group()) else m.group(), prose(en))
    assert not CJK.search(unquoted), (name, en)  # Chinese only as a vendor term in parentheses


@pytest.mark.parametrize("name", NOTE_FILES)
def test_both_summaries_state_the_same_numbers(name):
    en, zh = (summary_and_body(name, lang)[0] for lang in ("en", "zh"))
    assert set(NUMBER.findall(en)) == set(NUMBER.findall(zh)), name


def test_every_section_carries_its_notes_summary():
    for s in load_notes(NOTES):
        assert s.summary == summary_and_body(s.file, s.lang)[0], (s.lang, s.file, s.heading)


@pytest.mark.parametrize("query,lang", [("NPU out of memory", "en"), ("显存溢出怎么办", "zh"),
                                        ("checkpoint save timeout multi-node", "en"), ("保存权重超时", "zh")])
def test_search_notes_returns_the_summary_with_each_passage(call, query, lang):
    results = call("search_notes", query=query, limit=5)["results"]
    assert results
    for r in results:
        assert r["lang"] == lang and r["summary"] == summary_and_body(r["file"], lang)[0]


# ------------------------------------------------------------------ facts and limits (assistant/notes.py)
def test_a_section_is_cut_into_whole_facts():
    from assistant.notes import facts

    text = ("Trained weights are not converted back by default. Set `CONVERT_MG2HF=TRUE` to do it, e.g. in the run "
            "script. Afterwards copy any missing `tokenizer.json`.\n\n| variable | meaning |\n|---|---|\n"
            "| `TP` / `PP` / `CP` | 8 / 4 / 1 (`CP` ≥ 2 when `SEQ_LEN` > 32768) |\n\n- **Token**: valid for **24 h**. Cache it.")
    got = facts(text)
    assert "Set `CONVERT_MG2HF=TRUE` to do it, e.g. in the run script." in got  # "e.g." ends no sentence
    assert "`TP` / `PP` / `CP`: 8 / 4 / 1 (`CP` ≥ 2 when `SEQ_LEN` > 32768)" in got  # a table row, named by its cells
    assert "**Token**: valid for **24 h**. Cache it." in got  # a bullet is one fact, as written


@pytest.mark.parametrize("question,text,said,limit,kind,breaks", [
    # seeds/002 上传本地文件至JupyterLab: ≤ 100 MB direct, > 100 MB and ≤ 50 GB through OBS
    ("drag a 60GB checkpoint into JupyterLab", "files up to 100 MB upload directly; over 100 MB and up to 50 GB via OBS",
     "60GB", "50 GB", "max", True),
    ("上传一个 80MB 的 csv", "不超过 100 MB 的文件直接上传；超过 100 MB、不超过 50 GB 的文件通过 OBS 中转", "80MB", "100 MB", "max", False),
    # seeds/002 保存ckpt时超时报错: 单个节点内最大只有60G
    ("单节点要写 75G", "每节点最多 60 GB（实际不到 40 GB）", "75G", "60 GB", "max", True),
    # public access page: 单次预测请求最长 40 s
    ("请求跑了 50 秒就被断开", "单次预测请求最长 40 s", "50 秒", "40 s", "max", True),
    # MindSpeed-LLM supported_models.md: ≥ 64 GB per NPU
    ("MindSpeed-LLM on a 32GB 910B", "requires at least 64 GB of on-chip memory per NPU", "32GB", "64 GB", "min", True),
])
def test_a_users_number_is_measured_against_the_limit_stated(question, text, said, limit, kind, breaks):
    from assistant.notes import LimitCheck, limit_checks

    assert limit_checks(question, text) == [LimitCheck(said, limit, kind, breaks)]


def test_a_number_without_a_limit_word_is_no_limit():
    from assistant.notes import limit_checks

    assert limit_checks("my 20 MB body", "the example sends 64 MB") == []


def test_a_formula_is_worked_only_with_every_value_given():
    from assistant.notes import worked_formulas

    text = "保存的 checkpoint 个数为 `TRAIN_ITERS//SAVE_INTERVAL + 1`。"
    assert worked_formulas("SAVE_INTERVAL 设 10，TRAIN_ITERS 100", text) == [("TRAIN_ITERS//SAVE_INTERVAL + 1", "100//10 + 1", 11)]
    assert worked_formulas("TRAIN_ITERS 100", text) == []  # SAVE_INTERVAL not given: nothing to work out


def test_a_rounding_rule_is_applied_to_the_value_set():
    from assistant.notes import roundings
    down = "the effective value is rounded **down to a multiple of 68 s** (`value // 68 * 68`)"
    assert [(r.said, r.result) for r in roundings("我设 2000 实际生效多少", down)] == [(2000, 1972)]  # 29 x 68
    assert roundings("set it to 1836", down) == []  # already 27 x 68
    up = "If `N_cards > 8`, round up to a multiple of 8"
    assert [(r.said, r.result, r.up) for r in roundings("the formula says I need 20 cards", up)] == [(20, 24, True)]
    assert [(r.said, r.result) for r in roundings("按公式需要 20 张卡", "向上取整到 8 的倍数")] == [(20, 24)]


def test_a_named_parameter_is_found_in_a_lower_cased_question():
    from assistant.notes import is_about, named_parameters
    assert named_parameters("train_iters 默认多少？--epochs 呢，2_convert_mg_hf.sh") [:1] == ["train_iters"]
    assert "--epochs" in named_parameters("what does --epochs default to") and "2_convert_mg_hf.sh" in named_parameters("2_convert_mg_hf.sh x")
    # an example command of another program is not about its flags; the flag's own line and a setting line are
    assert not is_about("Run `python benchmark_serving.py --backend openai --dataset x`.", "Dynamic test", "--backend")
    assert is_about("`--backend` accepts the values `tgi`, `vllm`", "Static test", "--backend")
    assert is_about("`export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True`", "OOM", "expandable_segments")
    assert is_about("The number is `TRAIN_ITERS//SAVE_INTERVAL + 1`.", "Variables", "save_interval")
    assert is_about("1836 = 27 × 68.", "HCCL_EXEC_TIMEOUT facts", "hccl_exec_timeout")


def test_a_formula_is_solved_for_the_variable_asked():
    # launch_scripts note: checkpoints saved = TRAIN_ITERS//SAVE_INTERVAL + 1. Six of them over 1500 iterations:
    # 1500 // S = 5 holds for S from 251 to 300; 300 leads (fresh round 17 c3-07 quoted the formula without solving it)
    from assistant.notes import solved_formulas
    text = "The number of checkpoints saved is `TRAIN_ITERS//SAVE_INTERVAL + 1`."
    (x,) = solved_formulas("I want exactly 6 checkpoints saved over TRAIN_ITERS=1500. what SAVE_INTERVAL?", text)
    assert (x.name, x.value, x.low, x.filled, x.target) == ("SAVE_INTERVAL", 300, 251, "1500//300 + 1", 6)
    # Chinese; 2000 // S = 4 for S from 401 to 500
    (y,) = solved_formulas("TRAIN_ITERS 2000，想保存 5 个 checkpoint，SAVE_INTERVAL 设多少", text)
    assert (y.value, y.low) == (500, 401)
    # every variable given: nothing to solve (the worked formula answers it)
    assert solved_formulas("TRAIN_ITERS=2000, SAVE_INTERVAL=500, how many checkpoints?", text) == []
    # SN / GBS * EPOCH = 400 with SN 12800 and EPOCH 2: GBS 64
    (z,) = solved_formulas("SN 12800, EPOCH 2, I want 400 iterations: what GBS?", "defaults to `SN / GBS * EPOCH`")
    assert (z.name, z.value, z.low) == ("GBS", 64, 64)


def test_a_rounding_rule_stated_for_one_series_keeps_that_series():
    from assistant.notes import roundings

    # knowledge/notes/ckpt_timeout.md: the 68 s rounding is the first-generation 910's rule; A2 (910B) and A3 take the
    # value as set, so the answer must not say what "your 600" becomes without the series it holds for
    text = ("- Atlas training series (first-generation 910): range (0, 17340] s; the effective value is rounded "
            "**down to a multiple of 68 s** (`value // 68 * 68`).\n- Atlas A2 (910B) and A3 training series: range [0, 2147483647] s")
    (r,) = roundings("HCCL_EXEC_TIMEOUT=600, is that the problem?", text)
    assert (r.said, r.result, r.scope) == (600, 600 // 68 * 68, "Atlas training series (first-generation 910)")
    assert roundings("我设 2000 实际生效多少", "实际生效值会向下取整到 68 s 的整数倍")[0].scope == ""  # no subject named
    # a lead joins the bullet to the sentences before it: the rule's own sentence still names its series
    joined = "更早的 CANN 版本是 1800 s。Atlas 训练系列（第一代 910）：取值范围 (0, 17340] s；实际生效值会**向下取整到 68 s 的整数倍**"
    assert roundings("HCCL_EXEC_TIMEOUT=600", joined)[0].scope == "Atlas 训练系列（第一代 910）"
    # the question names that series by one of its own words, or names another part ("910B" is not "910")
    assert r.named_in("在 910 上设 600") and r.named_in("on an Atlas training box") and not r.named_in("在 910B 上设 600")


def test_a_limit_the_question_names_is_no_duration_of_its_own():
    # "the 36 minute ckpt timeout" names the note's limit ("after 36 minutes of waiting"): nothing to measure against it
    from assistant.notes import limit_checks

    text = "If that wait exceeds **36 minutes**, the waiting ranks raise a timeout error."
    assert limit_checks("how does the default relate to the 36 minute ckpt timeout?", text) == []
    assert limit_checks("36 分钟的超时和默认值什么关系", "等待超过 **36 分钟**就报超时") == []
