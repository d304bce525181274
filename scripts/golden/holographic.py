#!/usr/bin/env python3
"""Golden data for the holographic memory provider, written by upstream's own plugin.

Runs upstream's HolographicMemoryProvider (needs numpy: use Debian's /usr/bin/python3) and writes, under
test/fixtures/upstream/holographic/:
  ops.json             the tool calls both sides replay (the test replays them through Caduceus)
  upstream.db          the memory_store.db upstream wrote for those calls
  upstream-answers.json  upstream's replies: to the ops, then to the queries, then prefetch blocks
  vectors.json         atoms / binds / texts / facts as upstream encodes them (float64 LE, base64)
  caduceus.db + caduceus-answers.json  (when node is available) the same ops replayed by Caduceus, then
                       upstream's replies to the queries over Caduceus's file: upstream finds Caduceus's facts.

Usage: HERMES_UPSTREAM=/work/upstream /usr/bin/python3 scripts/golden/holographic.py
"""
import base64
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

UPSTREAM = Path(os.environ.get("HERMES_UPSTREAM", "/work/upstream"))
ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "test" / "fixtures" / "upstream" / "holographic"
sys.path.insert(0, str(UPSTREAM))
work = Path(tempfile.mkdtemp(prefix="golden-holo-"))
os.environ["HERMES_HOME"] = str(work)

from plugins.memory.holographic import HolographicMemoryProvider  # noqa: E402
from plugins.memory.holographic import holographic as hrr  # noqa: E402

FACTS = [
    ("Ada Lovelace wrote the first program for the Analytical Engine", "project", ""),
    ("Charles Babbage designed the Analytical Engine", "project", "history"),
    ("Ada Lovelace aka Countess corresponded with Charles Babbage", "general", ""),
    ("The user prefers 'tabs' over spaces in Python", "user_pref", "editor"),
    ('The build uses "esbuild" for bundling and "Vitest" for tests', "tool", "build,tooling"),
    ("Grace Hopper found the first actual bug in the Mark II", "general", ""),
    ("The staging server is called bluebird", "project", ""),
    ("Ada Lovelace lives in London", "general", ""),
    ("Ada Lovelace moved to Paris", "general", ""),
    ("Ada's notebook isn't on the shared drive", "general", ""),
    ("Zoë Schmidt met Grace Hopper in Zürich", "general", ""),
]

OPS = [{"tool": "fact_store", "args": {"action": "add", "content": c, "category": cat, "tags": t}} for c, cat, t in FACTS]
OPS += [
    {"tool": "fact_store", "args": {"action": "add", "content": FACTS[0][0]}},
    {"tool": "fact_store", "args": {"action": "update", "fact_id": 7, "content": "The staging server is called redwood"}},
    {"tool": "fact_store", "args": {"action": "update", "fact_id": 6, "category": "project"}},
    {"tool": "fact_store", "args": {"action": "update", "fact_id": 2, "trust_delta": 0.2}},
    {"tool": "fact_feedback", "args": {"action": "helpful", "fact_id": 1}},
    {"tool": "fact_feedback", "args": {"action": "unhelpful", "fact_id": 4}},
    {"tool": "fact_feedback", "args": {"action": "unhelpful", "fact_id": 4}},
    {"tool": "fact_feedback", "args": {"action": "unhelpful", "fact_id": 4}},
    {"tool": "fact_store", "args": {"action": "remove", "fact_id": 10}},
    {"tool": "fact_store", "args": {"action": "add", "content": "Mary Somerville introduced Ada Lovelace to Charles Babbage"}},
]

