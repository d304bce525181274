#!/usr/bin/env python3
"""The rerank default upstream's mem0 provider takes from `$HERMES_HOME/mem0.json` (its `initialize`: a string
compared as a word, anything else Python's bool()), by its own code.

Ran upstream's hermes-agent fork at commit 9a75ff049b020ab5b24f76892f50f59064811028 (recorded in the output).

Run: PYTHONPATH=<dir with the `httpx` package> /usr/bin/python3 scripts/golden/mem0_rerank.py
Writes test/fixtures/upstream/mem0-rerank/golden.json (each mem0.json `rerank` text and the default it gave);
replayed by src-main/memory/providers/mem0/settings.test.ts.
"""
import json
import logging
from pathlib import Path

from golden_setup import upstream_home, write_golden

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "mem0-rerank" / "golden.json"
VALUES = ["true", "false", "2", "0.5", "1.0", "0", "[1]", "[]", '{"a": 1}', "{}", '"YES"', '"on"', '"0"', "null"]

HOME = upstream_home("golden-mem0-rerank-")
logging.disable(logging.CRITICAL)
from plugins.memory.mem0 import Mem0MemoryProvider  # noqa: E402

cases = []
for text in VALUES:
    (HOME / "mem0.json").write_text('{"rerank": %s}' % text, encoding="utf-8")
    p = Mem0MemoryProvider()
    p.initialize("golden")
    cases.append({"mem0_json_rerank": text, "rerank": p._rerank_default})
write_golden(OUT, "scripts/golden/mem0_rerank.py", {"cases": cases})
print(json.dumps(cases))
