"""The planner: the smallest plan that fits, trying the fastest setting first. Pure functions.

"Fits" here is the upper end of the estimate's range (margin.py): a plan holds even where the estimate
runs low, as the measurements show it can; TrainConfig.tightest sizes on the point estimate instead.

Device counts are 1, 2, 4, 8 (in the device's unit: Snt9B23 starts at 2 DIE), then whole nodes.
Settings come in two tiers; the slow tier (ZeRO-2/3 with CPU offload; Megatron full recompute) is
tried only when nothing in the fast tier fits within max_devices, since it trades a large slow-down
for memory. Within the fast tier:
- LLaMA-Factory/DeepSpeed: ZeRO-0, 1, 2, 3 in that order, each on the fewest devices up to 8 (the
  "start fastest, step down on OOM" rule within one node); if no stage fits in 8, the fewest devices.
- MindSpeed-LLM/Megatron: the fewest devices, and at that count the least model parallelism
  (TP before PP, EP for MoE) with the distributed optimizer; above 32768 tokens every layout has
  CP >= 2 (the ModelArts rule), so a job there needs at least 2 devices.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import constants as C
from .layout import tp_splits_heads
from .memory import Breakdown, Device, TrainConfig, split_params, training_memory
from .shape import Shape

LF_FAST = ((0, False), (1, False), (2, False), (3, False))
LF_SLOW = ((2, True), (3, True))


@dataclass
class Plan:
    fits: bool
    devices: int
    nodes: int
    per_node: int
    cfg: TrainConfig
    memory: Breakdown
    grad_accum: int
    global_batch: int
    tier: str  # fast | slow | none
    reason: str
    memory_devices: int | None = None  # fewest devices device memory holds it on, with any on-device setting
    fast_devices: int | None = None  # fewest devices for the fast tier (before vendor practice)
    practice: str | None = None  # why the recommendation is above the memory minimum
    practice_full: int | None = None  # the full fine-tuning count (estimate) the LoRA practice halves
    faster: Plan | None = None  # the fast-tier plan on more nodes, when a GPU job is kept on one node with offload


def _plan_from(hit, dev: Device, tier: str, reason: str, **extra) -> Plan:
    """A fitting Plan from a search hit (cfg, memory, (grad_accum, global_batch)): nodes and per-node
    count follow from the device count."""
    cfg, mem, (ga, gb) = hit
    n = cfg.devices
    nodes = -(-n // dev.devices_per_node)
    return Plan(True, n, nodes, -(-n // nodes), cfg, mem, ga, gb, tier, reason, **extra)  # 12 cards: 2 nodes x 6


def device_counts(dev: Device, max_devices: int) -> list[int]:
    """1, 2, 4 ... up to one node (in the device's minimum unit), then whole nodes (powers of two)."""
    out, n = [], max(1, dev.min_unit)
    while n < dev.devices_per_node:
        out.append(n)
        n *= 2
    nodes = 1
    while nodes * dev.devices_per_node <= max_devices:
        out.append(nodes * dev.devices_per_node)
        nodes = nodes * 2 if C.NODE_COUNT_RULE == "power_of_two" else nodes + 1
    return [x for x in out if x <= max_devices]


def _batch(n_dp: int, micro: int, global_batch: int | None, ga: int | None = None,
           nearest: bool = False) -> tuple[int, int] | None:
    """(GA, GBS) on ``n_dp`` data-parallel ranks: GA from the global batch, else the accumulation given (the user's) or
    the default, the global batch following the plan's data parallel (GBS = MBS x DP x GA). ``nearest``: a global batch
    that is no multiple of MBS x DP gets the nearest whole GA (at least 1) and the GBS that gives, instead of no plan."""
    if global_batch is None:
        ga = ga or C.DEFAULT_GRAD_ACCUM
        return ga, micro * ga * n_dp
    if global_batch % (micro * n_dp):
        if nearest:
            ga = max(1, round(global_batch / (micro * n_dp)))
            return ga, micro * n_dp * ga
        return None
    return global_batch // (micro * n_dp), global_batch


def _lf_settings(base: TrainConfig, slow: bool):
    for z, off in LF_SLOW if slow else LF_FAST:
        if (base.zero_fixed is not None and z != base.zero_fixed) or (base.offload_fixed is not None and off != base.offload_fixed):
            continue  # a stage or offload the user chose: the plan keeps to it
        if (z and base.framework in C.UNSHARDED_FRAMEWORKS) or (z in (1, 2) and base.framework in C.FSDP_FRAMEWORKS):
            continue
        if z == 3 and base.framework == "LLaMA-Factory" and (base.stage == "ppo" or base.precision == "pure_bf16"
                                                             or (base.method == "qlora" and base.quant_bits != 4)):
            # ModelArts: no PPO with ZeRO-3; LLaMA-Factory: no pure_bf16, QLoRA only 4-bit with DeepSpeed ZeRO-3 (the
            # tools' own check, estimate_support.check_train_args); torchtune and litgpt train pure bf16 under FSDP
            continue
        yield base._replace(zero_stage=z, offload=off)


def _pow2_upto(limit: int) -> list[int]:
    out, x = [], 1
    while x <= limit:
        out.append(x)
        x *= 2
    return out


def needs_cp(seq_len: int) -> bool:
    """MindSpeed-LLM on ModelArts: CP >= 2 is required beyond 32768 tokens."""
    return seq_len > C.CP_REQUIRED_ABOVE


def _ms_settings(s: Shape, base: TrainConfig, n: int, dev: Device, slow: bool):
    """Megatron layouts for n devices, fastest first: least model parallelism, TP before PP."""
    kv = s.heads if s.is_mla else s.kv_heads
    tps = [t for t in _pow2_upto(dev.devices_per_node) if tp_splits_heads(t, s.heads, kv)]
    cps = [c for c in _pow2_upto(C.MAX_CP) if c >= 2] if needs_cp(base.seq_len) else [1]
    layouts = []
    for tp in tps:
        for pp in _pow2_upto(min(s.layers, n)):
            for cp in cps:
                mp = tp * pp * cp
                if n % mp == 0:
                    layouts.append((mp, pp, cp, tp))
    for _mp, pp, cp, tp in sorted(layouts):
        dp = n // (tp * pp * cp)
        ep = 1
        if s.is_moe:
            while ep * 2 <= dp and s.experts % (ep * 2) == 0:
                ep *= 2
        yield base._replace(tp=tp, pp=pp, cp=cp, ep=ep, recompute=slow)


def _fits(s: Shape, cfg: TrainConfig, dev: Device, global_batch: int | None):
    batch = _batch(cfg.dp, cfg.micro_batch, global_batch, cfg.grad_accum_fixed, nearest=cfg.all_devices)
    if batch is None:
        return None
    cfg = cfg._replace(grad_accum=batch[0])  # accumulation keeps gradients alive between micro-batches
    mem = training_memory(s, cfg, dev)
    return (cfg, mem, batch) if mem.plan_fits and mem.host_fits else None


def _floor_gib(s: Shape, base: TrainConfig, dev: Device):
    """A lower bound of per-device memory at n devices: model states fully split n ways (>= 16 bytes per
    trained parameter, 2 per frozen one) plus the runtime overhead. Lets the search skip hopeless counts."""
    ps = split_params(s, base)
    floor = 16 * ps.trainable + 16 * ps.adapters + 2 * ps.frozen + (base.quant_bits / 8) * ps.quantized
    runtime = C.CONTEXT_GIB.get(dev.kind, C.CONTEXT_GIB["gpu"])
    return lambda n: floor / n / C.GIB + runtime


def _fewest_devices(s: Shape, base: TrainConfig, dev: Device, counts: list[int], slow: bool,
                    global_batch: int | None):
    """The fewest devices at which any setting of the tier fits; the fastest setting at that count."""
    if base.megatron or not slow:  # with CPU offload the states are not on the device: no floor
        floor = _floor_gib(s, base, dev)
        counts = [n for n in counts if floor(n) <= dev.capacity_gib]
    for n in counts:
        cands = (_ms_settings(s, base._replace(devices=n), n, dev, slow) if base.megatron
                 else _lf_settings(base._replace(devices=n), slow))
        for cfg in cands:
            hit = _fits(s, cfg, dev, global_batch)
            if hit:
                return hit
    return None


def _fastest_in_node(s: Shape, base: TrainConfig, dev: Device, counts: list[int], slow: bool,
                     global_batch: int | None):
    """DeepSpeed: try each ZeRO stage fastest first and take the first that fits within the fast-stage
    budget (8 devices, on the fewest devices for that stage); otherwise the fewest devices."""
    budget = min(dev.devices_per_node, C.FAST_STAGE_BUDGET)
    in_node = [n for n in counts if n <= budget]
    for cfg0 in _lf_settings(base, slow):
        for n in in_node:
            hit = _fits(s, cfg0._replace(devices=n), dev, global_batch)
            if hit:
                return hit
    return _fewest_devices(s, base, dev, [n for n in counts if n > budget], slow, global_batch)


def _tier_possible(s: Shape, base: TrainConfig, dev: Device, counts: list[int], slow: bool) -> bool:
    """Memory only falls as devices grow, so if no setting of the tier fits at the largest count,
    none fits at any count: one cheap check instead of a full search."""
    if not counts:
        return False
    n = counts[-1]
    cands = (_ms_settings(s, base._replace(devices=n), n, dev, slow) if base.megatron
             else _lf_settings(base._replace(devices=n), slow))
    for cfg in cands:
        m = training_memory(s, cfg, dev)
        if m.plan_fits and m.host_fits:
            return True
    return False


def _first_fit(s: Shape, base: TrainConfig, dev: Device, counts: list[int], slow: bool, global_batch: int | None):
    if not _tier_possible(s, base, dev, counts, slow):
        return None
    if not base.megatron and C.DEEPSPEED_POLICY == "fastest_stage_in_node":
        return _fastest_in_node(s, base, dev, counts, slow, global_batch)
    return _fewest_devices(s, base, dev, counts, slow, global_batch)


def plan_training(s: Shape, base: TrainConfig, dev: Device, max_devices: int | None = None,
                  global_batch: int | None = None, practice: bool = True) -> Plan:
    """The recommended plan (see _recommended), sized so the point times the planning margin fits
    (constants.PLAN_MARGIN: GPUs 1.16, Ascend 1.0); when no device count holds that (activations and loss buffers that no sharding splits), the tightest plan,
    whose verdict then says `tight`, rather than none."""
    plan = _recommended(s, base, dev, max_devices, global_batch, practice)
    if plan.fits or base.tightest:
        return plan
    tight = _recommended(s, base._replace(tightest=True), dev, max_devices, global_batch, practice)
    if not tight.fits:
        return plan
    tight.reason = f"tight: no device count holds the estimate with its planning margin; {tight.reason}"
    return tight


def _recommended(s: Shape, base: TrainConfig, dev: Device, max_devices: int | None = None,
                 global_batch: int | None = None, practice: bool = True) -> Plan:
    """The recommended plan: the memory minimum, raised to vendor practice for LoRA (constants.py,
    PRACTICE_LORA_FRACTION). The memory minimum stays in ``memory_devices``. ``practice=False``: the memory
    plan alone (the practice rule stands in for the vendor's count where its tables have no row for the job;
    where they have one, the row itself is that count)."""
    plan = memory_plan(s, base, dev, max_devices, global_batch)
    plan.fast_devices = plan.devices
    plan.memory_devices = minimum = _device_minimum(s, base, dev, plan, max_devices, global_batch)
    if base.all_devices:  # the user's own count: the plan is on it, no practice rule raises or lowers it
        return plan
    if not practice or not plan.fits or base.method != "lora" or dev.kind != "npu":  # the practice is ModelArts' (Ascend) own
        return plan
    full = memory_plan(s, base._replace(method="full"), dev, max_devices, global_batch)
    if not full.fits or (not base.megatron and full.devices <= C.PRACTICE_LF_FULL_ABOVE):
        return plan
    target = int(full.devices * C.PRACTICE_LORA_FRACTION)
    if target <= plan.devices:
        return plan
    counts = [n for n in device_counts(dev, max_devices or C.MAX_DEVICES_DEFAULT) if n >= target]
    hit = _first_fit(s, base, dev, counts, False, global_batch) or _first_fit(s, base, dev, counts, True, global_batch)
    if not hit:
        return plan
    return _plan_from(hit, dev, plan.tier, plan.reason, memory_devices=minimum, fast_devices=plan.devices,
                      practice_full=full.devices,
                      practice=(f"memory alone fits on {minimum}; recommended {hit[0].devices}, half of full "
                                f"fine-tuning's {full.devices}, as the ModelArts tables size LoRA jobs"))


def _device_minimum(s: Shape, base: TrainConfig, dev: Device, plan: Plan, max_devices: int | None,
                    global_batch: int | None) -> int:
    """The fewest devices whose memory holds the job with any setting that keeps it on the devices: for
    MindSpeed-LLM full recompute counts (it trades time, not memory elsewhere); CPU offload does not (the
    states then live in host RAM). Mixtral-8x7B full fine-tuning at 4096 tokens on Snt9B: the fast plan
    needs 32 cards, full recompute fits 16 (the minimum-card table's count)."""
    if plan.faster:  # kept on one node with offload: without offload it takes the multi-node plan's devices
        return plan.faster.devices
    if not plan.fits or not base.megatron or plan.tier != "fast":
        return plan.devices
    counts = [n for n in device_counts(dev, max_devices or C.MAX_DEVICES_DEFAULT) if n < plan.devices]
    hit = _first_fit(s, base, dev, counts, True, global_batch)
    return hit[0].devices if hit else plan.devices


def fewer_devices(s: Shape, base: TrainConfig, dev: Device, plan: Plan, max_devices: int | None = None,
                  global_batch: int | None = None) -> Plan | None:
    """The slow tier's smallest plan (CPU offload for DeepSpeed, full recompute for Megatron) when it
    needs fewer devices than the recommended fast-tier plan, else None: the answer to "what is the
    least I can get away with" beside the recommendation."""
    if not plan.fits or (plan.tier != "fast" and not plan.faster):  # a GPU job kept on one node: its fewest too
        return None
    below = plan.devices if plan.faster else (plan.fast_devices or plan.devices)
    counts = [n for n in device_counts(dev, max_devices or C.MAX_DEVICES_DEFAULT) if n < below]
    hit = _first_fit(s, base, dev, counts, True, global_batch)
    if not hit:
        return None
    return _plan_from(hit, dev, "slow", "needs " + ("full recompute" if base.megatron else "CPU offload") + " to fit on fewer devices")


def smaller_micro_batch(s: Shape, base: TrainConfig, dev: Device, plan: Plan, max_devices: int | None = None,
                        global_batch: int | None = None, practice: bool = True) -> Plan | None:
    """The plan at micro batch 1 when the user's larger micro batch does not fit or needs more devices: the
    activations and the fp32 loss grow with the sequences of one micro-batch, the model states do not, so a
    sequence-bound job is usually fitted by the batch, not by more devices. The sequences per optimizer step
    are kept by multiplying gradient accumulation by the old micro batch (the returned grad_accum and
    global_batch say so). None when the micro batch is already 1 or 1 does not help."""
    if base.micro_batch <= 1:
        return None
    one = plan_training(s, base._replace(micro_batch=1), dev, max_devices, global_batch, practice)
    if not one.fits or (plan.fits and one.devices >= plan.devices):
        return None
    if global_batch is None:  # keep the sequences per step per device: GA x old micro batch
        one.grad_accum *= base.micro_batch
        one.global_batch *= base.micro_batch
    return one


def longest_seq_len(s: Shape, cfg: TrainConfig, dev: Device, step: int = 1024) -> int:
    """The longest sequence (a multiple of `step`, at most cfg.seq_len) at which `cfg` fits; 0 if none.
    Memory grows with the sequence, so a binary search over multiples of `step` finds it."""
    def fits(k: int) -> bool:
        m = training_memory(s, cfg._replace(seq_len=k * step), dev)
        return m.plan_fits and m.host_fits

    lo, hi = 0, cfg.seq_len // step  # fits(lo) is taken as true, the answer is in [lo, hi]
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo * step


def _one_node_with_offload(s: Shape, base: TrainConfig, dev: Device, fast_hit, max_devices: int | None,
                           global_batch: int | None) -> Plan | None:
    """On GPUs, a job whose fastest setting needs more than one node but that one node holds with CPU offload is planned
    on all of that node's devices (DeepSpeed's advice: step down to offload when out of memory; a second node costs more
    than the slow-down), with the multi-node plan beside it (`faster`). Ascend keeps the vendor tables' practice of
    adding cards."""
    if dev.kind != "gpu" or max_devices or base.megatron or fast_hit[0].devices <= dev.devices_per_node:
        return None
    # the whole node, as a device limit would (constants: within a limit the slow tier uses every device it has)
    hit = _first_fit(s, base, dev, [dev.devices_per_node], True, global_batch)
    if not hit:
        return None
    fast = _plan_from(fast_hit, dev, "fast", "fastest setting at the fewest devices")
    return _plan_from(hit, dev, "slow", f"needs CPU offload to fit on one node (without offload: {fast.devices} devices "
                                        f"on {fast.nodes} nodes)", faster=fast)


def memory_plan(s: Shape, base: TrainConfig, dev: Device, max_devices: int | None = None,
                global_batch: int | None = None) -> Plan:
    """The smallest plan that fits in memory, fastest setting first."""
    limit = max_devices or C.MAX_DEVICES_DEFAULT
    # the user's own devices (all_devices): that one count, whole nodes or not ("we have 24 cards": 3 nodes x 8)
    counts = [limit] if base.all_devices and max_devices and limit % max(1, dev.min_unit) == 0 else device_counts(dev, limit)
    for tier in ("fast", "slow"):
        # within the user's devices a slow setting (offload, full recompute) runs faster on all of them and
        # needs less per device: the most devices first; without a cap, the fewest (the memory minimum)
        slow = tier == "slow"
        if slow and max_devices:
            hit = next((h for n in counts[::-1] if (h := _first_fit(s, base, dev, [n], True, global_batch))), None)
        else:
            hit = _first_fit(s, base, dev, counts, slow, global_batch)
        if hit and not slow and (kept := _one_node_with_offload(s, base, dev, hit, max_devices, global_batch)):
            return kept
        if hit:
            return _plan_from(hit, dev, tier, "fastest setting at the fewest devices" if tier == "fast"
                              else "needs " + ("CPU offload" if not base.megatron else "full recompute") + " to fit")
    # Nothing fits: report the largest allowed count with the most memory-saving setting.
    n = counts[-1] if counts else max(1, dev.min_unit)
    reason = f"does not fit within max_devices={limit}"
    if base.megatron:
        layouts = list(_ms_settings(s, base._replace(devices=n), n, dev, True))
        if layouts:
            cfg = layouts[-1]
        else:  # n = 1 beyond 32K: no layout has the CP >= 2 the vendor requires
            cfg = base._replace(devices=n, tp=1, pp=1, cp=1, recompute=True)
            reason += f"; beyond {C.CP_REQUIRED_ABOVE} tokens MindSpeed-LLM needs CP >= 2, so at least 2 devices"
    else:
        cfg = base._replace(devices=n, zero_stage=3 if base.stage != "ppo" else 2, offload=True)
    mem = training_memory(s, cfg, dev)
    ga, gb = _batch(cfg.dp, cfg.micro_batch, None, cfg.grad_accum_fixed) or (C.DEFAULT_GRAD_ACCUM, 0)
    return Plan(False, n, -(-n // dev.devices_per_node), min(n, dev.devices_per_node), cfg, mem, ga, gb, "none", reason)
