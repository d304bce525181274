#!/usr/bin/env python3
"""What upstream's own `hermes` does with a flag its command does not take (one meant for another command, or a
typo): argparse refuses it, exit 2, `hermes: error: unrecognized arguments: ...` as the last line after its usage.

  /usr/bin/python3 scripts/golden/foreign_flags.py        # HERMES_UPSTREAM defaults to /work/upstream
                                                          # (recorded at 9a75ff049b020ab5b24f76892f50f59064811028)

Each case runs on a fresh empty home. Writes test/fixtures/upstream/foreign-flags/answers.json:
  upstream_commit  the commit it ran
  cases            per command line (words joined by one space; "every 1h" is one word, written every_1h):
                   code (exit code), stdout, last (stderr's last line), refused (the words argparse names as
                   unrecognized) and left (what the home holds afterwards: upstream's logging makes logs/ before
                   it parses; nothing of the command itself is written)
"""
import json
import os
import tempfile
from pathlib import Path

from upstream_cli import hermes, upstream_commit

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "test" / "fixtures" / "upstream" / "foreign-flags" / "answers.json"

CASES = [
    "sessions list --dry-run",
    "sessions list --bogus",
    "sessions export --schedule 5m",
    "sessions prune --workspace x",
    "sessions archive --source cli --include-archived",
    "sessions delete some-id --dry-run",
    "cron list --skill x",
    "cron create every_1h hi --prompt x",
    "cron status --lineage",
    "memory status --target user",
]
MARK = "error: unrecognized arguments: "


def left(home: Path) -> list:
    return sorted(str(p.relative_to(home)) for p in home.rglob("*"))


def main():
    cases = {}
    for line in CASES:
        words = [w.replace("every_1h", "every 1h") for w in line.split(" ")]
        with tempfile.TemporaryDirectory(prefix="foreign-flags-") as d:
            home = Path(d)
            r = hermes(home, *words, check=False)
            last = r.stderr.rstrip("\n").split("\n")[-1]
            cases[line] = {
                "code": r.returncode,
                "stdout": r.stdout,
                "last": last,
                "refused": last.split(MARK, 1)[1].split(" ") if MARK in last else None,
                "left": left(home),
            }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(
        json.dumps({"upstream_commit": upstream_commit(), "cases": cases}, indent=1) + "\n", encoding="utf-8"
    )


if __name__ == "__main__":
    os.environ.pop("HERMES_PROFILE", None)
    main()
