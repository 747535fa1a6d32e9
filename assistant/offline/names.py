"""Model names in a question: catalog models (the longest mention, or every model of a comparison),
a misspelling read as a catalog model, an unknown model-like name, a raw size or shape, a family.
Offsets are into the question, so a mention is claimed as a span once read."""

from __future__ import annotations

import re

from ..resolve import FAMILY_WORDS, squash
from ..tools.estimate_support import (
    ENCODER_DECODER,  # the resolver's own Chinese family words: one list, one truth
)
from . import numbers as num
from . import subquestions
from .frame import QuestionFrame as Slots
from .spans import Reading
from .vocab import NOT_A_MODEL, SIZE, UNIT_AFTER_VERSION, VARIANT_WORDS, VERSION, compared, effect_asked

# a file name or path ("qwen2_7b_lora.yaml", "run_llama3.sh", "ds_z3.json"): the user's file, never a model's name
FILE_NAME = re.compile(r"\.(?:ya?ml|json|sh|py|txt|csv|log|toml|cfg|conf|ini|md|ckpt|safetensors|bin|pt)$|/")

# The architecture fields that decide a model's memory: two models equal in all of them size the same.
SHAPE_FIELDS = ("arch", "layers", "hidden", "ffn", "heads", "kv_heads", "head_dim", "vocab", "tied_embeddings", "experts",
                "experts_per_token", "moe_ffn", "shared_experts", "dense_layers", "dense_ffn", "kv_lora_rank", "q_lora_rank",
                "modality", "vision_params_b", "sliding_window", "sliding_layers")
MAX_TOKENS = 4000  # model-mention scan bound: a 20 kB paste is still answered in milliseconds


# what may stand between two tokens of one model name: separators, not words ("qwen2.5 7b", "Qwen/Qwen2.5-7B")
GAP_WORDS = re.compile(r"[^\s\-_/.]")

