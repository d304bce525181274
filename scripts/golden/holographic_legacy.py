#!/usr/bin/env python3
"""A memory_store.db from before upstream's holographic plugin kept HRR vectors: `facts` without its `hrr_vector`
column and no `memory_banks` table (the two parts upstream's store adds to an existing file when it opens one: the
column by its ALTER TABLE migration, the table by its IF NOT EXISTS schema). The old file is made from facts
upstream's current plugin wrote (so its entities and links are upstream's), copied into the old layout.

Then upstream's own plugin opens a copy (migration), recomputes vectors and banks with its own recovery call
(MemoryStore.rebuild_all_vectors, what Caduceus does for facts without a vector when it opens a store), answers
QUERIES and runs OPS. Writes test/fixtures/upstream/holographic/legacy/:
  old.db                the old-layout file, before any program opened it
  upstream.json         the columns and tables upstream leaves, its replies to QUERIES then OPS, and its replies
                        to QUERIES over the old file WITHOUT the rebuild (no vectors: its search weighs HRR as 0.5)
  upstream.db           the file after all that
Read by src-main/memory/providers/holographic/upstream-golden.test.ts.

Usage: /usr/bin/python3 scripts/golden/holographic_legacy.py   (HERMES_UPSTREAM, default /work/upstream; numpy)
Upstream fork at schema v21, commit 9a75ff049b020ab5b24f76892f50f59064811028.
"""
import json
import logging
import os
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

UPSTREAM = os.environ.get("HERMES_UPSTREAM", "/work/upstream")
OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "holographic" / "legacy"
sys.path.insert(0, UPSTREAM)
logging.disable(logging.CRITICAL)
work = Path(tempfile.mkdtemp(prefix="golden-hololegacy-"))
os.environ["HERMES_HOME"] = str(work)

from plugins.memory.holographic import HolographicMemoryProvider  # noqa: E402
from plugins.memory.holographic import store as upstream_store  # noqa: E402

FACTS = [
    ("Ada Lovelace wrote the first program for the Analytical Engine", "project", "history", 0.5),
    ("Charles Babbage designed the Analytical Engine", "project", "", 0.65),
    ("The user prefers 'tabs' over spaces", "user_pref", "editor", 0.8),
    ("Grace Hopper found the first actual bug", "general", "", 0.35),
    ("The deploy target is called bluebird", "project", "infra", 0.2),
]
QUERIES = [
    {"tool": "fact_store", "args": {"action": "search", "query": "who designed the analytical engine?"}},
    {"tool": "fact_store", "args": {"action": "search", "query": "bluebird deploy", "min_trust": 0.0}},
    {"tool": "fact_store", "args": {"action": "probe", "entity": "Ada Lovelace"}},
    {"tool": "fact_store", "args": {"action": "related", "entity": "Analytical Engine"}},
    {"tool": "fact_store", "args": {"action": "list"}},
]
OPS = [
    {"tool": "fact_store", "args": {"action": "add", "content": "Mary Somerville introduced Ada Lovelace to Charles Babbage"}},
    {"tool": "fact_store", "args": {"action": "update", "fact_id": 4, "content": "Grace Hopper found the first moth"}},
    {"tool": "fact_feedback", "args": {"action": "helpful", "fact_id": 2}},
    {"tool": "fact_feedback", "args": {"action": "unhelpful", "fact_id": 3}},
    {"tool": "fact_store", "args": {"action": "remove", "fact_id": 5}},
    {"tool": "fact_store", "args": {"action": "search", "query": "Ada Lovelace"}},
]


def old_layout_db(path: Path) -> None:
    """Facts written by upstream's current store, copied into the layout without vectors or banks."""
    src = work / "current.db"
    s = upstream_store.MemoryStore(db_path=src)
    for content, cat, tags, trust in FACTS:
        fid = s.add_fact(content, cat, tags)
        s._conn.execute("UPDATE facts SET trust_score = ? WHERE fact_id = ?", (trust, fid))
    s._conn.execute("UPDATE facts SET created_at = '2024-03-01 10:00:00', updated_at = '2024-03-01 10:00:00'")
    s._conn.execute("UPDATE entities SET created_at = '2024-03-01 10:00:00'")
    s.close()
    # The schema text of today's store without the parts the migration adds, rather than a second copy of it.
    ddl = upstream_store._SCHEMA
    ddl = ddl[: ddl.index("CREATE TABLE IF NOT EXISTS memory_banks")]
    cut = ddl.index("hrr_vector")
    ddl = ddl[: ddl.rindex(",", 0, cut)] + ddl[ddl.index("\n", cut):]
    con = sqlite3.connect(path)
    con.executescript(ddl)
    con.execute("ATTACH ? AS cur", (str(src),))
    cols = "fact_id, content, category, tags, trust_score, retrieval_count, helpful_count, created_at, updated_at"
    con.execute(f"INSERT INTO facts ({cols}) SELECT {cols} FROM cur.facts ORDER BY fact_id")
    con.execute("INSERT INTO entities SELECT * FROM cur.entities ORDER BY entity_id")
    con.execute("INSERT INTO fact_entities SELECT * FROM cur.fact_entities")
    con.commit()
    con.execute("DETACH cur")
    con.close()


def layout(path: Path) -> dict:
    con = sqlite3.connect(path)
    out = {"facts_columns": [r[1] for r in con.execute("PRAGMA table_info(facts)")],
           "tables": sorted(r[0] for r in con.execute(
               "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'facts_fts_%'"
               " AND name != 'sqlite_sequence'"))}
    con.close()
    return out


def run(p, calls):
    return [json.loads(p.handle_tool_call(c["tool"], c["args"])) for c in calls]


def open_provider(db: Path) -> HolographicMemoryProvider:
    p = HolographicMemoryProvider(config={"db_path": str(db)})
    p.initialize("golden-legacy")
    return p


shutil.rmtree(OUT, ignore_errors=True)
OUT.mkdir(parents=True)
old = OUT / "old.db"
old_layout_db(old)
result = {"commit": "9a75ff049b020ab5b24f76892f50f59064811028", "queries": QUERIES, "ops": OPS,
          "old_layout": layout(old)}

# Upstream's plain open of the old file: migration only, no vectors.
plain = work / "plain.db"
shutil.copyfile(old, plain)
p = open_provider(plain)
result["queries_without_rebuild"] = run(p, QUERIES)
p.shutdown()

db = work / "memory_store.db"
shutil.copyfile(old, db)
p = open_provider(db)
result["migrated_layout"] = layout(db)
result["rebuilt"] = p._store.rebuild_all_vectors()
result["query_replies"] = run(p, QUERIES)
result["op_replies"] = run(p, OPS)
p.shutdown()
con = sqlite3.connect(db)
con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
con.execute("PRAGMA journal_mode=DELETE")
con.close()
shutil.copyfile(db, OUT / "upstream.db")
(OUT / "upstream.json").write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
shutil.rmtree(work, ignore_errors=True)
print("legacy store:", result["old_layout"], "->", result["migrated_layout"], "written to", OUT)
