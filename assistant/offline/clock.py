"""A time window said as two clock times ("from Fri 18:00 to Mon 06:00", "周六早上 8 点到周日晚上 8 点", "it's 10:00 now
and it has to finish by 22:00 tomorrow"): its length in hours, read as the deadline_hours slot (slots.toml), so the
vendor's formula gets the window (round 13 c3-10, c2-03: both times left unread or listed as unused "00").

Only read beside a training amount (a TPS or a token total): two clock times elsewhere (a log's timestamps) are no
window. Each time is claimed as a typed span with the window's hours."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .frame import QuestionFrame
from .spans import Reading

WEEKDAYS_EN = {"mon": 0, "tue": 1, "wed": 2, "thu": 3, "fri": 4, "sat": 5, "sun": 6}
WEEKDAYS_ZH = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6, "1": 0, "2": 1, "3": 2, "4": 3, "5": 4, "6": 5, "7": 6}
RELATIVE = {"today": 0, "tonight": 0, "now": 0, "tomorrow": 1, "day after tomorrow": 2,
            "今天": 0, "今晚": 0, "现在": 0, "明天": 1, "明早": 1, "明晚": 1, "后天": 2}
ZH_HOURS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10, "十一": 11, "十二": 12}
AFTERNOON = ("下午", "晚上", "傍晚", "夜里", "今晚", "明晚", "pm", "p.m.")

DAY = (r"(?:(?P<wd_en>mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?|(?:下(?:个)?)?(?:周|星期|礼拜)(?P<wd_zh>[一二三四五六日天1-7])|"
       r"(?P<rel>day\s+after\s+tomorrow|tomorrow|today|tonight|后天|明天|明早|明晚|今天|今晚))")
PART = r"(?P<part>早上|上午|中午|下午|晚上|傍晚|凌晨|夜里)?"
HOUR = (r"(?:(?<![\d:])(?P<h>\d{1,2}):(?P<m>[0-5]\d)(?!:\d)(?:\s*(?P<ampm>am|pm|a\.m\.|p\.m\.))?|(?P<h2>\d{1,2})\s*(?P<ampm2>am|pm|a\.m\.|p\.m\.)|"
        r"(?P<h3>\d{1,2}|十[一二]?|[一两二三四五六七八九十])\s*(?:点|时)(?P<half>半)?)")
POINT = re.compile(rf"(?:{DAY}\s*(?:at\s+|,\s*)?)?{PART}\s*{HOUR}(?:\s+(?P<rel_after>tomorrow|today|tonight|now))?", re.I)
DATE_BEFORE = re.compile(r"\d{4}[-/]\d{1,2}[-/]\d{1,2}[ t]*$", re.I)  # a log's timestamp, no window's end


@dataclass(frozen=True)
class Point:
    start: int
    end: int
    weekday: int | None
    day: int | None  # days from today (relative words)
    hour: float


def point(m: re.Match) -> Point:
    g = m.groupdict()
    if g["h"] is not None:
        hour, ampm = int(g["h"]) + int(g["m"]) / 60, g["ampm"]
    elif g["h2"] is not None:
        hour, ampm = float(g["h2"]), g["ampm2"]
    else:
        raw = g["h3"]
        hour, ampm = float(int(raw) if raw.isdigit() else ZH_HOURS[raw]) + (0.5 if g["half"] else 0), None
    rel = g["rel"] or g["rel_after"]
    if hour < 12 and ((ampm or "").lower() in AFTERNOON or g["part"] in AFTERNOON or (rel or "") in AFTERNOON):
        hour += 12
    if ampm and ampm.lower().startswith("a") and hour == 12:
        hour = 0
    weekday = WEEKDAYS_EN[g["wd_en"].lower()] if g["wd_en"] else WEEKDAYS_ZH[g["wd_zh"]] if g["wd_zh"] else None
    day = RELATIVE[re.sub(r"\s+", " ", rel.lower())] if rel else None
    return Point(m.start(), m.end(), weekday, day, hour)


def window_hours(a: Point, b: Point) -> float | None:
    """Hours from ``a`` to ``b``: by weekdays (the later one in the same or the next week), else by relative days,
    else the next time the clock reads ``b``; None when it is not after ``a``."""
    days = 0
    if a.weekday is not None and b.weekday is not None:
        days = (b.weekday - a.weekday) % 7  # "周五晚上到下周一早上": the next Monday after the Friday
        if days == 0 and b.hour <= a.hour:
            days = 7
    elif b.day is not None or a.day is not None:
        days = (b.day or 0) - (a.day or 0)
    hours = days * 24 + b.hour - a.hour
    if hours <= 0 and days == 0 and a.weekday is None and b.weekday is None:
        hours += 24  # "22:00 to 06:00": the next morning
    return hours if hours > 0 else None


def read(r: Reading, s: QuestionFrame) -> None:
    """The window between the first two clock times, as deadline_hours, when a training amount is said beside them."""
    if not (s.tps or s.tokens or s.settings.get("tps_total")) or s.settings.get("deadline_hours"):
        return
    text = r.unread()
    found = [m for m in POINT.finditer(text) if not DATE_BEFORE.search(text[:m.start()])]
    if len(found) < 2:
        return
    a, b = point(found[0]), point(found[1])
    hours = window_hours(a, b)
    if hours is None or hours > 24 * 31:
        return
    s.settings["deadline_hours"] = hours
    for p in (a, b):
        r.claim(p.start, p.end, "deadline_hours", hours)
