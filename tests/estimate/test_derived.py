"""Derived quantities (estimate/derived.py) pinned to hand computations from the models' HF config.json figures
(layers, hidden, heads, KV heads, intermediate size), written out term by term; never to the code's own output."""

from __future__ import annotations

import pytest

from assistant.estimate import derived
from assistant.estimate.shape import Shape


def llama3_8b() -> Shape:
    # meta-llama/Meta-Llama-3-8B config.json: 32 layers, hidden 4096, 32 heads, 8 KV heads, intermediate 14336
    return Shape("llama3-8b", 8.03e9, 32, 4096, 32, 8, 128256, ffn=14336)


def qwen25_7b() -> Shape:
    # Qwen/Qwen2.5-7B config.json: 28 layers, hidden 3584, 28 heads, 4 KV heads, intermediate 18944
    return Shape("qwen2.5-7b", 7.61e9, 28, 3584, 28, 4, 152064, ffn=18944)


def test_lora_all_linear_llama3_8b_rank_16():
    # head_dim 4096/32 = 128, KV width 8 x 128 = 1024; per layer d_in + d_out:
    # q 4096+4096, k 4096+1024, v 4096+1024, o 4096+4096, gate 4096+14336, up 4096+14336, down 14336+4096
    per_layer = 8192 + 5120 + 5120 + 8192 + 3 * 18432
    assert per_layer == 81920
    d = derived.lora_params(llama3_8b(), derived.Inputs(lora_rank=16))
    assert d.value == 16 * per_layer * 32 == 41_943_040
    assert "81,920" in d.formula and "32 layers" in d.formula


def test_lora_q_v_only_qwen25_7b_rank_8():
    # q 3584+3584 = 7168, v 3584 + 4 x 128 = 4096: 8 x 11264 = 90,112 per layer, x 28 layers
    d = derived.lora_params(qwen25_7b(), derived.Inputs(lora_rank=8, lora_targets="q_proj,v_proj"))
    assert d.value == 8 * (7168 + 4096) * 28 == 2_523_136


def test_layers_per_stage_even_and_uneven():
    assert derived.layers_per_stage(llama3_8b(), derived.Inputs(pp=4)).value == 32 / 4
    uneven = derived.layers_per_stage(qwen25_7b(), derived.Inputs(pp=3))  # 28 = 10 + 9 + 9
    assert uneven.value == pytest.approx(28 / 3) and "1 stage(s) hold 10 layers, the rest 9" in uneven.assumptions[0]


def test_data_parallel_and_ranks():
    # 64 DIE at TP 8 x PP 2 x CP 2: 64 / 32 = 2 replicas; TP 8 x PP 4 alone: 32 ranks at DP 1
    assert derived.data_parallel(None, derived.Inputs(devices=64, tp=8, pp=2, cp=2)).value == 2
    assert derived.ranks(None, derived.Inputs(tp=8, pp=4)).value == 32
    assert derived.ranks(None, derived.Inputs(tp=8, pp=8, devices=128)).value == 128
    with pytest.raises(derived.NotDerivable):
        derived.data_parallel(None, derived.Inputs(devices=24, tp=8, pp=2))  # 24 is no multiple of 16


def test_bytes():
    s = llama3_8b()
    # optimizer states, full fine-tuning: fp32 master 4 + Adam m 4 + v 4 = 12 B x 8.03e9 = 96.36 GB
    assert derived.optimizer_total(s, derived.Inputs()).value == pytest.approx(12 * 8.03e9)
    # over 8 devices under ZeRO-3: 96.36 / 8 = 12.045 GB each; ZeRO-0 keeps all of it on each
    assert derived.optimizer_per_device(s, derived.Inputs(devices=8, zero_stage=3)).value == pytest.approx(12 * 8.03e9 / 8)
    assert derived.optimizer_per_device(s, derived.Inputs(devices=8, zero_stage=0)).value == pytest.approx(12 * 8.03e9)
    # bf16 gradients: 2 B x 8.03e9 = 16.06 GB
    assert derived.gradients_total(s, derived.Inputs()).value == pytest.approx(2 * 8.03e9)
    # bf16 weights at TP 4: 2 x 8.03e9 / 4 = 4.015 GB per card
    assert derived.weights_per_device(s, derived.Inputs(tp=4)).value == pytest.approx(2 * 8.03e9 / 4)
    # KV room at util 0.9 on a 61 GiB device: 0.9 x 61 GiB - 4.015e9 B
    room = derived.kv_room_per_device(s, derived.Inputs(tp=4, capacity_gib=61.0, util=0.9))
    assert room.value == pytest.approx(0.9 * 61.0 * 2**30 - 2 * 8.03e9 / 4)


