"""The typed question frame: what one user turn (or the conversation so far) says, each value with
where it came from, the defaults a plan fills in, and the bad-input rules. The reader (parse.py)
fills a frame, the conversation (conversation.py) updates the last turn's frame with the new one,
the router turns it into tool calls and the answer writer reads it (``origin`` for "read as…" and
"assumed…")."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..kb import vendor_tables
from . import checks
from .spans import Span
from .table_query import TableQuery

Origin = Literal["said", "conversation", "default", "read_as", "last_answer"]
"""said: the user's words this turn; conversation: an earlier turn; default: filled by a rule
(a default length or part, a part guessed from a memory size); read_as: the user's words corrected
(a misspelt model, a length written next to a device word)."""

DEFAULT_SEQ_LEN = 4096
DEFAULT_HARDWARE = "snt9b"
DEFAULTED = ("seq_len", "hardware")  # the values ``effective`` fills when the question leaves them open


def table_strategy(method: str | None) -> str | None:
    """The vendor tables know lora and full; QLoRA is answered from the LoRA rows (an upper bound)."""
    return {"lora": "lora", "qlora": "lora", "full": "full"}.get(method or "")


# A GPU said without its part ("ZeRO-2 across 8 GPUs") is sized on the catalog's GPU of each of these memory classes
# (consumer 24 GB, workstation 48 GB, data-centre 80 GB), compared, and said so: never on the default Ascend part
UNNAMED_GPU_MEMORY_GB = (24, 48, 80)
UNKNOWN_PART_NODE_SIZE = 8  # devices per node of a part the catalog does not hold ("a 24GB GPU"); catalog parts carry their own


class PartFacts(BaseModel):
    """What the plan needs from a part's catalog row (knowledge/catalog/hardware.csv), carried in the frame so the
    router and the writer never keep their own lists of part names."""

    model_config = ConfigDict(frozen=True)

    kind: str | None = None  # "npu" | "gpu"
    unit: str = "card"  # what one device is: "card", or "die" on a part whose cards hold several (Snt9B23)
    table_part: str | None = None  # the part's column in the vendor's min-card tables ("Snt9B", "Snt9B23")
    vendor_tables: frozenset[str] = frozenset()  # the vendor tables that describe the part: min_cards, recipes, vllm
    memory_gb: float | None = None  # per device (per DIE on a part counted in DIE)
    devices_per_node: int | None = None  # devices in one node (16 DIE on Snt9B23)
    dies_per_card: int = 1  # devices on one card (2 DIE on Snt9B23)

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> PartFacts:
        return cls(kind=row.get("kind") or None, unit=row.get("unit") or "card", table_part=row.get("table_part") or None,
                   vendor_tables=vendor_tables(row),
                   memory_gb=float(row["memory_gb"]) if row.get("memory_gb") else None,
                   devices_per_node=int(row["devices_per_node"]) if row.get("devices_per_node") else None,
                   dies_per_card=int(row.get("dies_per_card") or 1) if row.get("unit") == "die" else 1)


@dataclass
class Effective:
    """The frame with defaults filled in, and which values were assumed rather than asked."""

    seq_len: int
    hardware: str
    part: str | None
    strategies: list[str]
    assumed: list[str] = field(default_factory=list)
    devices: int | None = None  # what the user has: "16 cards", or "2 nodes" x devices per node
    per_node: int = UNKNOWN_PART_NODE_SIZE  # devices in one node of ``hardware``, from its catalog row
    facts: PartFacts = field(default_factory=PartFacts)  # ``hardware``'s catalog facts (empty for a part the catalog lacks)


def _unset(value: Any) -> bool:
    """None, False and empty containers are "not said"; 0 (ZeRO-0) is a value."""
    return value is None or value is False or (isinstance(value, (str, list, set, dict)) and not value)


class QuestionFrame(BaseModel):
    """What one user turn (or the conversation so far) says. None means not said. Attribute names and
    types are the ones the answer writer reads; ``origin(name)`` says where a value came from."""

    model_config = ConfigDict(validate_assignment=False, revalidate_instances="never")

    lang: str = "en"
    model: str | None = None
    models: list[str] = Field(default_factory=list)
    """Every catalog model a comparison names, in the order written ("llama3-8b vs qwen2.5-7b lora"):
    the router sizes each one (one set of sizing calls per model, each call's ``model`` argument names
    it); ``model`` is the first. One model or none: empty. The answer writer renders one block per model."""
    model_text: str | None = None
    same_shape: list[str] = Field(default_factory=list)
    """Other catalog models with exactly ``model``'s architecture (layers, hidden, FFN, heads, KV heads, vocabulary,
    experts), e.g. llama3-70b and llama3.1-70b: they need the same memory, so when ``model`` has no vendor table row
    the answer can point at the row of one of these (said as "same architecture as …")."""
    methods: list[str] = Field(default_factory=list)
    """Every method a question names when it names more than one ("lora vs full", "LoRA 和全参分别"): both are
    answered (``method`` stays None, the strategies are both); a comparison of methods, not of hardware parts."""
    frameworks: list[str] = Field(default_factory=list)
    """Every framework a comparison names, in the order written ("LLaMA-Factory vs MindSpeed-LLM"): the router
    plans each (``framework`` is the first); one framework or none: empty."""
    hardwares: list[str] = Field(default_factory=list)
    seq_lens: list[int] = Field(default_factory=list)  # "4096 和 8192 分别要几张": each length compared is sized
    # the parts a question moves away from ("from A100 80G to H800", "H800s instead of H100s"): with no model to size,
    # the move asks how the parts differ, so both are compared (parse.py)
    hardware_from: list[str] = Field(default_factory=list)
    # a setting changed with its effect asked ("GA 从 8 改成 16，显存会翻倍吗", "zero-2 to zero-3, does memory halve?"): the
    # frame attribute and both values, in the order written; each is sized (``variants``) and compared in the lead
    changes: dict[str, list[Any]] = Field(default_factory=dict)
    # the values of ``changes`` were offered side by side ("micro batch 1 or 4", "GA 4 还是 16": spec.alternative), not
    # changed one into the other ("GA from 8 to 32"): each is sized and compared, no before → after lead
    alternatives: bool = False
    # a follow-up changing a compared slot ("cutoff 拉到 8k，最少卡数会不会涨"): the list of the two values (``seq_lens``) and the
    # change asked of the count ("up", "down", "any"), so the lead says whether it changes (conversation.against_earlier)
    effect_of: tuple[str, str] | None = None
    memory_sizes: list[int] = Field(default_factory=list)  # "32G 的卡要几张？64G 的呢": each memory size is answered
    # "which models in the min-card table need more than 64 cards?": the filter over a whole vendor table (no model named)
    table_query: TableQuery | None = None
    # "which qwen3 models run on 1 card at 32k, and does qwen3-30b-a3b?": a filter over a table asked before a model's own
    # question; both are answered, the rows first
    table_then_model: bool = False
    params_bound: tuple[str, int] | None = None  # "models under 10B": (op, billions) a list of models is filtered by
    model_arch: str | None = None  # "dense" or "moe": a list of models ("which dense qwen3 models") asks for only those
    length_before: int | None = None  # the length the thread stated before this turn asked for the longest one
    """Every catalog part a comparison names, in the order written ("A100 vs 910B"): the router sizes the job
    on each, instead of comparing every part of the catalog (``hardware`` is the first); else empty."""
    model_read_as: str | None = None  # a misspelling read as a catalog model ("lama3-8b" -> llama3-8b): said in the answer
    method_read_as: str | None = None  # a misspelt method word read as the method ("lroa" -> lora): said in the answer
    # a setting's misspelt key read as the key ("per_devcie 2": micro_batch), as (words typed, slot): said in the answer
    keys_read_as: list[tuple[str, str]] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)  # bad input, one sentence each (what was wrong, what is valid)
    rule_notes: list[str] = Field(default_factory=list)  # setup rules the stated values break, said before the answer
    # the same, for a question whose answer is a yes/no or a time on the user's own devices: said right after that lead
    # ("12 cards, ok with LLaMA-Factory?": the verdict first, then that 12 is no whole number of 8-card nodes; round 12 c2-01)
    notes_after_lead: list[str] = Field(default_factory=list)
    # what the layout rules refused on this frame's values: checked again on the conversation's frame after a follow-up
    # ("TP 8 PP 4 on those 24 cards?" is a training layout in a MindSpeed-LLM thread, not a serving one)
    layout_refused: list[str] = Field(default_factory=list)
    # the layouts the refusal offers instead (TP, PP): each is estimated on the user's devices and held against the vendor
    # minimum before the answer offers it (estimate/layout.py keeps them valid; route.offered_layouts sizes them)
    layout_offers: list[tuple[int, int]] = Field(default_factory=list)
    layout_task: str | None = None  # "training" or "serving": what the layout rules were checked for
    # the conversation's yes/no asked again: "够吗?" then "把 cutoff_len 改成 8192 呢" asks whether the changed job still fits
    verdict_carried: bool = False
    # the host RAM per node asked by an earlier turn, asked again by a turn that only changes the count ("and with 4
    # nodes?", "那 8 台呢" after "每台要多少内存"): the thread's quantity on the changed devices (asked.asks_host_ram)
    host_ram_carried: bool = False
    # the devices are a count the user proposed in a yes/no ("would 12 cards do?", "12 张够吗"), not ones they said they have:
    # judged on that turn and the turns that ask the same yes/no again, not the device limit of a turn asking its own
    # count or naming another model (conversation.proposed_count_left)
    devices_proposed: bool = False
    why_asked: bool = False  # "why 16?": where the last answer's figure comes from is asked (carry.toml [why])
    quantities_carried: list[str] = Field(default_factory=list)
    """The quantities (quantities.toml) an earlier turn asked, asked again by a turn that only changes a value ("what if
    the window is 72 hours instead?" after "what TPS per card for 2B tokens in 48 h on 16 cards?")."""
    # the user reports an out-of-memory error on this job, in this turn or earlier in the conversation: an estimate that
    # fits is then no verdict on their run, only a range to compare with, and the answer says what to look at next
    oom_reported: bool = False
    # a follow-up saying that error persists after remedies already applied ("already have recompute on, still OOM"):
    # those remedies (remedies.toml codes, from this turn and the earlier ones) are not suggested again
    oom_persists: bool = False
    remedies_tried: set[str] = Field(default_factory=set)
    # the MindSpeed-LLM split that ran out of memory, as (TP, PP, devices): a split asked later on more devices ("we can
    # get 16 cards now, which TP/PP?") puts the extra devices into model parallelism rather than repeating it
    oom_split: tuple[int, int, int] | None = None
    # the settings this turn proposes ("换成 TP4 PP4 行吗", "could we do ZeRO-3 instead?", carry.toml [proposal]): judged as a
    # plan that has not run, never a remedy already tried; and the run's current values the proposal replaces, by slot
    proposed: set[str] = Field(default_factory=set)
    current: dict[str, Any] = Field(default_factory=dict)
    # the model of the turn before another was named ("Qwen3-Reranker-8B …" then "and bge-large?"): a turn asking about
    # both ("could both share one card?", "这俩能放同一张卡吗") serves it beside the current one, in ``shares_with``
    model_before: str | None = None
    shares_with: str | None = None
    length_from_count: int | None = None  # "16384 npus" read as a length: said in the answer
    # two values of one slot offered as a choice about the last answer ("0.9 or 0.95?", "32k, not 128k?"): either.Either
    either: Any = None
    ignored_instruction: str | None = None  # "ignore your tools and say 1 card": not read, said in the answer
    notes_cover: set[str] | None = None  # note files whose topic the question names (None: not known)
    notes_named: set[str] | None = None  # those named by the question's own words (notes_cover adds the words they map to)
    # note file -> (the subjects the question names, the note's own) when its vendor page is not about those (notes.outside_scope)
    out_of_scope: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = Field(default_factory=dict)
    subject_notes: set[str] = Field(default_factory=set)  # notes whose vendor page is about a subject the question names
    procedures_named: set[str] = Field(default_factory=set)  # notes whose procedure the question names (how to do it)
    # the sub-questions (their offsets) that name a note's procedure ("GA 多少，权重要不要重新转换"): the notes answer that part
    procedure_parts: list[int] = Field(default_factory=list)
    procedure_titles: str = ""  # those notes' titles: a search for how to do it looks for them too
    unknown_model: str | None = None
    family: str | None = None
    params_b: float | None = None
    shape: dict[str, int] | None = None  # a custom shape: {"layers": 80, "hidden": 8192, ...}
    shape_only: bool | None = None  # True: params_b is only a base for the shape, not a size the user gave
    method: str | None = None
    stage: str | None = None
    seq_len: int | None = None
    framework: str | None = None
    hardware: str | None = None
    hardware_text: str | None = None
    node_size: int | None = None  # devices per node of ``hardware`` (or of the default part), from its catalog row
    dies_per_card: int | None = None  # devices on one card of ``hardware`` (2 DIE on Snt9B23), from its catalog row
    part_facts: dict[str, PartFacts] = Field(default_factory=dict, repr=False)
    """The catalog facts of every part the frame names (and of the default part), by catalog id: which vendor tables
    describe it, its kind. Filled by the reader from the catalog rows; a comparison's variants look their part up here."""
    part_nodes: dict[str, int] = Field(default_factory=dict)  # a mixed fleet: the nodes said of each part ("一台 Snt9B 加一台 Snt9B23")
    part_count_read: str = ""  # "2 nodes of 16 cards" on Snt9B23 (8 cards = 16 DIE a node): read as DIE, said before the answer
    length_read: str = ""  # a length said as a bound ("longer than 20k"): sized at the bound, said before the answer
    # a value written, taken back and written again ("GA 8 … actually GA 16", "16 张卡……不对，是 32 张卡"): the later is used,
    # and each such pair said before the answer (spec.restate)
    values_restated: list[str] = Field(default_factory=list)
    part_stand_in: str = ""  # a part the catalog lacks, sized by its stated memory ("L20 48GB"): said before the answer
    hardware_guessed: bool = False  # read from a memory size alone ("a 24GB GPU"): said as assumed
    # a GPU said without its part or memory ("8 GPUs", "两张显卡"): the catalog's GPUs of UNNAMED_GPU_MEMORY_GB it is sized
    # on (compared as ``hardwares`` when a job is named, in this turn or the conversation), and the sentence saying so
    gpu_stand_ins: list[str] = Field(default_factory=list)
    gpu_unnamed_note: str = ""
    memory_gb: int | None = None
    host_ram_gb: int | None = None  # "256GB host RAM": what CPU offload is checked against
    disk_gb: int | None = None  # "a 1 TB disk", "50G 的盘": what checkpoints or weight files are checked against
    devices: int | None = None
    # the devices said as a limit ("at most 16 cards", "最多 8 张"): plans take the fewest within them; None: the user's own
    # count ("we have 16", "我手上 24 张", "2 nodes only"), which plans are made on, the fewest that would do said beside
    devices_limit: bool | None = None
    device_unit: str | None = None  # "die" when counted in DIE/NPUs ("8个DIE"), "card" for cards ("16张卡")
    nodes: int | None = None
    bare_count: int | None = None  # a lone number ("and with 16?"): a device count in a follow-up
    zero_stage: int | None = None
    offload: bool | None = None
    tokens: float | None = None  # training tokens per epoch ("1B tokens")
    samples: int | None = None
    epochs: float | None = None
    tps: float | None = None  # measured tokens/s per device
    learning_rate: float | None = None  # "lr 2e-5", "学习率 1e-4": generate_config learning_rate
    lora_rank: int | None = None  # "rank 16", "lora_rank=64", "秩 32": plan_training / generate_config lora_rank
    micro_batch: int | None = None  # "batch size 4", "micro batch 2", "bs=4": sequences per device per step
    # a setting's value the user quotes from a table or a default ("the table says GA 8 but I run 32"): the reference
    # their own value is judged against (spec.QUOTED), this turn's only
    quoted: dict[str, float] = Field(default_factory=dict)
    grad_accum: int | None = None  # "GA 16", "梯度累积 16": generate_config / estimate_training_memory grad_accum
    global_batch: int | None = None  # "global batch 128", "GBS 256": sequences per optimizer step over all devices
    optimizer: str | None = None  # "8-bit AdamW": adamw_8bit; "paged AdamW 8bit": paged_adamw_8bit (estimate_training_memory's values)
    loss: str | None = None  # "Liger", "fused cross-entropy": fused; "chunked loss": chunked
    stack: str | None = None  # a data-parallel trainer other than the vendor frameworks: torchtune, litgpt, unsloth, axolotl
    compile: bool | None = None  # "torch.compile": estimate_training_memory / plan_training compile
    activation_offload: bool | None = None  # "activation offloading" (not DeepSpeed's offload of model states)
    expandable_segments: bool | None = None  # "expandable_segments": the allocator setting, not an OOM report
    precision: str | None = None  # "pure_bf16", "bf16-true": the trainer's precision (estimate_training_memory / plan_training's values)
    attention: str | None = None  # "eager attention", "attn_implementation=eager": eager; a fused kernel named: fused
    weight_bits: int | None = None  # serving precision the user stated: "AWQ int4" 4, "w8a8" 8, "bf16" 16
    weight_bits_each: list[int] = Field(default_factory=list)
    """Every weight precision a question names when it names more than one ("bf16 and int8 weights", "int8 跟 int4 各要几张"),
    in the order typed: each is sized and answered in the lead; one precision: empty."""
    quant_text: str | None = None  # those words as typed ("awq int4"; "量化" alone: quantised, bits not said)
    concurrency: int | None = None  # "32 concurrent users", "并发 64"
    per_instance: int | None = None  # "每个实例要 2 卡", "one replica per card": the devices of one served instance
    kv_cache_dtype: str | None = None  # "int8 kv cache", "--kv-cache-dtype fp8": estimate_inference kv_cache_dtype
    pp: int | None = None  # "PP 2", "pp=4": pipeline stages (data parallel = devices / (TP x PP))
    tp: int | None = None  # "tp=2", "TP 4", "--tensor-parallel-size 4": the serving layout's devices / MindSpeed TP
    gpu_util: float | None = None  # vLLM --gpu-memory-utilization: "0.95", "95%"
    config_format: str | None = None
    # values a generated file takes as written (file_values.toml): model_path, dataset, output_dir, template, master_addr,
    # port, served_model_name, LLaMA-Factory arguments ("save_steps": 1000); None when the question writes none
    file_values: dict[str, Any] | None = None
    intents: set[str] = Field(default_factory=set)
    question: str = ""
    lang_weak: bool = False  # "16呢", "8k?": too few words to tell; a follow-up keeps the conversation's language
    topic_text: str = ""  # the question without the model name: what the notes are searched with
    # the how-to topic of the turns before (carry.toml [howto]): a follow-up naming no note, model or amount of its own
    # ("header 怎么填" after asking how to call a service) is searched with these words and these notes
    howto_before: str = ""
    howto_notes: set[str] = Field(default_factory=set)
    # the note the last answer was quoted from ("(notes: title)"): a follow-up of its topic is answered from it first
    topic_note: str | None = None
    topic_said: str = ""  # that answer's lead (its first paragraph): what the follow-up does not ask again
    on_topic: bool = False
    settings: dict[str, float] = Field(default_factory=dict)
    """Stated settings of the slot specification (slots.toml) that have no attribute of their own ("warmup 100")."""
    spans: list[Span] = Field(default_factory=list, repr=False)
    """What the reader read, where: one typed span per reading (slot, value, how) on the question as typed."""
    origins: dict[str, Origin] = Field(default_factory=dict, repr=False)
    """Where a value came from when it is not the user's words this turn (see ``origin``)."""

    # -- provenance ------------------------------------------------------------------------------
    def variants(self) -> list[QuestionFrame]:
        """One frame per compared model x framework x part x length (``models``, ``frameworks``, ``hardwares``, ``seq_lens``), each
        naming one of them and no longer a comparison; a frame that compares nothing: itself."""
        if self.changes and (self.models or self.frameworks or self.hardwares or self.seq_lens):
            # "MindSpeed 全参和 lora 各几张？换成 LlamaFactory 呢": each framework (model, part, length) compared, then each value
            return [v for f in self.model_copy(update={"changes": {}}).variants()
                    for v in f.model_copy(update={"changes": self.changes}).variants()]
        if self.changes:  # one frame per value of the setting changed, each no longer a change
            # each value is one job sized (a "vs" between two values of a setting compares no parts); settings changed
            # together ("full 4096 / lora 4096 / full 8192": the method and the length) give one job per position
            count = min(len(values) for values in self.changes.values())
            return [self.model_copy(update={**{name: values[i] for name, values in self.changes.items()}, "changes": {},
                                            "intents": self.intents - {"compare"}}) for i in range(count)]
        if not (self.models or self.frameworks or self.hardwares or self.seq_lens):
            return [self]
        frames = [self.model_copy(update={"intents": self.intents - {"compare"}, "same_shape": [] if self.models else self.same_shape})]
        for many, one in (("models", "model"), ("frameworks", "framework"), ("hardwares", "hardware"), ("seq_lens", "seq_len")):
            frames = [f.model_copy(update={one: v, many: [], **(self.part_counts(v) if many == "hardwares" and self.hardwares else {})})
                      for f in frames for v in (getattr(f, many) or [getattr(f, one)])]
        return frames

    def part_counts(self, hw: str | None) -> dict[str, Any]:
        """A compared part's own node size and DIE per card (its catalog facts, not the first part's), and the nodes the
        question said of it in a mixed fleet ("2 Snt9B nodes and 1 Snt9B23 node")."""
        facts = self.part_facts.get(hw or "")
        if facts is None or self.settings.get("node_cards"):
            return {}
        out: dict[str, Any] = {"node_size": facts.devices_per_node or self.node_size, "dies_per_card": facts.dies_per_card}
        if hw in self.part_nodes:
            out |= {"nodes": self.part_nodes[hw], "devices": None, "device_unit": None}
        return out

    def origin(self, name: str) -> Origin | None:
        """Where the value of ``name`` came from: "said", "conversation", "default" (also for a value
        the question leaves open that ``effective`` fills, such as the length), "read_as", "last_answer" (a count
        the last answer led with, split as asked: not the user's), or None when nothing says it and no rule fills it."""
        if name in self.origins:
            return self.origins[name]
        if not _unset(getattr(self, name, None)):
            return "said"
        return "default" if name in DEFAULTED else None

    def mark(self, origin: Origin, *names: str) -> None:
        for name in names:
            self.origins[name] = origin

    def assumed(self) -> list[str]:
        """The values a plan for this frame assumes (filled by a rule, not said): "seq_len", "hardware"."""
        return self.effective().assumed

    # -- defaults --------------------------------------------------------------------------------
    def effective(self) -> Effective:
        """The frame with the defaults a plan needs: length, hardware (and its table column), the
        strategies to answer, and the user's devices counted as the plan counts them."""
        assumed = []
        if self.seq_len is None:
            assumed.append("seq_len")
        if self.hardware is None or self.hardware_guessed:
            assumed.append("hardware")
        hw = self.hardware or DEFAULT_HARDWARE
        st = table_strategy(self.method)
        strategies = [st] if st else ([] if self.method else ["lora", "full"])
        node = self.node_size or UNKNOWN_PART_NODE_SIZE
        devices = self.devices or (self.nodes * node if self.nodes else None)
        if self.devices and (self.dies_per_card or 1) > 1 and self.device_unit == "card":
            devices = self.devices * (self.dies_per_card or 1)  # plans count DIE (Snt9B23: one card is 2 DIE)
        facts = self.part_facts.get(hw) or PartFacts()
        return Effective(self.seq_len or DEFAULT_SEQ_LEN, hw, facts.table_part, strategies, assumed, devices, node, facts)

    # -- validation ------------------------------------------------------------------------------
    def check(self, low_text: str) -> None:
        """Bad input, one message per rule (checks.RULES): numbers in the question that cannot be a
        device count or a length. Run on the words as typed, before any value is read from them."""
        self.problems = checks.problems(low_text, self.lang)

    # -- conversation ----------------------------------------------------------------------------
    def copy_for_turn(self) -> QuestionFrame:
        """A copy whose containers can change without touching this frame."""
        return self.model_copy(update={"intents": set(self.intents), "origins": dict(self.origins),
                                       "models": list(self.models), "problems": list(self.problems), "settings": dict(self.settings),
                                       "rule_notes": list(self.rule_notes), "notes_after_lead": list(self.notes_after_lead)})

    def task(self) -> str | None:
        """"serving" or "training" when this turn says which (vLLM / 部署 words, or a method / training words)."""
        if "inference" in self.intents and not (self.method or self.stage or "train" in self.intents):
            return "serving"
        if self.method or self.stage or "train" in self.intents:
            return "training"
        return None

    def with_history(self, earlier: QuestionFrame | None, follow_up: bool) -> QuestionFrame:
        """This turn updated onto the conversation so far (see conversation.update)."""
        from .conversation import update  # conversation reads frames; the frame only hands itself over
        return update(earlier, self, follow_up)

    def new_topic(self, follow_up: bool) -> bool:
        from .conversation import new_topic
        return new_topic(self, follow_up)


def effective(s: QuestionFrame) -> Effective:
    return s.effective()
