"""The kind of thing a how-to question asks for, and whether a fact of the notes holds one: "要设哪个变量" asks for a
variable (a fact holding `CONVERT_MG2HF=TRUE` answers it), "转完的在哪个目录" for a path, "命令怎么写" for a command,
"用哪个脚本" for a script, "拷哪些文件" for files, "参数叫啥" for a flag. A fact that shares the question's words but holds nothing of the kind
asked ("多机启动脚本要设置 …" beside "要设哪个变量" for the conversion) is a neighbour, not the answer. Pure data and
two functions; notes.NoteIndex.lead weighs facts with them."""

from __future__ import annotations

import re

# kind -> (how a question asks for it, how a fact writes one)
KINDS: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {
    "variable": (re.compile(r"(?:哪个|什么|哪些)(?:环境)?变量|环境变量|(?:which|what)\s+(?:env(?:ironment)?\s+)?variables?|env\s*vars?|"
                             r"what\s+(?:do|should)\s+i\s+export|(?:要|该)?export\s*(?:什么|哪个|啥)", re.I),
                 re.compile(r"`[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?:=[^`\s]*)?`")),
    "path": (re.compile(r"(?:哪个|什么)(?:目录|路径|文件夹)|(?:在|放|存|输出到|写到)哪(?:里|儿|个)?|(?:which|what)\s+(?:dir(?:ectory)?|folder|path)|"
                        r"where\s+(?:do|does|are|is|will|did|should)\s+(?:\w+\s+){0,4}(?:go|land|end\s+up|saved?|written|put|stored?|live)", re.I),
             re.compile(r"`[^`\s]*\w/[^`\s]*`|`/[^`\s]+`")),
    "command": (re.compile(r"(?:什么|哪个|哪条|啥)命令|命令(?:是什么|怎么写|咋写|是啥)|(?:which|what)\s+command|the\s+(?:exact\s+)?command|"
                           r"怎么(?:跑|运行|执行)|如何(?:跑|运行|执行)|how\s+(?:do\s+i\s+|to\s+|should\s+i\s+)?run\b", re.I),
                re.compile(r"```|`(?:kubectl|docker|python|bash|sh|export|pip|npu-smi|llamafactory-cli|ascendfactory-cli|torchrun|conda)\s[^`]*`|"
                           r"`[A-Z][A-Z0-9_]*=\S+\s[^`]*`")),
    "script": (re.compile(r"(?:哪个|什么)\s*(?:脚本|script)|(?:which|what)\s+script", re.I),
               re.compile(r"`[^`\s]*\.(?:py|sh)`")),
    "file": (re.compile(r"(?:哪些|哪个|什么)文件|(?:which|what)\s+(?:\w+\s+)?files?(?![a-z])", re.I),
             re.compile(r"`[\w.-]+\.(?:json|ya?ml|txt|csv|model|bin|safetensors|py|sh)`")),
    "flag": (re.compile(r"(?:哪个|什么|哪[两几些]个?)参数|参数(?:叫|是)(?:啥|什么)|参数(?:该|要|应该)?(?:怎么|如何)(?:给|填|设|写|传|加|配)|(?:which|what)\s+(?:flag|option|argument)|"
                        r"how\s+(?:do\s+i\s+|should\s+i\s+|to\s+)?(?:pass|give|set)\s+(?:the\s+)?(?:flags|arguments|args|parameters)", re.I),
             re.compile(r"`--[a-z][\w-]*")),
}


def kinds_asked(question: str) -> list[str]:
    """The kinds the question asks for, in the catalogue's order."""
    return [kind for kind, (asks, _) in KINDS.items() if asks.search(question)]


def kinds_held(fact: str, asked: list[str]) -> int:
    """How many of the kinds asked the fact holds."""
    return sum(bool(KINDS[kind][1].search(fact)) for kind in asked)
