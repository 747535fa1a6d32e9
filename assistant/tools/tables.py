"""Table tools: exact answers from the vendor tables, catalog look-ups and note search.

No ``from __future__ import annotations`` here: pydantic would compile every annotation string at
import, a measurable part of a one-shot `sizing call`."""

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..errors import SizingError
from ..estimate.shape import arch_of
from ..resolve import variant_of
from .common import AscendPart, Framework, ModelName, NoteLang, SeqLen, Strategy
from .estimate_support import refuse_unmodelled_family
from .model_filter import Compare, model_passes
from .registry import tool

PRACTICAL_NOTE = (
    "The minimum-card table notes that jobs needing fewer than 8 cards are in practice run on 8; "
    "on Snt9B23 1 DIE ~ 1 Snt9B card and 2 DIE is the smallest parallel unit."
)


def pick_seq_len(requested: int | None, listed: list[int]) -> tuple[int | None, str | None]:
    """The table row to answer from: the requested length if listed, else the nearest listed one at
    or above it (with a note), else None when the request is longer than anything listed."""
    listed = sorted(set(listed))
    if requested is None or not listed:
        return None, None
    if requested in listed:
        return requested, None
    above = [s for s in listed if s >= requested]
    if above:
        return above[0], f"The table lists {listed}; {requested} tokens is answered from the {above[0]}-token row."
    return None, f"The table lists only {listed} tokens; nothing covers {requested}. Use plan_training for an estimate."


class TableModel(BaseModel):
    """Base of this module's models: each builds its validator on first use rather than at import,
    so a one-shot `sizing call` pays only for the two models of the tool it runs."""

    model_config = ConfigDict(defer_build=True)


# ---------------------------------------------------------------- resolve_model / catalog
class ResolveModelArgs(TableModel):
    name: ModelName


class ModelInfo(TableModel):
    id: str = Field(description="Canonical model id used by every tool.")
    display_name: str | None = Field(None, description="The model's name as usually written (catalog).")
    family: str | None = Field(None, description="Model family (catalog), e.g. qwen2.5.")
    arch: str | None = Field(None, description="Architecture class (catalog): dense, moe, mla_moe or encoder.")
    params_b: float | None = Field(None, description="Total parameters, billions.")
    active_params_b: float | None = Field(None, description="Parameters active per token, billions (MoE).")
    modality: str | None = Field(None, description="text, vision-language, embedding or reranker (catalog).")
    template: str | None = Field(None, description="LLaMA-Factory chat template.")
    max_context: int | None = Field(None, description="The model's own context limit in tokens (catalog, max_position_embeddings).")
    context_variant: str | None = Field(None, description="The variant whose config gives max_context (e.g. Qwen2.5-7B-Instruct), "
                                        "when the variants' limits differ: the one the name gives, else the one used by default.")
    context_by_variant: dict[str, int] = Field(default_factory=dict, description="Each variant's own context limit, by "
                                               "its name, when they differ (Qwen2.5-7B 131072, Qwen2.5-7B-Instruct 32768).")
    in_tables: list[str] = Field(default_factory=list, description="Vendor tables with rows for this model.")


def model_info(ctx, model_id: str, variant: str | None = None) -> ModelInfo:
    m = ctx.kb.model(model_id, variant) or {"id": model_id}
    tables = []
    if ctx.kb.recipes(model_id):
        tables.append("recipes_llamafactory")
    if ctx.kb.min_cards(model_id, None, None, None):
        tables.append("min_cards")
    if ctx.kb.vllm_rows(model_id):
        tables.append("vllm_min_cards")
    fields = set(ModelInfo.model_fields) - {"in_tables", "context_by_variant"}
    by_variant = {v["hf_repo"].split("/")[-1]: int(v["max_context"]) for v in ctx.kb.context_variants(model_id)}
    return ModelInfo(**{k: m.get(k) for k in fields}, in_tables=tables, context_by_variant=by_variant)


@tool
def resolve_model(ctx, args: ResolveModelArgs) -> ModelInfo:
    """Resolve a model name in any spelling (Chinese, HF repo, vendor-table style) to the canonical id, with its size and the vendor tables that list it.

    Unknown names return an error listing the closest known models; an encoder-decoder model (T5, BART, Whisper, …) returns
    an error saying the estimator sizes decoder-only models."""
    try:
        model_id = ctx.resolver.model_id(args.name)
    except SizingError:
        refuse_unmodelled_family(args.name)
        raise
    return model_info(ctx, model_id, variant_of(args.name))


