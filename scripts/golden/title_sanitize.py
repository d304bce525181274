#!/usr/bin/env python3
"""Golden title cleaning by upstream's own SessionDB.sanitize_title (hermes-spec §1.8).

Usage: /usr/bin/python3 scripts/golden/title_sanitize.py
Env: HERMES_UPSTREAM (default /work/upstream) is the upstream checkout to import.
Writes test/fixtures/upstream/title-sanitize/cases.json: [[raw, cleaned or null], ...] and the upstream commit.
"""
import json
import sys
from pathlib import Path

from upstream_cli import UPSTREAM, upstream_commit  # noqa: E402

UPSTREAM = Path(UPSTREAM)
OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "title-sanitize"
sys.path.insert(0, str(UPSTREAM))
from hermes_state import SessionDB  # noqa: E402

RAW = [
    "a\tb", "  two\n\nlines  ", "cr\rlf\nend", "x\u200by", "a\u2028b", "a\u2029b", "a\u202eb", "a\u2065b",
    "a\ufeffb", "a\ufffcb", "a\ufff9b", "ctrl\x01x\x7f", "\u00a0nbsp\u00a0", "tab\t\tand  spaces", "", "  \t ",
    "Lisbon trip", "caf\u00e9 \u2014 plan",
]
commit = upstream_commit()
OUT.mkdir(parents=True, exist_ok=True)
(OUT / "cases.json").write_text(
    json.dumps({"upstreamCommit": commit,
                "cases": [[r, SessionDB.sanitize_title(r)] for r in RAW]}, indent=1, ensure_ascii=True) + "\n"
)
