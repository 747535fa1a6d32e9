"""Rebuild the web chat's font files: the Latin, punctuation and CJK-punctuation part of Noto Sans
CJK SC (regular and bold) from Debian's fonts-noto-cjk, as WOFF2. The full CJK faces are 20 MB each;
the page takes the ideographs from the same family installed on the reader's machine (see web.py's
FONT_CSS), so only this small part is served. Run: python assistant/frontends/web_static/make_fonts.py"""

from __future__ import annotations

from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTFont

SOURCE = "/usr/share/fonts/opentype/noto/NotoSansCJK-{weight}.ttc"
RANGES = [(0x20, 0x7F), (0xA0, 0x180), (0x2000, 0x2070), (0x2190, 0x2300), (0x2460, 0x2474), (0x25A0, 0x2600),
          (0x3000, 0x3040), (0xFF00, 0xFFF0)]


def simplified_chinese_face(path: str) -> TTFont:
    for i in range(10):  # the collection holds JP, KR, SC, TC and HK faces
        font = TTFont(path, fontNumber=i)
        if font["name"].getDebugName(1).endswith(" SC"):
            return font
    raise SystemExit(f"no SC face in {path}")


def main() -> None:
    codes = {c for lo, hi in RANGES for c in range(lo, hi)}
    for weight in ("Regular", "Bold"):
        font = simplified_chinese_face(SOURCE.format(weight=weight))
        opts = subset.Options()
        opts.flavor, opts.layout_features, opts.name_IDs, opts.notdef_outline = "woff2", ["*"], ["*"], True
        sub = subset.Subsetter(opts)
        sub.populate(unicodes=codes)
        sub.subset(font)
        font.flavor = "woff2"
        font.save(Path(__file__).with_name(f"NotoSansSC-{weight}-latin.woff2"))


if __name__ == "__main__":
    main()