class ListModelsArgs(TableModel):
    family: str | None = Field(None, max_length=50, description="Only this family (e.g. qwen2.5, llama3.1).")
    in_tables_only: bool = Field(False, description="Only models that appear in a vendor table.")
    framework: Framework | None = Field(None, description="Only models the vendor training tables list as supported with this "
                                        "framework (a minimum-card row with a card count; for LLaMA-Factory also recipe-table rows).")
    strategy: Strategy | None = Field(None, description="With framework: only rows of this strategy (lora or full).")
    serving_cards: int | None = Field(None, ge=1, le=1024, description="Serving cards: only the models the newest ModelArts vLLM table serves on this many 64 GB cards, with the max-model-len it tested.")
    arch: Literal["dense", "moe"] | None = Field(None, description="dense or moe models only.")
    params_b: Compare | None = Field(None, description="Parameters (B) compared.")


# Models a framework supports: a min_cards row with a card count ('-' rows are unsupported), plus,
# for LLaMA-Factory, the models of its own recipe table unless the newer min_cards table marks every
# LLaMA-Factory row of the model '-' (qwen2-1.5b: the recipe row is outdated, see tables_caveats.md).
SUPPORTED_MODEL_IDS = """
SELECT DISTINCT model_id FROM min_cards WHERE framework = $1 AND supported AND ($2 IS NULL OR strategy = $2)
UNION
SELECT DISTINCT model_id FROM recipes_llamafactory
WHERE $1 = 'LLaMA-Factory' AND ($2 IS NULL OR strategy = $2)
  AND model_id NOT IN (SELECT model_id FROM min_cards WHERE framework = 'LLaMA-Factory' GROUP BY model_id HAVING NOT bool_or(supported))
"""
# "which models need 4 cards in the newest vLLM table": its supported rows with that card count (64 GB, utilisation 0.95)
NEWEST_VLLM_ROWS = """
SELECT model_id, cards, max_model_len, source FROM vllm_min_cards WHERE "table" = 'vllm-newest' AND supported AND cards = $1
"""
OVERRIDDEN_RECIPE_IDS = """
SELECT DISTINCT model_id FROM recipes_llamafactory
WHERE model_id IN (SELECT model_id FROM min_cards WHERE framework = 'LLaMA-Factory' GROUP BY model_id HAVING NOT bool_or(supported))
ORDER BY model_id
"""


class ModelSummary(TableModel):
    id: str = Field(description="Canonical model id.")
    family: str | None = Field(None, description="Model family (catalog).")
    params_b: float | None = Field(None, description="Total parameters, billions (catalog).")
    active_params_b: float | None = Field(None, description="Parameters active per token, billions (MoE; catalog).")
    arch: str | None = Field(None, description="dense or moe: routed experts in the catalog row.")
    modality: str | None = Field(None, description="text, vision-language, embedding or reranker (catalog).")
    in_tables: bool = Field(False, description="Whether any vendor table has a row for this model.")
    vllm_cards: int | None = Field(None, description="With serving_cards: the newest vLLM table's card count for the model.")
    vllm_max_model_len: int | None = Field(None, description="With serving_cards: the max-model-len that table tested.")


class ListModelsResult(TableModel):
    count: int = Field(description="Number of models listed.")
    models: list[ModelSummary] = Field(description="The models that match the filters.")
    notes: list[str] = Field(default_factory=list, description="Models left out and why (framework filter).")
    vllm_source: str | None = Field(None, description="With serving_cards: the vLLM table the rows come from.")


