"""Why a tool refuses its arguments, in English and Chinese (``assistant.wordings``): the tools raise the English text
(their output and the LLM's schema stay English), a Chinese answer shows the Chinese wording. A new refusal is added
here with both wordings; ``tests/offline/test_answer_language.py`` checks each comes back in Chinese."""

from __future__ import annotations

from ..wordings import Wordings

TOOL_ERRORS = Wordings({
    "no_shape": {"en": "The catalog has no shape for {model}; give params_b or a shape.",
                 "zh": "目录中没有 {model} 的结构参数；请给出参数量（params_b）或模型结构。"},
    "model_or_params": {"en": "Give a model name or params_b (total parameters in billions).",
                        "zh": "请给出模型名称或参数量（params_b，总参数量，单位十亿）。"},
    "kv_heads_divide": {"en": "kv_heads {kv} must divide heads {heads}.",
                        "zh": "KV 头数 {kv} 必须能整除注意力头数 {heads}。"},
    "params_disagree": {"en": "model and params_b disagree: {model} has {params}B parameters, params_b says {stated}B. Give "
                              "only model (its catalog shape) or only params_b (a shape inferred from the count).",
                        "zh": "模型与参数量不一致：{model} 有 {params}B 参数，而给出的参数量是 {stated}B。请只给模型（用目录中的结构）"
                              "或只给参数量（按参数量推断结构）。"},
    "encoder_decoder": {"en": "{name} is an encoder-decoder model ({family} family): the estimator models decoder-only "
                              "transformers (one stack, causal-LM loss, one KV cache per layer) and does not size "
                              "encoder-decoder models.",
                        "zh": "{name} 是编码器-解码器模型（{family} 系列）：估算工具只建模仅解码器的 Transformer（单个堆叠、因果语言模型损失、"
                              "每层一份 KV cache），不估算编码器-解码器模型。"},
    "seq_len_range": {"en": "{field} must be between 1 and {limit} tokens, got {value}.",
                      "zh": "{field} 必须在 1 到 {limit} 个 token 之间，收到的是 {value}。"},
    "at_least_one": {"en": "{field} must be at least 1, got {value}.",
                     "zh": "{field} 至少为 1，收到的是 {value}。"},
    "batch_devices_limit": {"en": "micro_batch <= 4096 and devices <= 1000000.",
                            "zh": "micro_batch 不能超过 4096，卡数不能超过 1000000。"},
    "at_most_n": {"en": "{field} must be at most {limit}.", "zh": "{field} 不能超过 {limit}。"},
    "between": {"en": "{field} must be between 1 and {limit}, got {value}.", "zh": "{field} 必须在 1 到 {limit} 之间，收到的是 {value}。"},
    "gbs_multiple": {"en": "global_batch {gbs} must be a multiple of micro_batch {mbs}.",
                     "zh": "global_batch {gbs} 必须是 micro_batch {mbs} 的倍数。"},
    "mindspeed_zero": {"en": "MindSpeed-LLM has no DeepSpeed ZeRO stage or offload (it splits with TP/PP/CP): omit zero_stage "
                             "and offload.",
                       "zh": "MindSpeed-LLM 没有 DeepSpeed ZeRO 阶段，也没有 offload（它用 TP/PP/CP 切分）：请去掉 zero_stage 和 offload。"},
    "offload_stage": {"en": "The planner's CPU offload settings are ZeRO-2 and ZeRO-3 (LLaMA-Factory's ds_z2_offload and "
                            "ds_z3_offload): use zero_stage 2 or 3 with offload.",
                      "zh": "规划工具的 CPU offload 设置只有 ZeRO-2 和 ZeRO-3（LLaMA-Factory 的 ds_z2_offload 和 ds_z3_offload）："
                            "offload 请配 zero_stage 2 或 3。"},
    "lora_targets": {"en": "Unknown lora_targets {targets}.", "zh": "无法识别的 lora_targets：{targets}。"},
    "tp_heads": {"en": "tp={tp} must divide the attention heads ({heads}) and KV heads ({kv}).",
                 "zh": "tp={tp} 必须能整除注意力头数（{heads}）和 KV 头数（{kv}）。"},
    "pp_layers": {"en": "pp={pp} exceeds the {layers} layers.", "zh": "pp={pp} 超过了模型的 {layers} 层。"},
    "devices_multiple": {"en": "devices={devices} must be a multiple of tp x pp x cp = {mp}.",
                         "zh": "卡数 {devices} 必须是 tp × pp × cp = {mp} 的倍数。"},
    "ep_dense": {"en": "ep={ep} splits a MoE model's experts; this model is dense.",
                 "zh": "ep={ep} 用于切分 MoE 模型的专家；这个模型是稠密模型。"},
    "ep_divide": {"en": "ep={ep} must divide the {experts} experts and the data-parallel size devices / (tp x pp x cp) = {dp}.",
                  "zh": "ep={ep} 必须能整除 {experts} 个专家和数据并行规模 卡数 / (tp × pp × cp) = {dp}。"},
    "data_parallel_only": {"en": "{framework} is sized as data parallel (DeepSpeed ZeRO / FSDP), without tensor/pipeline/context "
                                 "parallelism; use framework MindSpeed-LLM or tp=pp=cp=1.",
                           "zh": "{framework} 按数据并行（DeepSpeed ZeRO / FSDP）估算，不做张量/流水线/上下文并行；请改用 MindSpeed-LLM，"
                                 "或设 tp=pp=cp=1。"},
    "cp_rule": {"en": "MindSpeed-LLM needs cp >= 2 beyond {limit} tokens (ModelArts rule); seq_len is {seq}.",
                "zh": "序列超过 {limit} 个 token 时 MindSpeed-LLM 需要 cp ≥ 2（ModelArts 规则）；当前 seq_len 为 {seq}。"},
    "ppo_zero3": {"en": "PPO does not support ZeRO-3 on ModelArts LLaMA-Factory.",
                  "zh": "ModelArts LLaMA-Factory 上 PPO 不支持 ZeRO-3。"},
    "unsharded": {"en": "{framework} neither shards nor offloads model states (no DeepSpeed or FSDP): use zero_stage 0.",
                  "zh": "{framework} 既不切分也不卸载模型状态（没有 DeepSpeed 或 FSDP）：请用 zero_stage 0。"},
    "offload_needs_zero": {"en": "offload needs DeepSpeed ZeRO-1, 2 or 3 (or FSDP, sized as ZeRO-3).",
                           "zh": "offload 需要 DeepSpeed ZeRO-1、2 或 3（或 FSDP，按 ZeRO-3 估算）。"},
    "qlora_zero3": {"en": "LLaMA-Factory allows QLoRA with ZeRO-3 only at 4 bits.",
                    "zh": "LLaMA-Factory 只允许 4 bit 的 QLoRA 与 ZeRO-3 一起用。"},
    "pure_bf16_zero3": {"en": "LLaMA-Factory rejects pure_bf16 with ZeRO-3.", "zh": "LLaMA-Factory 不允许 pure_bf16 与 ZeRO-3 一起用。"},
    # a schema bound the arguments broke (errors.py writes "<field>: <pydantic's message>")
    "at_most": {"en": "{field}: Input should be less than or equal to {limit}", "zh": "{field} 必须小于或等于 {limit}"},
    "at_least": {"en": "{field}: Input should be greater than or equal to {limit}", "zh": "{field} 必须大于或等于 {limit}"},
    "above": {"en": "{field}: Input should be greater than {limit}", "zh": "{field} 必须大于 {limit}"},
})
