"""Names LLaMA-Factory 0.9.5 accepts, copied from its source so the generator can refuse a name
that would fail at launch without importing LLaMA-Factory (tests/configs checks these sets against
the installed package when it is present)."""

from __future__ import annotations

VERSION = "0.9.5"

# llamafactory.data.template.TEMPLATES
TEMPLATES = frozenset("""
aeva alpaca bailing bailing_v2 breeze chatglm3 chatml chatml_de cohere cpm4 dbrx deepseek deepseek3
deepseekcoder deepseekr1 default dots_ocr empty ernie ernie_nothink ernie_vl exaone falcon falcon_h1
fewshot gemma gemma2 gemma3 gemma3n gemma4 gemma4n glm4 glm4_5v glm4_7 glm4_moe glm4v glm_ocr glmz1
gpt_oss granite3 granite3_vision granite4 hunyuan hunyuan_small hy3 index intern2 intern_s1
intern_vl keye_vl kimi_vl lfm2 lfm2_vl llama2 llama2_zh llama3 llama4 llava llava_next
llava_next_llama3 llava_next_mistral llava_next_qwen llava_next_video llava_next_video_mistral
llava_next_video_yi llava_next_yi mimo mimo_v2 mimo_vl minicpm_o minicpm_v minicpm_v_4_6 minimax1
minimax2 ministral ministral3 mistral mistral_small mllama moonlight olmo openchat openchat-3.6
opencoder paligemma paligemma_chat phi phi4 phi4_mini phi_small pixtral qwen qwen2_audio qwen2_omni
qwen2_vl qwen3 qwen3_5 qwen3_5_nothink qwen3_6 qwen3_nothink qwen3_omni qwen3_omni_nothink qwen3_vl
qwen3_vl_nothink sailor seed_coder seed_oss smollm smollm2 solar starchat telechat2 vicuna
video_llava xuanyuan yi yi_vl youtu youtu_vl yuan zephyr
""".split())  # noqa: SIM905 (a word list reads better than 121 quoted strings)

# llamafactory.hparams.FinetuningArguments: stage and finetuning_type Literal choices
STAGES = ("pt", "sft", "rm", "ppo", "dpo", "kto")
FINETUNING_TYPES = ("lora", "oft", "freeze", "full")