@tool
def list_models(ctx, args: ListModelsArgs) -> ListModelsResult:
    """List the models in the catalog (optionally one family, only those in the vendor tables, or only those the tables list as supported with a framework)."""
    in_tables = ctx.kb.table_model_ids()
    fam = (args.family or "").strip().lower()
    supported, notes = None, []
    if args.framework:
        supported = {r["model_id"] for r in ctx.kb.cached(SUPPORTED_MODEL_IDS, [args.framework, args.strategy])}
        if args.framework == "LLaMA-Factory":
            notes += [f"{r['model_id']}: in the older LLaMA-Factory recipe table, but '-' (not supported) for LLaMA-Factory in the "
                      "2025-06-24 minimum-card table, so left out." for r in ctx.kb.cached(OVERRIDDEN_RECIPE_IDS)]
    served = {r["model_id"]: r for r in ctx.kb.cached(NEWEST_VLLM_ROWS, [args.serving_cards])} if args.serving_cards else None
    out = []
    for m in ctx.kb.models():
        if fam and fam not in str(m.get("family", "")).lower() and not str(m["id"]).startswith(fam):
            continue
        if args.in_tables_only and m["id"] not in in_tables:
            continue
        if not model_passes(m, args.arch, args.params_b):
            continue
        if supported is not None and m["id"] not in supported:
            continue
        if served is not None and m["id"] not in served:
            continue
        row = (served or {}).get(m["id"]) or {}
        out.append(ModelSummary(id=m["id"], family=m.get("family"), params_b=m.get("params_b"),
                                active_params_b=m.get("active_params_b"), arch=arch_of(m), modality=m.get("modality"),
                                in_tables=m["id"] in in_tables, vllm_cards=row.get("cards"),
                                vllm_max_model_len=row.get("max_model_len")))
    source = next((r["source"] for r in (served or {}).values()), None)
    return ListModelsResult(count=len(out), models=out, notes=notes, vllm_source=source)


class ListHardwareArgs(TableModel):
    pass


class HardwareInfo(TableModel):
    id: str = Field(description="Hardware catalog id (the hardware argument of the estimator tools).")
    name: str = Field(description="Hardware name.")
    vendor: str | None = Field(None, description="Vendor: huawei, nvidia or amd.")
    memory_gb: float = Field(description="Memory per device (per DIE on Snt9B23), GB.")
    devices_per_node: int = Field(description="Devices per node (cards; DIE on Snt9B23).")
    unit: str = Field(description="What one device is: card or DIE.")
    dies_per_card: int | None = Field(None, description="DIE per physical card (2 on Snt9B23).")
    min_parallel_unit: int | None = Field(None, description="Smallest device count a job uses (2 DIE on Snt9B23).")
    bf16_tflops: float | None = Field(None, description="Peak dense BF16 TFLOPS per device (vendor datasheet; null where none is published, as for Ascend), used by estimate_training_time.")
    fp16_tflops: str | None = Field(None, description="Peak dense FP16 TFLOPS per device as the source gives it (a range where third-party figures conflict); null where none was found.")
    compute_source: str | None = Field(None, description="Where the TFLOPS figures come from when not the row's source (third-party, conflicting, or none found).")
    bf16: bool | None = Field(None, description="Computes in BF16 (false: train in FP16, the same bytes).")
    fp8: bool | None = Field(None, description="Computes in FP8 (serves FP8 checkpoints W8A8); false: converted or weight-only.")
    notes: str | None = Field(None, description="Catalog remarks: memory per DIE, usable capacity, what is inferred or unverified.")
    notes_zh: str | None = Field(None, description="The same in Chinese, where the catalog has it.")
    source: str | None = Field(None, description="Where the catalog row's figures come from (vendor pages, datasheets).")
    interconnect: str | None = Field(None, description="How the devices are joined within a node and between nodes.")
    interconnect_zh: str | None = Field(None, description="The same in Chinese, where the catalog has it.")
    naming: str | None = Field(None, description="Other names and variants of the part (with their sources), and what about them is unverified.")
    naming_zh: str | None = Field(None, description="The same in Chinese, where the catalog has it.")
    flavors: str | None = Field(None, description="ModelArts flavor names of the part, ';'-separated, each with its device count.")
    flavors_source: str | None = Field(None, description="Where the flavor names come from.")
    job_devices: str | None = Field(None, description="Device counts a job on one node may get, ';'-separated (null: any).")
    job_devices_source: str | None = Field(None, description="Where the allowed job device counts come from, with the rule.")
    ai_cores: int | None = Field(None, description="AI cores per device, where a source gives them.")
    ai_cores_source: str | None = Field(None, description="Where the AI-core count comes from.")


class ListHardwareResult(TableModel):
    hardware: list[HardwareInfo] = Field(description="Every hardware in the catalog.")


