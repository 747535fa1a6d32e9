"""Whether a pasted setup is valid for its framework, beside whether it fits: values LLaMA-Factory, DeepSpeed,
vLLM or MindSpeed-LLM would refuse at launch, each with what is valid and the corrected line. Where the estimate
cannot run on the value as written (pure_bf16 with ZeRO-3, a utilization above 1, TP x PP beyond the cards) the
corrected value is used and the finding says so."""

from __future__ import annotations

from typing import Any

from ..setup_check.reading import Finding, Reading

DEFAULT_UTILIZATION = 0.9  # vLLM's --gpu-memory-utilization default


def check_training(r: Reading, s: dict[str, Any]) -> dict[str, Any]:
    """Findings on a training setup (added to r.findings); returns the settings the estimate can run on."""
    s = dict(s)
    if s.get("precision") == "pure_bf16" and s.get("zero_stage") == 3:
        # LLaMA-Factory's parser: "`pure_bf16` is incompatible with DeepSpeed ZeRO-3."
        r.findings.append(Finding(code="lf_pure_bf16_zero3", key="pure_bf16", value=True, valid="pure_bf16 with ZeRO-0/1/2; "
                                  "bf16 with ZeRO-3", corrected="bf16: true", applied=True))
        s["precision"] = "bf16"
    if s.get("quant_bits") and s.get("zero_stage") == 3:
        method = s.get("quant_method") or "bnb"  # LLaMA-Factory's default
        if method in ("hqq", "eetq") or s["quant_bits"] != 4:
            # quantization.py: "Only 4-bit quantized model can use fsdp+qlora"; "HQQ/EETQ quantization is incompatible
            # with DeepSpeed ZeRO-3 or FSDP."
            r.findings.append(Finding(code="lf_quantization_zero3", key="quantization_bit", value=s["quant_bits"],
                                      valid="4-bit bnb with ZeRO-3", figures={"method": method},
                                      corrected="quantization_method: bnb\nquantization_bit: 4", applied=True))
            s["quant_bits"] = 4
    devices = s.get("devices")
    tp, pp, cp = (int(s.get(k) or 1) for k in ("tp", "pp", "cp"))
    if devices and (tp * pp * cp > devices or devices % (tp * pp * cp)):
        # keep TP (it must match the weight conversion) and lower PP; else the largest TP x PP that divides the cards
        fits = [(t, p) for t in range(tp, 0, -1) for p in range(pp, 0, -1) if devices % (t * p * cp) == 0]
        best = max(fits, key=lambda tp_pp: (tp_pp[0] == tp, tp_pp[0] * tp_pp[1], tp_pp[0]), default=None)
        corrected = "" if best is None else f"PP={best[1]}" if best[0] == tp else f"TP={best[0]}\nPP={best[1]}"
        r.findings.append(Finding(code="parallel_exceeds_devices", key="TP x PP x CP", value=tp * pp * cp,
                                  valid=f"TP x PP x CP divides {devices}", corrected=corrected, applied=best is not None,
                                  figures={"tp": tp, "pp": pp, "cp": cp, "devices": devices}))
        if best:
            s["tp"], s["pp"] = best
    _batch_identity(r, s)
    return s


def check_quantization_on_npu(r: Reading, s: dict[str, Any], kind: str) -> None:
    """The notes' caveat (knowledge/notes/lora_qlora.md): bitsandbytes is built around CUDA kernels; on-the-fly
    QLoRA on an Ascend image may not work, and the vendor has not validated it."""
    if kind == "npu" and s.get("quant_bits"):
        r.findings.append(Finding(code="lf_quantization_npu", key="quantization_bit", value=s["quant_bits"],
                                  valid="bf16 LoRA with ZeRO-2/3 on Ascend", figures={"method": s.get("quant_method") or "bnb"}))


def _batch_identity(r: Reading, s: dict[str, Any]) -> None:
    """DeepSpeed asserts train_batch_size == micro x GA x data-parallel size (MindSpeed: GBS / (MBS x DP) whole)."""
    gbs, mbs, ga = s.get("global_batch"), s.get("micro_batch"), s.get("grad_accum")
    src = r.sources.get("global_batch", "")
    if not (gbs and mbs) or "train_batch_size" not in src:
        return
    devices = s.get("devices")
    if not devices or not ga:
        return
    dp = max(devices // (int(s.get("tp") or 1) * int(s.get("pp") or 1) * int(s.get("cp") or 1)), 1)
    product = mbs * ga * dp
    if product == gbs:
        return
    ga_fix = gbs // (mbs * dp) if gbs % (mbs * dp) == 0 else None
    corrected = f'"train_batch_size": {product}'
    r.findings.append(Finding(code="ds_train_batch_size", key="train_batch_size", value=gbs,
                              valid="train_batch_size = train_micro_batch_size_per_gpu x gradient_accumulation_steps x "
                                    "data-parallel size", corrected=corrected,
                              figures={"micro": mbs, "ga": ga, "dp": dp, "product": product, "ga_fix": ga_fix}))


def check_serving(r: Reading, s: dict[str, Any], model: dict[str, Any] | None, devices: int | None) -> dict[str, Any]:
    """Findings on a vllm serve line; returns the settings the estimate can run on."""
    s = dict(s)
    util = s.get("gpu_memory_utilization")
    if util is not None and not 0 < float(util) <= 1:
        r.findings.append(Finding(code="vllm_gpu_memory_utilization", key="--gpu-memory-utilization", value=util,
                                  valid="0 < value <= 1 (a share of each device's memory)",
                                  corrected=f"--gpu-memory-utilization {DEFAULT_UTILIZATION}", applied=True))
        s["gpu_memory_utilization"] = DEFAULT_UTILIZATION
    context = int((model or {}).get("max_context") or 0)
    if context and int(s.get("max_model_len") or 0) > context:
        r.findings.append(Finding(code="vllm_max_model_len", key="--max-model-len", value=s["max_model_len"],
                                  valid=f"<= {context}", corrected=f"--max-model-len {context}",
                                  figures={"context": context, "model": (model or {}).get("id")}))
    heads = int((model or {}).get("heads") or 0)
    tp = int(s.get("tp") or 1)
    if heads and heads % tp:
        ok = [t for t in range(1, heads + 1) if heads % t == 0]
        better = min((t for t in ok if t > tp), default=max(ok))
        r.findings.append(Finding(code="vllm_tp_heads", key="--tensor-parallel-size", value=tp,
                                  valid=", ".join(str(t) for t in ok if t <= 64), corrected=f"--tensor-parallel-size {better}",
                                  figures={"heads": heads}, applied=True))
        s["tp"] = tp = better
    pp = int(s.get("pp") or 1)
    if devices and tp * pp != devices:
        r.findings.append(Finding(code="vllm_tp_devices", key="--tensor-parallel-size", value=tp,
                                  valid=f"TP x PP = {devices}" if tp * pp > devices else f"TP x PP <= {devices}",
                                  corrected=f"--tensor-parallel-size {devices // pp}" if devices % pp == 0 else "",
                                  figures={"tp": tp, "pp": pp, "devices": devices, "over": tp * pp > devices}))
    return s