def test_run_arithmetic():
    # global batch 64 x SEQ_LEN 4096 = 262,144 tokens per iteration
    assert derived.tokens_per_iteration(None, derived.Inputs(global_batch=64, seq_len=4096)).value == 262_144
    # 3e9 tokens in 24 h at 2500 tokens/s per card, eta 0.9: 3e9 / (2500 x 86400 x 0.9) = 15.43 -> 16 (multiple of 8)
    exact, whole = derived.devices_for_deadline_count(3e9, 2500, 24, 0.9)
    assert round(exact, 2) == 15.43 and whole == 16
    # 5e9 in 48 h at 1800: 17.86 -> 18 -> 24 (above 8: the next multiple of 8)
    assert derived.devices_for_deadline_count(5e9, 1800, 48, 0.9)[1] == 24


def test_run_time_from_a_log():
    # 1000 iterations x 12.0 s = 12,000 s = 3.3 h; after iteration 100: 900 x 12 s = 3.0 h
    d = derived.run_time(None, derived.Inputs(iterations=1000, iterations_done=100, iteration_seconds=12.0))
    assert d.value == 12_000 and "900 × 12 s = 3.0 h" in d.formula


def test_per_die_wording():
    # 235B x 2 B = 470 GB over 256 DIE = 1.836 GB per DIE
    d = derived.weights_per_device(Shape("x", 235e9, 94, 4096, 64, 4, 151936, ffn=0), derived.Inputs(devices=256, unit="die"))
    assert d.value == pytest.approx(470e9 / 256) and d.per == "per DIE" and "256 DIE" in d.formula


def test_every_table_row_has_a_term():
    from assistant.offline.quantity import ROWS
    from assistant.tools.derived_tools import Quantity
    names = {row.term for row in ROWS}  # a row's own name, or the term it reads another way (run_time_for_data: run_time)
    assert names <= set(derived.TERMS) and set(derived.TERMS) <= set(Quantity.__args__)


def test_memory_parts_logits_and_checkpoints():
    s = llama3_8b()
    # 8.03B x (2 + 2) = 32.1 GB; x (2 + 12) per checkpoint = 112.4 GB, 3 of them 337.3 GB against a 300 GB disk
    assert derived.derive("memory_parts", s, derived.Inputs(parts=("weights", "gradients"))).value / 1e9 == pytest.approx(32.1, abs=0.1)
    ck = derived.derive("checkpoint_size", s, derived.Inputs(checkpoints=3, disk_gb=300))
    assert ck.value / 1e9 == pytest.approx(337.3, abs=0.2) and ck.fits is False
    # 8,192 tokens x vocab 128,256 x 12 B = 12.6 GB
    assert derived.derive("logits", s, derived.Inputs(seq_len=8192)).value / 1e9 == pytest.approx(12.6, abs=0.05)


def test_run_time_left():
    # (5000 - 300) x 6.4 s = 30,080 s = 8.4 h left
    d = derived.run_time_left(None, derived.Inputs(iterations=5000, iterations_done=300, iteration_seconds=6.4))
    assert d.value == pytest.approx(4700 * 6.4)


