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
  setup/               a profile configured the way upstream's `hermes memory setup` saves it (every value a
                       string: hrr_dim '512', default_trust '0.8', auto_extract 'true'): config.yaml, the
                       store upstream wrote from SETUP_OPS plus on_session_end(MESSAGES) (upstream.db), its
                       replies (upstream-answers.json), the same replayed by Caduceus from that config.yaml
                       (caduceus.db) and upstream's replies over Caduceus's file (caduceus-answers.json); and
                       what upstream itself does when hrr_dim disagrees with the store (mismatch.json).

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

# What hermes_cli/memory_setup.py collects from the provider's schema prompts (every answer a str), saved by the
# provider's own save_config.
SETUP_VALUES = {"db_path": "$HERMES_HOME/memory_store.db", "auto_extract": "true", "default_trust": "0.8",
                "hrr_dim": "512"}
SETUP_OPS = [
    {"tool": "fact_store", "args": {"action": "add", "content": "Ada Lovelace wrote the first program"}},
    {"tool": "fact_store", "args": {"action": "add", "content": "Charles Babbage designed the Analytical Engine"}},
    {"tool": "fact_store", "args": {"action": "add", "content": "The user edits in 'helix'", "category": "user_pref"}},
]
# User (and other) messages at session end: auto_extract's rules, lengths and Python's text semantics.
MESSAGES = [
    {"role": "user", "content": "I prefer tabs over spaces. Also, we decided to use Postgres for the project."},
    {"role": "user", "content": "I use vim"},  # 9 characters: skipped
    {"role": "user", "content": "I use vim!"},  # 10: kept
    {"role": "user", "content": "ninechars"},
    {"role": "user", "content": "my favourite color is blue"},  # British spelling: no rule
    {"role": "user", "content": "My favorite text editor is helix, by far."},  # two words before "is": no rule
    {"role": "user", "content": "My favorite editor is helix, by far."},
    {"role": "user", "content": "The project requires Node 22 and pnpm."},
    {"role": "user", "content": "We agreed to freeze the API on Friday"},
    {"role": "user", "content": "What time is it in Zürich right now?"},
    {"role": "assistant", "content": "I prefer to answer briefly, always."},
    {"role": "user", "content": "  I usually deploy on Tuesdays  "},
    {"role": "user", "content": "I NEED coffee before standups"},
    {"role": "user", "content": "\u0130 like tea with lemon"},  # dotted capital I folds to i in Python
    {"role": "user", "content": "I li\u212ae the Kelvin sign"},  # so does the Kelvin sign to k
    {"role": "user", "content": "I use\nneovim daily"},
    {"role": "user", "content": "Honestly, I use\n\n"},  # nothing after the verb on its line
    {"role": "user", "content": "I use\x85vim a lot"},  # U+0085 is whitespace to Python
    {"role": "user", "content": "I use\ufeffemacs a lot"},  # U+FEFF is not
    {"role": "user", "content": "Zoë: I love 東京 and ramen 🍜"},
    {"role": "user", "content": "Their awe decided nothing here"},
    {"role": "user", "content": "Lately I've been thinking I always forget my keys"},
    {"role": "user", "content": "I prefer " + "long answers with examples, " * 20},  # > 400: first 400 kept
    {"role": "user", "content": "I prefer " + "😀" * 400},  # 400 code points, not UTF-16 units
    {"role": "user", "content": [{"type": "text", "text": "I prefer multimodal parts"}]},  # not a str: skipped
    {"role": "user", "content": "I prefer tabs over spaces. Also, we decided to use Postgres for the project."},
    {"role": "user", "content": "We decided to use Postgres"},
]
SETUP_QUERIES = [
    {"tool": "fact_store", "args": {"action": "probe", "entity": "Charles Babbage"}},
    {"tool": "fact_store", "args": {"action": "search", "query": "Analytical Engine"}},
    {"tool": "fact_store", "args": {"action": "search", "query": "which editor does the user prefer?"}},
    {"tool": "fact_store", "args": {"action": "related", "entity": "helix"}},
    {"tool": "fact_store", "args": {"action": "list", "limit": 100}},
]


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


def setup_home(name: str) -> Path:
    """A profile home whose config.yaml upstream's own setup path wrote (strings)."""
    home = work / name
    home.mkdir()
    (home / "config.yaml").write_text("memory:\n  provider: holographic\n", encoding="utf-8")
    HolographicMemoryProvider(config={}).save_config(dict(SETUP_VALUES), str(home))
    return home


def in_home(home: Path) -> HolographicMemoryProvider:
    """The provider as upstream's register() builds it: config read from the active home's config.yaml."""
    os.environ["HERMES_HOME"] = str(home)
    p = HolographicMemoryProvider()
    p.initialize("golden-setup")
    return p


def setup_answers(home: Path) -> list:
    p = in_home(home)
    out = run(p, SETUP_QUERIES)
    p.shutdown()
    return out


def setup_golden() -> None:
    out = OUT / "setup"
    out.mkdir(parents=True, exist_ok=True)
    home = setup_home("setup-upstream")
    shutil.copyfile(home / "config.yaml", out / "config.yaml")
    p = in_home(home)
    replies = run(p, SETUP_OPS)
    p.on_session_end(MESSAGES)
    p.shutdown()
    (out / "upstream-answers.json").write_text(
        json.dumps({"ops": replies, "queries": setup_answers(home)}, indent=1, ensure_ascii=False) + "\n",
        encoding="utf-8")
    settle(home / "memory_store.db", out / "upstream.db")

    # Upstream's own behaviour when hrr_dim disagrees with the store: the setup's 512-wide store read with
    # the default 1024 (a config without hrr_dim).
    odd = work / "mismatch"
    odd.mkdir()
    shutil.copyfile(out / "upstream.db", odd / "memory_store.db")
    os.environ["HERMES_HOME"] = str(odd)
    p = HolographicMemoryProvider(config={})
    p.initialize("golden-mismatch")
    calls = [{"tool": "fact_store", "args": {"action": "add", "content": "Grace Hopper found the first bug"}},
             *SETUP_QUERIES[:2]]
    mismatch = run(p, calls)
    p.shutdown()
    (out / "mismatch.json").write_text(json.dumps({"calls": calls, "replies": mismatch}, indent=1) + "\n",
                                       encoding="utf-8")

    cad = setup_home("setup-caduceus")
    writer = ROOT / "scripts" / "golden" / "holographic-caduceus.ts"
    try:
        subprocess.run(["npx", "tsx", str(writer), "--setup", str(OUT / "ops.json"), str(cad)], cwd=ROOT, check=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        print(f"skipping the Caduceus-written setup file: {exc}", file=sys.stderr)
        return
    settle(cad / "memory_store.db", out / "caduceus.db")
    (out / "caduceus-answers.json").write_text(
        json.dumps({"queries": setup_answers(cad)}, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    dump("ops.json", {"ops": OPS, "queries": QUERIES, "prefetch": PREFETCH,
                      "setup": {"ops": SETUP_OPS, "messages": MESSAGES, "queries": SETUP_QUERIES}})
    db = work / "upstream.db"
    p = provider(db)
    replies = run(p, OPS)
    p.shutdown()
    result = {"ops": replies, **answers(db)}
    dump("upstream-answers.json", result)
    settle(db, OUT / "upstream.db")
    dump("vectors.json", vectors())

    # Caduceus replays the same ops into its own file; upstream then answers the queries over it.
    setup_golden()
    os.environ["HERMES_HOME"] = str(work)

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