QUERIES = [
    {"tool": "fact_store", "args": {"action": "probe", "entity": "Ada Lovelace"}},
    {"tool": "fact_store", "args": {"action": "probe", "entity": "charles babbage", "category": "project"}},
    {"tool": "fact_store", "args": {"action": "probe", "entity": "Grace Hopper", "limit": 3}},
    {"tool": "fact_store", "args": {"action": "related", "entity": "Analytical Engine"}},
    {"tool": "fact_store", "args": {"action": "related", "entity": "esbuild", "limit": 4}},
    {"tool": "fact_store", "args": {"action": "reason", "entities": ["Ada Lovelace", "Charles Babbage"]}},
    {"tool": "fact_store", "args": {"action": "reason", "entities": ["Ada Lovelace", "London"], "category": "general"}},
    {"tool": "fact_store", "args": {"action": "search", "query": "who designed the analytical engine?"}},
    {"tool": "fact_store", "args": {"action": "search", "query": "Ada Lovelace", "min_trust": 0.0}},
    {"tool": "fact_store", "args": {"action": "search", "query": "staging server", "category": "project"}},
    {"tool": "fact_store", "args": {"action": "contradict"}},
    {"tool": "fact_store", "args": {"action": "list"}},
    {"tool": "fact_store", "args": {"action": "list", "category": "project", "min_trust": 0.6}},
]
PREFETCH = ["what did Ada Lovelace write?", "tabs or spaces?", "Charles Babbage", "zebra"]


def provider(db_path: Path) -> HolographicMemoryProvider:
    p = HolographicMemoryProvider(config={"db_path": str(db_path)})
    p.initialize("golden")
    return p


def run(p, calls):
    return [json.loads(p.handle_tool_call(c["tool"], c["args"])) for c in calls]


def answers(db_path: Path) -> dict:
    p = provider(db_path)
    out = {"queries": run(p, QUERIES), "prefetch": [p.prefetch(q) for q in PREFETCH]}
    p.shutdown()
    return out


def settle(src: Path, dest: Path) -> None:
    """One self-contained file: WAL folded in, rollback journal mode."""
    con = sqlite3.connect(src)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.execute("PRAGMA journal_mode=DELETE")
    con.close()
    shutil.copyfile(src, dest)


def b64(v) -> str:
    return base64.b64encode(hrr.phases_to_bytes(v)).decode()


def vectors() -> dict:
    out = []
    for dim in (1024, 100):
        for w in ("ada", "__hrr_role_entity__", "zürich", "東京"):
            out.append({"kind": "atom", "word": w, "dim": dim, "b64": b64(hrr.encode_atom(w, dim))})
        out.append({"kind": "bind", "a": "ada lovelace", "b": "__hrr_role_entity__", "dim": dim,
                    "b64": b64(hrr.bind(hrr.encode_atom("ada lovelace", dim), hrr.encode_atom("__hrr_role_entity__", dim)))})
        out.append({"kind": "unbind", "a": "ada", "b": "zürich", "dim": dim,
                    "b64": b64(hrr.unbind(hrr.encode_atom("ada", dim), hrr.encode_atom("zürich", dim)))})
        for t in ("Ada wrote (the) first program!", "", "Zürich, 東京 & Paris"):
            out.append({"kind": "text", "text": t, "dim": dim, "b64": b64(hrr.encode_text(t, dim))})
        out.append({"kind": "fact", "text": FACTS[0][0], "entities": ["Ada Lovelace", "Analytical Engine"], "dim": dim,
                    "b64": b64(hrr.encode_fact(FACTS[0][0], ["Ada Lovelace", "Analytical Engine"], dim))})
    return {"vectors": out}


def dump(name: str, data) -> None:
    (OUT / name).write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    dump("ops.json", {"ops": OPS, "queries": QUERIES, "prefetch": PREFETCH})
    db = work / "upstream.db"
    p = provider(db)
    replies = run(p, OPS)
    p.shutdown()
    result = {"ops": replies, **answers(db)}
    dump("upstream-answers.json", result)
    settle(db, OUT / "upstream.db")
    dump("vectors.json", vectors())

    # Caduceus replays the same ops into its own file; upstream then answers the queries over it.
    cad = work / "caduceus.db"
    writer = ROOT / "scripts" / "golden" / "holographic-caduceus.ts"
    try:
        subprocess.run(["npx", "tsx", str(writer), str(OUT / "ops.json"), str(cad)], cwd=ROOT, check=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        print(f"skipping the Caduceus-written file: {exc}", file=sys.stderr)
        return
    settle(cad, OUT / "caduceus.db")
    dump("caduceus-answers.json", answers(cad))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