def test_model_free_batch_and_window_arithmetic():
    # GBS from its parts: MBS 2 x DP (32 / (TP 4 x PP 2) = 4) x GA 16 = 128; x 4096 = 524,288 tokens
    parts = derived.Inputs(micro_batch=2, grad_accum=16, devices=32, tp=4, pp=2, seq_len=4096)
    assert derived.tokens_per_iteration(None, parts).value == 524_288
    # no split said: DP = devices; MBS 1 x 8 x GA 1 = 8 sequences x 8192 = 65,536
    assert derived.tokens_per_iteration(None, derived.Inputs(micro_batch=1, devices=8, seq_len=8192)).value == 65_536
    # smallest GBS: 32 DIE / (TP 8 x PP 2) = DP 2; x MBS 2 = 4
    assert derived.min_global_batch(None, derived.Inputs(micro_batch=2, devices=32, tp=8, pp=2)).value == 4
    with pytest.raises(derived.NotDerivable):  # 30 does not divide by 8
        derived.min_global_batch(None, derived.Inputs(micro_batch=1, devices=30, tp=8))
    # tokens in a window, the vendor's Time = tokens / (TPS x N) / eta turned round: 1000 x 8 x 10 h x 3600 x 0.9
    w = derived.tokens_in_window(None, derived.Inputs(tokens_per_second=1000, devices=8, hours=10, speedup=0.9))
    assert w.value == pytest.approx(259_200_000)
    # one device: no speed-up factor: 500 x 1 x 2 h x 3600 = 3,600,000
    assert derived.tokens_in_window(None, derived.Inputs(tokens_per_second=500, devices=1, hours=2, speedup=0.9)).value == 3_600_000


def llama2_7b() -> Shape:
    # meta-llama/Llama-2-7b-hf config.json: 32 layers, hidden 4096, 32 heads (MHA), intermediate 11008, vocab 32000, untied
    return Shape("llama2-7b", 6.738e9, 32, 4096, 32, 32, 32000, ffn=11008)


def test_params_per_layer_llama2_7b():
    # attention 4 x 4096^2 = 67,108,864; MLP 3 x 4096 x 11008 = 135,266,304; two RMSNorms 2 x 4096
    # 32 layers x 202,383,360 + embeddings 32000 x 4096 + LM head 32000 x 4096 + final norm 4096 = 6,738,415,616 (HF total)
    d = derived.params_per_layer(llama2_7b(), derived.Inputs())
    assert d.value == 67_108_864 + 135_266_304 + 8_192 == 202_383_360
    assert 32 * d.value + 2 * 32000 * 4096 + 4096 == 6_738_415_616
    assert d.per == "per layer"


def test_params_per_layer_gqa_llama3_8b():
    # q, o 4096 x 4096 each; k, v 4096 x 1024 each; MLP 3 x 4096 x 14336; norms 8192
    d = derived.params_per_layer(llama3_8b(), derived.Inputs())
    assert d.value == 2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14336 + 8192 == 218_112_000


def test_embedding_params_qwen25_7b_bf16():
    # vocab 152,064 x hidden 3,584 = 544,997,376; x 2 bytes = 1,089,994,752 B = 1.09 GB; untied LM head doubles it
    d = derived.embedding_params(qwen25_7b(), derived.Inputs())
    assert d.value == 152064 * 3584 == 544_997_376
    assert "1.09 GB" in d.formula and "1.02 GiB" in d.formula
    assert any("2.18 GB" in a for a in d.assumptions)


def test_flops_per_token_six_n_and_attention():
    # 6 x 7.61e9 = 45.66 GFLOPs; forward 2 x 7.61e9 = 15.22; with 4096 tokens: + 6 x 28 x 4096 x 3584 = 2.466 GFLOPs
    d = derived.flops_per_token(qwen25_7b(), derived.Inputs())
    assert d.value == 6 * 7.61e9 and "45.7 GFLOPs" in d.formula
    assert any("15.2 GFLOPs" in a for a in d.assumptions)
    with_len = derived.flops_per_token(qwen25_7b(), derived.Inputs(seq_len=4096))
    assert with_len.value == 6 * 7.61e9 + 6 * 28 * 4096 * 3584
    lora = derived.flops_per_token(qwen25_7b(), derived.Inputs(method="lora"))
    assert lora.value == 4 * 7.61e9


# -- the run's relations (FORMULAS) solved for the figure left out, each by hand ----------------------------------
def test_checkpoints_saved_by_the_launch_script_rule():
    # launch-script note: checkpoints = TRAIN_ITERS // SAVE_INTERVAL + 1 -> 2000 // 500 + 1 = 5; 1050 // 100 + 1 = 11
    assert derived.derive("checkpoints_saved", None, derived.Inputs(iterations=2000, save_interval=500)).value == 5
    d = derived.derive("checkpoints_saved", None, derived.Inputs(iterations=1050, save_interval=100))
    assert d.value == 11 and "TRAIN_ITERS//SAVE_INTERVAL + 1 = 1050//100 + 1 = 11" in d.formula