@tool
def list_hardware(ctx, args: ListHardwareArgs) -> ListHardwareResult:
    """List the hardware catalog: Ascend Snt9B/Snt9B23 and common NVIDIA GPUs with memory and devices per node."""
    fields = set(HardwareInfo.model_fields)
    return ListHardwareResult(hardware=[HardwareInfo(**{k: h.get(k) for k in fields}) for h in ctx.kb.hardware()])


# ---------------------------------------------------------------- training_recipe (table 1)
class TrainingRecipeArgs(TableModel):
    model: ModelName
    strategy: Strategy = "lora"
    seq_len: SeqLen = 4096


class RecipeRow(TableModel):
    model_id: str = Field(description="Canonical model id.")
    family: str = Field(description="Model family (recipe table).")
    template: str = Field(description="LLaMA-Factory chat template.")
    size: str = Field(description="Model size as written in the table.")
    strategy: str = Field(description="lora or full.")
    cutoff_len: int = Field(description="cutoff_len (tokens) of the row.")
    grad_accum: int = Field(description="gradient_accumulation_steps.")
    deepspeed: str = Field(description="As written in the table, e.g. ZeRO-3-Offload.")
    zero_stage: int = Field(description="DeepSpeed ZeRO stage, from the deepspeed column.")
    offload: bool = Field(description="CPU offload, from the deepspeed column.")
    nodes: int = Field(description="Nodes.")
    cards_per_node: int = Field(description="Cards per node.")
    total_cards: int = Field(description="Total cards (nodes x cards_per_node).")
    spec_cell: str = Field(description="The table's nodes-and-cards cell, e.g. '1*节点 & 8*Ascend'.")
    source: str = Field(description="The vendor document the row was transcribed from (title, page id or seed file).")


class TrainingRecipeResult(TableModel):
    model_id: str = Field(description="Canonical model id.")
    strategy: str = Field(description="lora or full, as asked.")
    seq_len: int = Field(description="Sequence length asked for.")
    seq_len_used: int | None = Field(None, description="Table row's cutoff_len the answer comes from.")
    found: bool = Field(description="Whether a row covers seq_len.")
    zero_stage: int | None = Field(None, description="DeepSpeed ZeRO stage of the row used.")
    offload: bool | None = Field(None, description="CPU offload in the row used.")
    grad_accum: int | None = Field(None, description="gradient_accumulation_steps of the row used.")
    nodes: int | None = Field(None, description="Nodes in the row used.")
    cards_per_node: int | None = Field(None, description="Cards per node in the row used.")
    total_cards: int | None = Field(None, description="Total cards in the row used.")
    template: str | None = Field(None, description="LLaMA-Factory chat template.")
    deepspeed: str | None = Field(None, description="The deepspeed column as written, e.g. ZeRO-3-Offload.")
    source: str | None = Field(None, description="The vendor document the row was transcribed from (title, page id or seed file).")
    note: str | None = Field(None, description="Which row answered when seq_len is not listed, or that none covers it.")
    rows: list[RecipeRow] = Field(default_factory=list, description="Every table row for this model and strategy.")


@tool
def training_recipe(ctx, args: TrainingRecipeArgs) -> TrainingRecipeResult:
    """LLaMA-Factory recipe from the ModelArts table: DeepSpeed ZeRO stage, offload, gradient_accumulation_steps, nodes and cards per node, chat template.

    Covers the table's models at cutoff_len 4096/8192; a length not listed is answered from the next listed one above it."""
    model_id = ctx.resolver.model_id(args.model)
    all_rows = ctx.kb.recipes(model_id)
    if not all_rows:
        listed = sorted({r["model_id"] for r in ctx.kb.query("SELECT DISTINCT model_id FROM recipes_llamafactory")})
        raise SizingError("no_table_row", f"The LLaMA-Factory recipe table has no row for {model_id}.",
                          field="model", valid=listed, status=404)
    rows = [RecipeRow(**r) for r in all_rows if r["strategy"] == args.strategy]
    if not rows:
        raise SizingError("no_table_row", f"The recipe table has no {args.strategy} row for {model_id}.",
                          field="strategy", valid=sorted({r["strategy"] for r in all_rows}), status=404)
    used, note = pick_seq_len(args.seq_len, [r.cutoff_len for r in rows])
    res = TrainingRecipeResult(model_id=model_id, strategy=args.strategy, seq_len=args.seq_len,
                               seq_len_used=used, found=used is not None, note=note, rows=rows)
    if used is not None:
        row = next(r for r in rows if r.cutoff_len == used)
        for k in ("zero_stage", "offload", "grad_accum", "nodes", "cards_per_node", "total_cards", "template", "deepspeed", "source"):
            setattr(res, k, getattr(row, k))
    return res