class ModelNames:
    """Model mentions read against one catalog (the resolver's model spellings and the models' families)."""

    def __init__(self, resolver, models: list[dict]):
        self.resolver = resolver
        self.keys = resolver.model_keys  # squashed spelling -> id: a set lookup per candidate span
        zh = "|".join(re.escape(z) for z, _ in sorted(FAMILY_WORDS, key=lambda p: -len(p[0])))
        self.token_rx = re.compile(rf"(?:(?:{zh})\s*)?[a-z0-9][a-z0-9._/\-]*|(?:{zh})")
        self.families: dict[str, str] = {}
        for m in models:
            fam = squash(str(m.get("family") or ""))
            if fam:
                self.families.setdefault(fam, str(m.get("family")))
        self.shapes: dict[tuple, list[str]] = {}
        for m in models:
            if m.get("layers") and m.get("hidden"):
                self.shapes.setdefault(tuple(m.get(f) for f in SHAPE_FIELDS), []).append(str(m["id"]))
        self.shape_of = {mid: key for key, ids in self.shapes.items() for mid in ids}
        stems = {lead.group(0) for k in self.keys if (lead := re.match(r"[a-z]+", k))}
        self.family_stems = {s for s in stems if len(s) >= 2} | {
            "gpt", "llama", "qwen", "mistral", "mixtral", "phi", "gemma", "falcon", "baichuan", "chatglm", "glm",
            "internlm", "internvl", "yi", "deepseek", "bloom", "opt", "claude", "ernie", "kimi", "minimax", "starcoder",
            "codellama", "vicuna", "olmo", "grok", "hunyuan", "pangu", "moss", "aquila", "skywork", "telechat", "bert"}

    def _tokens(self, text: str) -> list[tuple[int, int, str]]:
        """Word-like runs of Latin letters and digits, with a Chinese family word attached in front
        ("千问2.5-72b"); offsets are into ``text`` so a mention can be claimed afterwards."""
        out = []
        for m in self.token_rx.finditer(text.lower()):
            tok = m.group(0).rstrip(".-/_")
            if tok:
                out.append((m.start(), m.start() + len(tok), tok))
            if "/" in tok:  # a path or repo id ("/home/ma-user/Llama-3.1-8B"): its last part is the model's name too
                last = tok.rsplit("/", 1)[1]
                if last:
                    out.append((m.start() + len(tok) - len(last), m.start() + len(tok), last))
            if len(out) >= MAX_TOKENS:
                break
        return out

    def model_mentions(self, text: str) -> list[tuple[str, tuple[int, int]]]:
        """Every known model mention, longest first where they overlap, in the order written: (id, span)."""
        toks = self._tokens(text)
        found: list[tuple[int, str, tuple[int, int]]] = []
        for i in range(len(toks)):
            if not re.search(r"[a-z\u4e00-\u9fff]", toks[i][2]):
                continue
            for j in range(i + 1, min(len(toks), i + 5) + 1):
                if j - 1 > i and GAP_WORDS.search(text[toks[j - 2][1]:toks[j - 1][0]]):
                    break  # words between the tokens ("llama3.1-8b 全参 bf16"): the mention ends before them
                key = squash(" ".join(t[2] for t in toks[i:j]))
                if key in self.keys:
                    found.append((toks[j - 1][1] - toks[i][0], self.keys[key], (toks[i][0], toks[j - 1][1])))
        kept: list[tuple[str, tuple[int, int]]] = []
        for _, mid, span in sorted(found, key=lambda f: (-f[0], f[2][0])):
            if all(span[1] <= k[0] or span[0] >= k[1] for _, k in kept):
                kept.append((mid, span))
        return sorted(kept, key=lambda k: k[1][0])

    def find_model(self, text: str, mentions: list[tuple[str, tuple[int, int]]] | None = None,
                   ) -> tuple[str | None, str | None, tuple[int, int] | None]:
        """(model id, the words as typed, character span) of the longest known model mention."""
        mentions = self.model_mentions(text) if mentions is None else mentions
        if not mentions:
            return None, None, None
        mid, (s, e) = max(mentions, key=lambda m: (m[1][1] - m[1][0], -m[1][0]))
        return mid, text[s:e], (s, e)

    def same_shape(self, model: str | None) -> list[str]:
        """Other catalog models with exactly this model's architecture ("llama3-70b" and "llama3.1-70b")."""
        key = self.shape_of.get(model or "")
        return [mid for mid in self.shapes.get(key, []) if mid != model] if key else []

    @staticmethod
    def compared_models(work: str, mentions: list[tuple[str, tuple[int, int]]], question: str = "") -> list[str]:
        """Two or more catalog models joined as a comparison ("llama3-8b vs qwen2.5-7b", "X 和 Y") or each asked in a
        sub-question of its own ("qwen2.5-7b 最少几张卡？qwen2.5-72b 呢"), in the order written; one model, or mentions
        not joined so: empty."""
        ids = list(dict.fromkeys(mid for mid, _ in mentions))
        if len(ids) < 2:
            return []
        spans = [span for _, span in mentions]
        return ids if compared(work, spans) or subquestions.apart(question, [a for a, _ in spans]) else []

    def sibling_asked(self, r: Reading, model: str, span: tuple[int, int]) -> tuple[str, tuple[int, int]] | None:
        """A bare size asked in a later sub-question than the model ("qwen2.5-32b 要 32 张吧，那 14b 呢", "…, and for the
        4b one?", "…具体各是多少，32b 也这样吗"): the catalog model that is ``model`` at that size, and the size's span."""
        work = r.unread()
        sized = num.raw_size(work[span[1]:])
        if not sized or not (member := self.sibling(model, sized[0])) or member == model:
            return None
        at = (span[1] + sized[1].start(), span[1] + sized[1].end())
        return (member, at) if subquestions.apart(r.text, [span[0], at[0]]) else None

    def find_unknown_model(self, text: str) -> tuple[str, tuple[int, int]] | None:
        """A model-like mention that is not in the catalog, with its span: 'gpt-99-ultra', 'qwen9-13b',
        '千问7-5b', or a family word with a version the catalog lacks ('llama 9 ultra', 'qwen 7')."""
        toks = self._tokens(text)
        words = [t[2] for t in toks]
        for i, tok in enumerate(words):
            latin = tok
            for zh, en in FAMILY_WORDS:
                if latin.startswith(zh):
                    latin = en + latin[len(zh):]
            stem = re.match(r"[a-z]+", latin)
            if not stem or NOT_A_MODEL.fullmatch(latin) or FILE_NAME.search(latin):
                continue
            has_digit = bool(re.search(r"\d", latin))
            nxt = words[i + 1] if i + 1 < len(words) else ""
            after = words[i + 2] if i + 2 < len(words) else ""
            if stem.group(0) in self.family_stems:
                if not has_digit and VERSION.fullmatch(nxt) and not UNIT_AFTER_VERSION.fullmatch(after):
                    return self._mention(toks, i, i + 2)  # "llama 9 ultra": the family and a version
                if has_digit or SIZE.fullmatch(nxt):
                    return self._mention(toks, i, i + 1)
                if nxt in VARIANT_WORDS and not has_digit and not any(latin + nxt in k for k in self.keys):
                    # "Mistral Large 2", "Qwen Max": a variant the catalog lacks ("mistral small" it has)
                    end = i + 3 if VERSION.fullmatch(after) and not UNIT_AFTER_VERSION.fullmatch(words[i + 3] if i + 3 < len(words) else "") else i + 2
                    return self._mention(toks, i, end)
            # (a one-letter family of the encoder-decoder vocabulary too: "t5-11b", refused by name downstream)
            if has_digit and re.search(r"[-_]", latin) and (re.match(r"[a-z]{2,}", latin) or ENCODER_DECODER.match(latin)):
                return toks[i][2], (toks[i][0], toks[i][1])
            parts = re.split(r"[-_]", latin)
            if len(parts) >= 2 and len(parts[0]) >= 3 and parts[-1] in VARIANT_WORDS:
                return toks[i][2], (toks[i][0], toks[i][1])  # "supernova-ultra": a name with a variant word
        return None

    @staticmethod
    def _mention(toks: list[tuple[int, int, str]], i: int, j: int) -> tuple[str, tuple[int, int]]:
        """Tokens i..j-1 plus the size and variant words after them ("17b", "scout", "instruct"), at most three."""
        while j < len(toks) and j < i + 5 and (SIZE.fullmatch(toks[j][2]) or toks[j][2] in VARIANT_WORDS):
            j += 1
        return " ".join(t[2] for t in toks[i:j]), (toks[i][0], toks[j - 1][1])

    def read(self, r: Reading, text: str, s: Slots) -> tuple[int, int] | None:
        """A catalog model (also misspelt), else an unknown model name, a raw size, a shape or a family; the
        model's span (None when no catalog model was read)."""
        work = r.unread()
        mentions = self.model_mentions(work)
        mid, typed, span = self.find_model(work, mentions)
        if mid and typed and span:
            s.models = self.compared_models(work, mentions, r.text)
            if s.models:  # "X vs Y": the first named leads; every mention is read
                (mid, span), typed = mentions[0], work[mentions[0][1][0]:mentions[0][1][1]]
                for other_id, other in mentions[1:]:
                    r.claim(*other, "models", other_id, "catalog")
                later = mentions[1][1][0]
            s.model, s.model_text = mid, typed.strip()
            r.claim(*span, "model", mid, "catalog")
            if not s.models and (second := self.sibling_asked(r, mid, span)):
                s.models = [mid, second[0]]  # the same question of the model at the other size: a part of its own
                r.claim(*second[1], "models", second[0], "catalog")
                later = second[1][0]
            if len(s.models) == 2 and subquestions.apart(r.text, [span[0], later]):
                # "…how many cards? does the same count work for qwen2.5-14b?": the second part's yes/no on the count leads
                part = next(p for p in subquestions.asked_apart(r.text) if p.start <= later - (len(r.text) - len(r.text.lstrip())) < p.start + len(p.text))
                if effect := effect_asked(part.text):
                    s.effect_of = ("models", effect)
            return span
        sized = num.raw_size(work)
        raw = sized[0] if sized else None
        found = self.find_unknown_model(work)

        def as_typed(sp: tuple[int, int], alt: str) -> str:  # "Llama 9 Ultra" as typed
            return text[sp[0]:sp[1]] if len(text) == len(work) else alt

        # (the stem before the size when the name holds it: "qwen3 235b moe" is qwen3's model of 235B)
        if found and sized and (member := self.member(found[0], sized[0])
                                or self.member(re.split(r"\s+[\d.]+b(?:\s|$)", found[0])[0], sized[0])):
            # "the 14b variant of qwen2.5": a family and a size written apart are that family's model of the size
            s.model, s.model_text = member, member
            if squash(found[0]) not in self.keys:  # "qwen3 235B": a MoE model by its total size, said how it was read
                s.model_read_as = s.model_text = as_typed(found[1], found[0])
            r.claim(*found[1], "model", member, "catalog")
            r.claim_match(sized[1], "model", member)
            return found[1]
        if found:
            unknown, uspan = found
            fixed, _ = self.resolver.correct(unknown)
            if len(fixed) == 1:
                s.model, s.model_read_as = fixed[0], as_typed(uspan, unknown)
                s.model_text = s.model_read_as
                r.claim(*uspan, "model", s.model, "read_as")
                return uspan
            if not (raw and unknown.endswith("b") and not re.search(r"[a-z]{2,}", unknown.replace(str(raw), ""))):
                s.unknown_model, s.model_text = unknown, as_typed(uspan, unknown)
                r.claim(*uspan, "unknown_model", unknown)
                if raw:  # "gpt-5-ultra 900B", "foo-chat 13B": the size said is the estimate's, the name stays unknown
                    s.params_b = raw
                return None
        if sized:
            s.params_b = raw
            r.claim_match(sized[1], "params_b", raw)  # "70亿": no count left for a follow-up
        elif s.shape and {"layers", "hidden"} <= set(s.shape):
            s.params_b = num.shape_params_b(s.shape)  # only a base: the estimator counts the shape's own parameters
            s.shape_only = True
        else:
            s.family = self.family(work)
        return None

    def member(self, stem: str, size_b: float) -> str | None:
        """The catalog model of a family (or of another model's stem) at a size: "qwen2.5" and 14 -> qwen2.5-14b; a MoE
        model by its total size alone ("qwen3" and 235 -> qwen3-235b-a22b) when the catalog has one such model."""
        key = squash(f"{stem}{size_b:g}b")
        return self.keys.get(key) or self.resolver.moe_by_total(key)

    def sibling(self, model: str, size_b: float) -> str | None:
        """The catalog model that is ``model`` at another size ("and the 14b one?" after qwen2.5-7b: qwen2.5-14b)."""
        # the size and a MoE model's active size after it ("qwen3-30b-a3b" is of the stem "qwen3")
        stem, n = re.subn(r"[-_]?\d+(?:\.\d+)?b(?:[-_]a\d+(?:\.\d+)?b)?(?![a-z0-9])", "", model, count=1)
        return self.member(stem, size_b) if n else None

    def family(self, work: str) -> str | None:
        for _, _, tok in self._tokens(work):
            key = squash(tok)
            if key in self.families:
                return self.families[key]
        return None