def test_checkpoints_from_the_default_iterations():
    # TRAIN_ITERS unset: SN / GBS x EPOCH = 6400 / 64 x 3 = 300; 300 // 100 + 1 = 4
    d = derived.derive("checkpoints_saved", None, derived.Inputs(samples=6400, global_batch=64, epochs=3, save_interval=100))
    assert d.value == 4 and "300//100 + 1 = 4" in d.formula


def test_save_interval_for_a_checkpoint_count():
    # 5 checkpoints in 1200 iterations: 1200 // S = 4 -> S from 241 (1200 // 241 = 4) to 300 (1200 // 300 = 4); 300 leads
    d = derived.derive("save_interval_for", None, derived.Inputs(iterations=1200, checkpoints=5))
    assert d.value == 300 and "241" in " ".join(d.assumptions)
    # 3 checkpoints in 900: 900 // S = 2 -> S = 450 (301..450)
    assert derived.derive("save_interval_for", None, derived.Inputs(iterations=900, checkpoints=3)).value == 450
    with pytest.raises(derived.NotDerivable):  # one checkpoint is the last save alone: no interval gives it
        derived.derive("save_interval_for", None, derived.Inputs(iterations=900, checkpoints=1))


def test_data_parallel_and_devices_from_the_batch():
    # GBS = MBS x DP x GA: 512 / (2 x 16) = 16
    assert derived.derive("dp_for_batch", None, derived.Inputs(global_batch=512, micro_batch=2, grad_accum=16)).value == 16
    # DP = 64 / (1 x 8) = 8; devices = DP 8 x TP 8 x PP 2 = 128
    d = derived.derive("devices_for_layout", None, derived.Inputs(global_batch=64, micro_batch=1, grad_accum=8, tp=8, pp=2))
    assert d.value == 128 and "DP = GBS 64 / (MBS 1 × GA 8) = 8" in d.formula
    # 100 / (3 x 4) = 8.33: not a whole data parallelism, said
    d = derived.derive("dp_for_batch", None, derived.Inputs(global_batch=100, micro_batch=3, grad_accum=4))
    assert any("not a whole number" in a for a in d.assumptions)


def test_measured_throughput_has_no_speedup_factor():
    # 2e9 tokens / (64 cards x 20 h x 3600 s) = 434.03 tokens/s per card (η plans; a measurement holds it)
    d = derived.derive("throughput_achieved", None, derived.Inputs(tokens=2e9, devices=64, hours=20, speedup=0.9))
    assert round(d.value) == 434


def test_global_batch_for_tokens():
    # 524,288 tokens per step / 4096 = 128 sequences
    assert derived.derive("global_batch_for_tokens", None, derived.Inputs(step_tokens=524288, seq_len=4096)).value == 128


def test_a_runs_steps_follow_one_rounding_rule():
    # TRAIN_ITERS = SN / GBS * EPOCH in the launch script's whole-number arithmetic, left to right:
    # 50,000 // 64 = 781 (781.25), x 2 = 1,562; a trainer keeping each epoch's partial batch runs 782 x 2 = 1,564
    i = derived.Inputs(samples=50000, global_batch=64, epochs=2, save_interval=500)
    assert derived.steps_per_epoch(None, i).value == 781
    total = derived.total_steps(None, i)
    assert total.value == 1562 and "782 × 2 = 1,564" in "; ".join(total.assumptions)
    # the checkpoints count the same TRAIN_ITERS: 1562 // 500 + 1 = 4, and no other value of it is shown
    saves = derived.derive("checkpoints_saved", None, i)
    assert saves.value == 4 and "1562//500 + 1 = 4" in saves.formula and "1,562.5" not in saves.formula
    # 12,000 // 64 = 187 x 5 = 935 (937.5 over the run would be one more partial step per epoch, not a whole one)
    assert derived.total_steps(None, derived.Inputs(samples=12000, global_batch=64, epochs=5)).value == 935