# ---------------------------------------------------------------- min_cards (table 2)
class MinCardsArgs(TableModel):
    model: ModelName
    strategy: Strategy | None = Field(None, description="lora or full; omit for both.")
    seq_len: SeqLen | None = Field(None, description="SEQ_LEN; omit for every listed length.")
    framework: Framework | None = Field(None, description="MindSpeed-LLM or LLaMA-Factory; omit for both.")
    hardware: AscendPart | None = Field(None, description="Snt9B or Snt9B23; omit for both.")


class MinCardsRow(TableModel):
    model: str = Field(description="Model as written in the table.")
    model_id: str = Field(description="Canonical model id.")
    strategy: str = Field(description="lora or full.")
    seq_len: int = Field(description="SEQ_LEN of the row, tokens.")
    framework: str = Field(description="MindSpeed-LLM or LLaMA-Factory.")
    hardware: str = Field(description="Snt9B or Snt9B23.")
    cards: int | None = Field(description="Minimum cards (Snt9B) or DIE (Snt9B23); null when not supported.")
    supported: bool = Field(description="False where the table has '-'.")
    unit: str = Field(description="card on Snt9B, DIE on Snt9B23.")
    nodes: int | None = Field(None, description="Whole nodes needed: 8 cards per Snt9B node, 16 DIE per Snt9B23 node.")
    physical_cards: int | None = Field(None, description="Snt9B23 physical cards (2 DIE each).")
    cell: str = Field(description="The table cell as written.")
    merged_cell: bool = Field(description="True when the cell was empty in the source and takes its left neighbour's value (merged cell).")
    source: str = Field(description="The vendor document the row was transcribed from (title, page id or seed file).")


class MinCardsResult(TableModel):
    model_id: str = Field(description="Canonical model id.")
    strategy: str | None = Field(None, description="The strategy filter given, if any.")
    seq_len: int | None = Field(None, description="The sequence length asked for, if any.")
    seq_len_used: int | None = Field(None, description="The table row's SEQ_LEN that answers it.")
    framework: str | None = Field(None, description="The framework filter given, if any.")
    hardware: str | None = Field(None, description="The hardware filter given, if any.")
    cards: int | None = Field(None, description="Filled when exactly one row matches.")
    supported: bool | None = Field(None, description="Filled when exactly one row matches: false where the table has '-'.")
    unit: str | None = Field(None, description="Filled when exactly one row matches: card (Snt9B) or DIE (Snt9B23).")
    source: str | None = Field(None, description="Filled when exactly one row matches: the vendor document.")
    rows: list[MinCardsRow] = Field(description="Every matching table row.")
    notes: list[str] = Field(default_factory=list, description="Which row answered an unlisted length; the table's practical note on jobs under 8 cards.")


