"""The kind of thing a how-to question asks for, and whether a fact of the notes holds one: "要设哪个变量" asks for a
variable (a fact holding `CONVERT_MG2HF=TRUE` answers it), "转完的在哪个目录" for a path, "命令怎么写" for a command,
"用哪个脚本" for a script, "拷哪些文件" for files, "参数叫啥" for a flag, "不填默认用哪个" for a default. A fact that shares the question's words but holds nothing of the kind
asked ("多机启动脚本要设置 …" beside "要设哪个变量" for the conversion) is a neighbour, not the answer. Pure data and
two functions; notes.NoteIndex.lead weighs facts with them."""

from __future__ import annotations

import re

# kind -> (how a question asks for it, how a fact writes one)
KINDS: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {
    # (the line that sets one, "the exact export line", asks for the variable with its value)
    "variable": (re.compile(r"(?:哪个|什么|哪些)(?:环境)?变量|环境变量|(?:which|what)\s+(?:env(?:ironment)?\s+)?variables?|env\s*vars?|"
                             r"what\s+(?:do|should)\s+i\s+export|(?:要|该)?export\s*(?:什么|哪个|啥)|export\s+(?:line|statement)", re.I),
                 re.compile(r"`[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?:=[^`\s]*)?`")),
    "path": (re.compile(r"(?:哪个|什么)(?:目录|路径|文件夹)|(?:在|放|存|输出到|写到)哪(?:里|儿|个)?|(?:which|what)\s+(?:dir(?:ectory)?|folder|path)|"
                        r"where\s+(?:do|does|are|is|will|did|should)\s+(?:\w+\s+){0,4}(?:go|land|end\s+up|saved?|written|put|stored?|live)", re.I),
             re.compile(r"`[^`\s]*\w/[^`\s]*`|`/[^`\s]+`")),
    # (a check asked with what it finds, "how can I see which processes hold the NPUs", "怎么查哪些进程占着卡", asks the
    # command that shows it; "comand" is the usual slip)
    "command": (re.compile(r"(?:什么|哪个|哪条|啥)命令|命令(?:是什么|怎么写|咋写|是啥)|(?:which|what)(?:'?s)?\s+(?:the\s+)?comm?and|the\s+(?:exact\s+)?comm?and|"
                           r"怎么(?:跑|运行|执行)|如何(?:跑|运行|执行)|how\s+(?:do\s+i\s+|to\s+|should\s+i\s+)?run\b|"
                           r"how\s+(?:do|can|could|would)\s+(?:i|we|you)\s+(?:check|see|find\s+out|tell|list|view)\s*(?:which|what|who|whether|if|哪些|哪个|是否|有没有|什么)(?![a-z])|"
                           r"(?:怎么|如何|怎样)(?:查|看|检查|查看)(?:一下)?(?:哪些|哪个|是否|有没有|什么)", re.I),
                re.compile(r"```|`(?:kubectl|docker|python|bash|sh|export|pip|npu-smi|llamafactory-cli|ascendfactory-cli|torchrun|conda)\s[^`]*`|"
                           r"`[A-Z][A-Z0-9_]*=\S+\s[^`]*`")),
    "script": (re.compile(r"(?:哪个|什么)\s*(?:脚本|script)|(?:which|what)\s+script", re.I),
               re.compile(r"`[^`\s]*\.(?:py|sh)`")),
    "file": (re.compile(r"(?:哪些|哪个|什么)文件|(?:which|what)\s+(?:\w+\s+)?files?(?![a-z])", re.I),
             re.compile(r"`[\w.-]+\.(?:json|ya?ml|txt|csv|model|bin|safetensors|py|sh)`")),
    "flag": (re.compile(r"(?:哪个|什么|哪[两几些]个?)参数|参数(?:叫|是)(?:啥|什么)|参数(?:该|要|应该)?(?:怎么|如何)(?:给|填|设|写|传|加|配)|(?:which|what)\s+(?:flag|option|argument)|"
                        r"how\s+(?:do\s+i\s+|should\s+i\s+|to\s+)?(?:pass|give|set)\s+(?:the\s+)?(?:flags|arguments|args|parameters)", re.I),
             re.compile(r"`--[a-z][\w-]*")),
    # the value to give a setting the note names ("PYTORCH_NPU_ALLOC_CONF 设成什么值", "what value should X take", "the exact
    # export line"): a fact that writes the setting with its value (`X=v`, `key:value`) answers, one naming it alone does not
    # (an amount, "设多少", is worked out by the tools, not looked up; "what value takes effect" asks the rule's result)
    "value": (re.compile(r"(?:设|设置|改|调|配|填|取)(?:成|为|到)?\s*(?:什么|哪个|啥)(?:样的)?值|(?:什么|哪个|啥)值|"
                         r"(?:which|what)\s+(?:exact\s+)?values?\s+(?:should|to|do|must|would|for)(?![a-z])|(?:exact|right)\s+value|export\s+(?:line|statement)|"
                         r"set\s+(?:it|that|this|them)?\s*to\s+what(?![a-z])", re.I),
              re.compile(r"`[^`\n]*\w(?:=|:)[^`\s<>{}]*\w[^`\n]*`")),
    # the value a setting takes when the user leaves it out ("默认是哪个", "不写的话用什么", "out of the box?"): a fact saying its
    # default answers, a neighbour listing the options does not
    # ("does it write results somewhere by default": "by default" says how it behaves, it asks no setting's value)
    "default": (re.compile(r"默认|缺省|(?:不|没)(?:写|填|设|设置|配|配置|传|改|加)(?:的话|时)|留空|(?<![a-z])(?:the|its|a)\s+default(?![a-z])|"
                           r"(?<![a-z])defaults?\s+(?:value|setting|to|is)(?![a-z])|what(?:'?s|\s+is)\s+(?:the\s+)?[\w.-]+\s+default(?![a-z])|(?<!by\s)(?<![a-z])default\s*\?|out\s+of\s+the\s+box|"
                           r"if\s+(?:i\s+|you\s+)?(?:don'?t|do\s+not|never)\s+(?:set|pass|give|change|specify)|left\s+(?:empty|blank|unset|out)|(?<![a-z])unset(?![a-z])", re.I),
                re.compile(r"(?<!非)默认|缺省|(?<![a-z-])defaults?(?![a-z])", re.I)),  # ("设成非默认值", "non-default": no default said)
}


def kinds_asked(question: str) -> list[str]:
    """The kinds the question asks for, in the catalogue's order."""
    return [kind for kind, (asks, _) in KINDS.items() if asks.search(question)]


def kinds_held(fact: str, asked: list[str]) -> int:
    """How many of the kinds asked the fact holds."""
    return sum(bool(KINDS[kind][1].search(fact)) for kind in asked)
