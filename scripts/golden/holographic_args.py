#!/usr/bin/env python3
"""Upstream's holographic plugin answering tool calls with unusual arguments, over a copy of the store its own golden
wrote (test/fixtures/upstream/holographic/upstream.db, scripts/golden/holographic.py): FTS5 syntax in a query
(quotes, AND / OR / NOT / NEAR, a prefix star, a column filter, a caret), stopword-only and unicode queries, numbers
sent as strings, limits of 0 and below, a category outside the schema's four (search, list, add, update), an empty
query or entity, ids that do not exist. The calls run in order on one store, so the writes near the end are seen by
the reads after them.

Usage: /usr/bin/python3 scripts/golden/holographic_args.py   (HERMES_UPSTREAM, default /work/upstream; numpy)
Upstream fork at schema v21, commit 9a75ff049b020ab5b24f76892f50f59064811028.
Writes test/fixtures/upstream/holographic/args.json; read by src-main/memory/providers/holographic/upstream-golden.test.ts.
"""
import json
import logging
import os
import shutil
import sys
import tempfile
from pathlib import Path

UPSTREAM = os.environ.get("HERMES_UPSTREAM", "/work/upstream")
DIR = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "holographic"
sys.path.insert(0, UPSTREAM)
logging.disable(logging.CRITICAL)
work = Path(tempfile.mkdtemp(prefix="golden-holoargs-"))
os.environ["HERMES_HOME"] = str(work)

from plugins.memory.holographic import HolographicMemoryProvider  # noqa: E402

S = "fact_store"
CALLS = [
    {"tool": S, "args": {"action": "search", "query": "the and of"}},
    {"tool": S, "args": {"action": "search", "query": "\"Ada\""}},
    {"tool": S, "args": {"action": "search", "query": "Ada AND Babbage"}},
    {"tool": S, "args": {"action": "search", "query": "Ada OR NOT"}},
    {"tool": S, "args": {"action": "search", "query": "engine*"}},
    {"tool": S, "args": {"action": "search", "query": "-Ada"}},
    {"tool": S, "args": {"action": "search", "query": "content:Ada"}},
    {"tool": S, "args": {"action": "search", "query": "NEAR(Ada Babbage)"}},
    {"tool": S, "args": {"action": "search", "query": "(Ada)"}},
    {"tool": S, "args": {"action": "search", "query": "Ada^2"}},
    {"tool": S, "args": {"action": "search", "query": "Ada.Lovelace"}},
    {"tool": S, "args": {"action": "search", "query": "Zürich"}},
    {"tool": S, "args": {"action": "search", "query": "zurich"}},
    {"tool": S, "args": {"action": "search", "query": "東京"}},
    {"tool": S, "args": {"action": "search", "query": "ADA lovelace"}},
    {"tool": S, "args": {"action": "search", "query": "Ada's notebook"}},
    {"tool": S, "args": {"action": "search", "query": "build,tooling"}},
    {"tool": S, "args": {"action": "search", "query": "Ada", "limit": "3"}},
    {"tool": S, "args": {"action": "search", "query": "Ada", "min_trust": "0.1"}},
    {"tool": S, "args": {"action": "search", "query": "Ada", "min_trust": 1.5}},
    {"tool": S, "args": {"action": "search", "query": "Ada", "category": "nosuch"}},
    {"tool": S, "args": {"action": "probe", "entity": "nobody here"}},
    {"tool": S, "args": {"action": "related", "entity": "ada"}},
    {"tool": S, "args": {"action": "reason", "entities": []}},
    {"tool": S, "args": {"action": "reason", "entities": ["Ada Lovelace"]}},
    {"tool": S, "args": {"action": "contradict", "category": "general"}},
    {"tool": S, "args": {"action": "list", "limit": "2"}},
    {"tool": S, "args": {"action": "list", "category": "tool", "min_trust": 0}},
    {"tool": S, "args": {"action": "update", "fact_id": 999, "content": "x"}},
    {"tool": S, "args": {"action": "remove", "fact_id": 999}},
    {"tool": S, "args": {"action": "update", "fact_id": "3", "trust_delta": "0.1"}},
    {"tool": S, "args": {"action": "add", "content": "Ada Lovelace wrote the first program for the Analytical Engine"}},
    {"tool": S, "args": {"action": "add", "content": "Ada Lovelace kept a preference for tea", "category": "preference"}},
    {"tool": S, "args": {"action": "list", "category": "preference"}},
    {"tool": S, "args": {"action": "add", "content": "  Tags are kept as sent  ", "tags": " spaced , tags "}},
    {"tool": S, "args": {"action": "search", "query": "kept as sent"}},
    {"tool": S, "args": {"action": "search", "query": "tea", "category": "preference"}},
    {"tool": S, "args": {"action": "probe", "entity": "Ada Lovelace", "category": "preference"}},
    {"tool": S, "args": {"action": "update", "fact_id": 5, "category": "build"}},
    {"tool": S, "args": {"action": "list", "category": "build"}},
    {"tool": S, "args": {"action": "search"}},
    {"tool": S, "args": {"action": "nope"}},
    {"tool": "fact_feedback", "args": {"action": "helpful", "fact_id": 999}},
]
# Where Caduceus answers otherwise on purpose (the test names each): an empty query or entity is a missing argument
# (upstream searches on ''), and a limit is held to 1..100 (upstream's 0 finds nothing, a negative one slices).
DIVERGENT = [
    {"tool": S, "args": {"action": "search", "query": ""}},
    {"tool": S, "args": {"action": "probe", "entity": ""}},
    {"tool": S, "args": {"action": "search", "query": "Ada", "limit": 0}},
    {"tool": S, "args": {"action": "search", "query": "Ada", "limit": -1}},
]

db = work / "memory_store.db"
shutil.copyfile(DIR / "upstream.db", db)
p = HolographicMemoryProvider(config={"db_path": str(db)})
p.initialize("golden-args")
replies = [json.loads(p.handle_tool_call(c["tool"], c["args"])) for c in CALLS]
divergent = [json.loads(p.handle_tool_call(c["tool"], c["args"])) for c in DIVERGENT]
p.shutdown()
shutil.rmtree(work, ignore_errors=True)
out = {"commit": "9a75ff049b020ab5b24f76892f50f59064811028", "calls": CALLS, "replies": replies,
       "divergent": DIVERGENT, "divergent_replies": divergent}
(DIR / "args.json").write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
print(len(CALLS), "calls,", len(DIVERGENT), "divergent, written to", DIR / "args.json")