def _min_cards_row(r: dict[str, Any], part: dict[str, Any]) -> MinCardsRow:
    """A table row with its nodes and physical cards, from the catalog row of the row's part (``part``: 16 DIE per
    node and 2 DIE per card on Snt9B23; 8 cards per node on Snt9B)."""
    per_node, dies = int(part.get("devices_per_node") or 8), int(part.get("dies_per_card") or 1)
    cards = r["cards"]
    return MinCardsRow(
        **{k: r[k] for k in ("model", "model_id", "strategy", "seq_len", "framework", "hardware", "supported", "unit", "cell", "merged_cell", "source")},
        cards=cards,
        nodes=-(-cards // per_node) if cards else None,
        physical_cards=-(-cards // dies) if cards and dies > 1 else None,
    )


@tool
def min_cards(ctx, args: MinCardsArgs) -> MinCardsResult:
    """Minimum Ascend cards (Snt9B) or DIE (Snt9B23) from the ModelArts table (2025-06-24) for MindSpeed-LLM and LLaMA-Factory SFT/PT.

    Omitted filters return every matching row; unsupported combinations have cards null and supported false."""
    model_id = ctx.resolver.model_id(args.model)
    raw = ctx.kb.min_cards(model_id, args.strategy, args.framework, args.hardware)
    if not raw:
        # the model listed with another method only ("mixtral-8x7b: full rows, no LoRA row"): said apart from a model
        # the table does not list at all
        others = sorted({r["strategy"] for r in ctx.kb.min_cards(model_id, None, args.framework, args.hardware)}) if args.strategy else []
        if others:
            raise SizingError("no_table_row", f"The minimum-card table has no {args.strategy} row for {model_id}; it lists "
                              f"{model_id} for {', '.join(others)} only.", field="strategy", valid=others, status=404)
        listed = sorted({r["model_id"] for r in ctx.kb.query("SELECT DISTINCT model_id FROM min_cards")})
        what = f"{model_id}" + (f" with {args.strategy}" if args.strategy else "")
        raise SizingError("no_table_row", f"The minimum-card table has no row for {what}.",
                          field="model", valid=listed, status=404)
    notes = []
    used = None
    if args.seq_len is not None:
        used, note = pick_seq_len(args.seq_len, [r["seq_len"] for r in raw])
        if note:
            notes.append(note)
        raw = [r for r in raw if r["seq_len"] == used]
    parts = {h["table_part"]: h for h in ctx.kb.hardware() if h.get("table_part")}
    rows = [_min_cards_row(r, parts.get(r["hardware"], {})) for r in raw]
    res = MinCardsResult(model_id=model_id, strategy=args.strategy, seq_len=args.seq_len, seq_len_used=used,
                         framework=args.framework, hardware=args.hardware, rows=rows, notes=notes)
    if len(rows) == 1:
        r = rows[0]
        res.cards, res.supported, res.unit, res.source = r.cards, r.supported, r.unit, r.source
    if any(r.cards and r.cards < 8 for r in rows):
        res.notes.append(PRACTICAL_NOTE)
    return res


# ---------------------------------------------------------------- inference_min_cards (tables 3)
class InferenceMinCardsArgs(TableModel):
    model: ModelName
    max_model_len: SeqLen | None = Field(None, description="Context length you need (tokens); omit for every row.")
    memory_gb: int | None = Field(None, ge=1, le=1024, description="Memory per card: 32 or 64 (GB); omit for both.")


class VllmRow(TableModel):
    table: str = Field(description="Which ModelArts vLLM table: vllm-v0.7.2, vllm-newest, vllm-newest-6.5.908 or vllm-older-fragment.")
    model: str = Field(description="Model as written in the table.")
    model_id: str = Field(description="Canonical model id.")
    memory_gb: int = Field(description="Memory per card the row is for (the table's 32 GB or 64 GB column), GB.")
    gpu_memory_utilization: float = Field(description="--gpu-memory-utilization the table was tested with.")
    cards: int | None = Field(description="Minimum cards; null when not supported.")
    max_model_len: int | None = Field(description="Tested max-model-len in tokens (K x 1024).")
    supported: bool = Field(description="False where the table has no card count.")
    cell: str = Field(description="The table cell as written (cards/length in K, e.g. 4/32).")
    source: str = Field(description="The vendor document the row was transcribed from (title, page id or seed file).")


class InferenceMinCardsResult(TableModel):
    model_id: str = Field(description="Canonical model id.")
    max_model_len: int | None = Field(None, description="The context length asked for, tokens, if any.")
    memory_gb: int | None = Field(None, description="The card memory filter given, GB, if any.")
    cards: int | None = Field(None, description="Fewest cards among rows that meet max_model_len (when given).")
    rows: list[VllmRow] = Field(description="Every matching vLLM table row.")
    notes: list[str] = Field(default_factory=list, description="Why no row answers the length asked for, if none does.")


@tool
def inference_min_cards(ctx, args: InferenceMinCardsArgs) -> InferenceMinCardsResult:
    """Minimum Ascend cards and tested max-model-len for vLLM serving, from the ModelArts vLLM tables (32 GB and 64 GB cards)."""
    model_id = ctx.resolver.model_id(args.model)
    every = ctx.kb.vllm_rows(model_id)
    raw = [r for r in every if args.memory_gb is None or r["memory_gb"] == args.memory_gb]
    if every and not raw:  # the model is in the tables, not at that memory size: memory_gb is what is wrong
        sizes = sorted({r["memory_gb"] for r in every})
        raise SizingError("no_table_row", f"The vLLM tables list {model_id} at {', '.join(f'{m} GB' for m in sizes)} "
                          f"per card, not at {args.memory_gb} GB. Give one of those, omit memory_gb, or use "
                          "estimate_inference.", field="memory_gb", valid=sizes, status=404)
    if not raw:
        listed = sorted({r["model_id"] for r in ctx.kb.query("SELECT DISTINCT model_id FROM vllm_min_cards")})
        raise SizingError("no_table_row", f"The vLLM tables have no row for {model_id}"
                          + (f" at {args.memory_gb} GB" if args.memory_gb else "") + ". Use estimate_inference.",
                          field="model", valid=listed, status=404)
    rows = [VllmRow(**{k: r[k] for k in VllmRow.model_fields}) for r in raw]
    notes: list[str] = []
    ok = [r for r in rows if r.supported and (args.max_model_len is None or (r.max_model_len or 0) >= args.max_model_len)]
    cards = min((r.cards for r in ok if r.cards), default=None)
    if args.max_model_len and not ok:
        notes.append(f"No table row was tested at {args.max_model_len} tokens; the longest tested is "
                     f"{max((r.max_model_len or 0) for r in rows)}. Use estimate_inference for longer contexts.")
    return InferenceMinCardsResult(model_id=model_id, max_model_len=args.max_model_len, memory_gb=args.memory_gb,
                                   cards=cards, rows=rows, notes=notes)


# ---------------------------------------------------------------- search_notes
class SearchNotesArgs(TableModel):
    query: str = Field(min_length=1, max_length=2000, description="What to look up, Chinese or English (e.g. 'checkpoint timeout', '显存溢出').")
    limit: int = Field(3, ge=1, le=10, description="How many notes to return, best first.")
    lang: NoteLang = "auto"
    focus: str | None = Field(None, max_length=2000, description="The user's own question, when the query adds synonyms: "
                              "the lead facts are chosen for these words.")


class NotePassage(TableModel):
    title: str = Field(description="The note's title.")
    heading: str = Field(description="The section heading.")
    text: str = Field(description="The section's text.")
    source: str = Field(description="Where the note's facts come from (vendor pages with their ids and dates).")
    file: str = Field(description="Note file name; the Chinese version has the same name under notes/zh/.")
    lang: str = Field(description="Language of the passage: en or zh.")
    summary: str = Field(description="The note's answer-first summary, in the passage's language.")
    score: float = Field(description="Search relevance (BM25 of the section plus its best-matching fact), higher is better.")
    lead: str = Field("", description="The sentences, bullets or table rows of this passage's note that best answer the query "
                      "(whole, in the note's order), or the note's summary when that answers it best.")
    lead_score: float = Field(0.0, description="How well the note's best fact matches the query (BM25 over the notes' facts).")
    lead_is_summary: bool = Field(False, description="True when the lead is the note's summary.")
    lead_names: list[str] = Field(default_factory=list, description="The parameters the query names (flags, variables, "
                                  "keys, scripts) whose own lines of the note make up the lead.")


class SearchNotesResult(TableModel):
    query: str = Field(description="The query as given.")
    results: list[NotePassage] = Field(description="Matching passages, best first.")


@tool
def search_notes(ctx, args: SearchNotesArgs) -> SearchNotesResult:
    """Search the troubleshooting and how-to notes (OOM, checkpoint timeout, FlashAttention, BF16/FP16, ZeRO stages, DIE, vLLM FAQ); returns ranked passages with their source, from the English or Chinese notes (lang; auto follows the query's language).

    Both languages hold the same notes, sections and numbers; a passage names its note file, section and lang."""
    hits = ctx.kb.notes_index().search(args.query, args.limit, args.lang, args.focus)
    return SearchNotesResult(query=args.query, results=[
        NotePassage(title=r["title"], heading=r["heading"], text=r["text"], source=r["source"], file=r["file"],
                    lang=r["lang"], summary=r["summary"], score=round(s, 3), lead=r.get("lead", ""),
                    lead_score=round(r.get("lead_score", 0.0), 3), lead_is_summary=bool(r.get("lead_is_summary")),
                    lead_names=list(r.get("lead_names") or []))
        for s, r in hits
    ])