# -- per-layer and per-token figures from the figures the user states (research/sizing_formulas.md) --------------------
def test_kv_per_token_from_stated_figures():
    # 2 (K, V) x 48 layers x 8 KV heads x head dim 128 x 2 B (bf16) = 196,608 B = 192 KiB
    d = derived.kv_per_token(None, derived.Inputs(figures=(("head_dim", 128), ("kv_heads", 8), ("layers", 48))))
    assert d.value == 2 * 48 * 8 * 128 * 2 == 196_608 and "192 KiB" in d.formula
    # an 8-bit cache halves it
    assert derived.kv_per_token(None, derived.Inputs(figures=(("head_dim", 128), ("kv_heads", 8), ("layers", 48)),
                                                     kv_bytes=1.0)).value == 98_304


def test_kv_per_request_and_missing_figure():
    # 192 KiB x 16,384 tokens = 3 GiB
    i = derived.Inputs(figures=(("head_dim", 128), ("kv_heads", 8), ("layers", 48)), seq_len=16384)
    assert derived.kv_per_request(None, i).value == 196_608 * 16384 == 3 * 2**30
    with pytest.raises(derived.NotDerivable) as e:  # no KV heads said: that figure is asked for, not a model
        derived.kv_per_token(None, derived.Inputs(figures=(("head_dim", 128), ("layers", 48))))
    assert e.value.field == "kv_heads"


def test_activation_per_layer_fused_no_recompute():
    # Korthikanti s·b·h·34 B with a fused attention kernel: 4096 x 1 x 4096 x 34 = 570,425,344 B; x 32 layers = 18.25 GB
    i = derived.Inputs(figures=(("hidden", 4096), ("layers", 32)), seq_len=4096, micro_batch=1, recompute=False)
    d = derived.activation_per_layer(None, i)
    assert d.value == 4096 * 1 * 4096 * 34 == 570_425_344
    assert "18.25 GB" in d.formula


def test_activation_per_layer_eager_and_recompute():
    # eager attention adds 5·a·s/h: 2048 x 2 x 8192 x (34 + 5 x 64 x 2048 / 8192 = 80) = 3,825,205,248 B
    i = derived.Inputs(figures=(("heads", 64), ("hidden", 8192)), seq_len=2048, micro_batch=2, fused_attention=False)
    assert derived.activation_per_layer(None, i).value == 2048 * 2 * 8192 * (34 + 80) == 3_825_205_248
    # full recompute keeps the layer's 2·s·b·h input: Qwen2.5-7B h 3584, seq 2048, b 1 -> 14,680,064 B
    d = derived.activation_per_layer(qwen25_7b(), derived.Inputs(seq_len=2048, recompute=True))
    assert d.value == 2 * 2048 * 3584 == 14_680_064 and "28 layers" in d.formula
def test_packed_steps_count_the_packed_sequences():
    """Packing with the tokens per sample: the steps count ⌈samples × tokens / length⌉ packed sequences (hand computation:
    1,200,000 × 600 / 4096 = 175,781.25 → 175,782 sequences; GBS 8 × 2 × 8 = 128; ⌊175,782 / 128⌋ = 1,373 × 3 = 4,119),
    not the samples (1,200,000 / 128 = 9,375 × 3 = 28,125)."""
    i = derived.Inputs(samples=1_200_000, sample_tokens=600, packing=True, seq_len=4096, devices=8, micro_batch=2,
                       grad_accum=8, epochs=3)
    d = derived.derive("total_steps", None, i)
    assert d.value == 4119 and "175,782 packed sequences" in d.formula
    assert derived.derive("steps_per_epoch", None, i).value == 1373


def test_tokens_per_sample_without_packing_leave_the_samples_as_sequences():
    i = derived.Inputs(samples=200_000, sample_tokens=500, packing=False, seq_len=2048, devices=8, micro_batch=2,
                       grad_accum=4, epochs=3)
    d = derived.derive("total_steps", None, i)
    assert d.value == 9375  # 200,000 / 64 = 3,125 × 3
    assert any("500 tokens per sample do not change" in a for a in d.assumptions)
