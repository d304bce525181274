#!/usr/bin/env python3
"""Golden answers of upstream's `hermes sessions prune|archive` value parsers, from upstream's own code.

Run with the system Python (3.11, upstream's oldest supported one):
  /usr/bin/python3 scripts/golden/prune_flags.py        # HERMES_UPSTREAM defaults to /work/upstream

Writes test/fixtures/upstream/prune-flags/answers.json:
  tz      the local time zone the naive timestamps were read in (TZ, set here)
  points  each --before/--after value: upstream's parse_point_in_time epoch for ISO values, or its error ("refused");
          durations are left out (they depend on the clock)
  ints    argparse's type=int (the count flags: --min-messages, --max-tokens, ...) of each value, or "refused"
  floats  argparse's type=float (--min-cost/--max-cost) of each value, "refused" or "not finite"
"""
import json
import math
import os
import sys
import time
from pathlib import Path

os.environ["TZ"] = "America/New_York"
time.tzset()
sys.path.insert(0, os.environ.get("HERMES_UPSTREAM", "/work/upstream"))
from hermes_cli.session_filters import parse_point_in_time  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "prune-flags" / "answers.json"
POINTS = [
    "2026-07-05", "20260705T143000", "20260705 14", "2026-07-05 14:30", "2026-07-05T14:30:00", "2026-07-05t14:30", "2026-07-05T14",
    "2026-07-05T1430", "2026-07-05T143000", "2026-07-05T14:30:00.5", "2026-07-05T14:30:00,25",
    "2026-07-05T14:30:00.1234567", "2026-07-05T14:30Z", "2026-07-05T14:30+02", "2026-07-05T14:30+0200",
    "2026-07-05T14:30-05:30", " 2026-01-15 ", "2024-02-29", "2026-03-08T02:30",
    "Jan 1 2030", "2020/01/01", "2026-7-5", "2026-07", "2026-02-30", "2025-02-29", "2026-13-01",
    "2026-07-05T24:00", "2026-07-05T14:60", "2026-07-05Z", "0000-01-01", "2026-07-05T14:30+24:00", "tomorrow", "",
]
NUMBERS = ["0", "5", " 7 ", "+3", "1_000", "1.5", "1e3", "", "abc", "0x10", "-1", "inf", "nan", ".5", "2."]


def answer(fn, v):
    try:
        r = fn(v)
    except ValueError:
        return "refused"
    return r if math.isfinite(r) else "not finite"


def main():
    OUT.parent.mkdir(parents=True, exist_ok=True)
    out = {
        "tz": os.environ["TZ"],
        "points": {v: answer(lambda s: parse_point_in_time(s, "--before"), v) for v in POINTS},
        "ints": {v: answer(int, v) for v in NUMBERS},
        "floats": {v: answer(float, v) for v in NUMBERS},
    }
    OUT.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
