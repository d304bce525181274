#!/usr/bin/env python3
"""How full upstream counts MEMORY.md / USER.md: for files written by hand or by a program (duplicates, CRLF, blank
entries, padding, emoji, multi-line entries, a file past its limit) under config.yaml limits, the count and limit
upstream's on-disk store (tools/memory_tool.py: load_on_disk_store) holds for each file, then one memory tool call
and the usage figure (or refusal) it answers with, and the count afterwards.

Usage: /usr/bin/python3 scripts/golden/memory_usage.py   (HERMES_UPSTREAM, default /work/upstream)
Upstream fork at schema v21, commit 9a75ff049b020ab5b24f76892f50f59064811028.
Writes test/fixtures/upstream/memory-usage/upstream.json; read by src-main/memory/upstream-memory.test.ts, which
checks the figures the Memory page shows (the host's memory.entries / memory.edit) and Caduceus's tool against it.
"""
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from upstream_cli import UPSTREAM, upstream_commit

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "memory-usage"
sys.path.insert(0, UPSTREAM)
HOME = tempfile.mkdtemp(prefix="golden-memuse-")
os.environ["HERMES_HOME"] = HOME
os.environ["HOME"] = HOME

from tools.memory_tool import load_on_disk_store, memory_tool  # noqa: E402

# 92 characters joined: the figure upstream's tool answers "4% — 92/2,200 chars" with
NINETY_TWO = ["Project uses pnpm workspaces", "Tests live beside the code they test", "Deploys go via staging"]

CASES = [
    {"name": "empty store, one add", "config": "", "files": {},
     "op": {"action": "add", "target": "memory", "content": "Prefers metric units"}},
    {"name": "92 of 2,200 after an add", "config": "", "files": {"MEMORY.md": "\n§\n".join(NINETY_TWO[:2])},
     "op": {"action": "add", "target": "memory", "content": NINETY_TWO[2]}},
    {"name": "duplicates, blanks and padding on disk", "config": "",
     "files": {"MEMORY.md": "  alpha  \n§\n\n§\nbeta\n§\nalpha\n§\n\n§\n"},
     "op": {"action": "add", "target": "memory", "content": "gamma"}},
    {"name": "CRLF line ends", "config": "", "files": {"USER.md": "Name: Ada\r\n§\r\nTZ: UTC\r\nline two\r\n"},
     "op": {"action": "add", "target": "user", "content": "Likes tea"}},
    {"name": "code points, not UTF-16 units", "config": "memory:\n  memory_char_limit: 50\n",
     "files": {"MEMORY.md": "🎉🎉🎉 party\n§\ncafé"},
     "op": {"action": "add", "target": "memory", "content": "𝒳 marks it"}},
    {"name": "percent is floored as a float", "config": "memory:\n  memory_char_limit: 100\n",
     "files": {"MEMORY.md": "x" * 20},
     "op": {"action": "add", "target": "memory", "content": "y" * 6}},
    {"name": "user limit from config as a string", "config": "memory:\n  user_char_limit: '60'\n",
     "files": {"USER.md": "Name: Ada Lovelace"},
     "op": {"action": "add", "target": "user", "content": "Timezone: Europe/London, mornings"}},
    {"name": "add past the limit is refused", "config": "memory:\n  user_char_limit: 40\n",
     "files": {"USER.md": "Name: Ada Lovelace, mathematician"},
     "op": {"action": "add", "target": "user", "content": "Prefers long answers"}},
    {"name": "file past its limit by hand", "config": "memory:\n  memory_char_limit: 30\n",
     "files": {"MEMORY.md": "first entry of the file\n§\nsecond entry, written by hand"},
     "op": {"action": "remove", "target": "memory", "old_text": "second"}},
    {"name": "thousands grouped", "config": "memory:\n  memory_char_limit: 12000\n",
     "files": {"MEMORY.md": "\n§\n".join(f"Fact {i:04d}: " + "z" * 90 for i in range(20))},
     "op": {"action": "add", "target": "memory", "content": "One more fact"}},
    {"name": "a BOM counts as a character", "config": "", "files": {"MEMORY.md": "\ufeffone\n§\ntwo", "USER.md": "\ufeff"},
     "op": {"action": "add", "target": "user", "content": "Name: Ada"}},
    {"name": "empty and blank-only files", "config": "", "files": {"MEMORY.md": "", "USER.md": "\n \n\t"},
     "op": {"action": "add", "target": "memory", "content": "first"}},
    {"name": "old-Mac line ends", "config": "", "files": {"USER.md": "Name: Ada\r§\rTZ: UTC\r"},
     "op": {"action": "add", "target": "user", "content": "Likes tea"}},
    {"name": "exactly at the limit", "config": "memory:\n  memory_char_limit: 23\n",
     "files": {"MEMORY.md": "0123456789\n§\nabcdefghij"},
     "op": {"action": "add", "target": "memory", "content": "z"}},
    {"name": "negative limit", "config": "memory:\n  memory_char_limit: -5\n", "files": {},
     "op": {"action": "remove", "target": "memory", "old_text": "nothing"}},
]


def reset(config, files):
    shutil.rmtree(HOME, ignore_errors=True)
    os.makedirs(os.path.join(HOME, "memories"))
    with open(os.path.join(HOME, "config.yaml"), "w") as f:
        f.write(config)
    for name, text in files.items():
        with open(os.path.join(HOME, "memories", name), "w", encoding="utf-8", newline="") as f:
            f.write(text)


def counts():
    st = load_on_disk_store()
    return {t: {"used": st._char_count(t), "limit": st._char_limit(t)} for t in ("memory", "user")}


cases = []
for c in CASES:
    reset(c["config"], c["files"])
    before = counts()
    op = c["op"]
    r = json.loads(memory_tool(action=op["action"], target=op["target"], content=op.get("content"),
                               old_text=op.get("old_text"), store=load_on_disk_store()))
    cases.append({**c, "before": before,
                  "answer": {k: r[k] for k in ("success", "usage", "error") if k in r},
                  "after": counts()})

shutil.rmtree(HOME, ignore_errors=True)
OUT.mkdir(parents=True, exist_ok=True)
result = {"commit": upstream_commit(), "cases": cases}
(OUT / "upstream.json").write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
print(len(cases), "cases written to", OUT)
