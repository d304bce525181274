#!/usr/bin/env python3
"""How upstream reads the scalars a hand-edited config.yaml holds: its own loader (utils.fast_safe_load, PyYAML's
YAML 1.1 safe loader) on one config whose values are the words people write for on/off, numbers and nulls.

Usage: /usr/bin/python3 scripts/golden/config_scalars.py   (HERMES_UPSTREAM, default /work/upstream)
Writes test/fixtures/upstream/config-scalars/{config.yaml, upstream.json}; read by src-main/config/config.test.ts.
YAML 1.1's octal, sexagesimal, 1_000 and dates, repeated keys and merge keys: scripts/golden/config_load.py.
"""
import json
import os
import sys
from pathlib import Path

UPSTREAM = os.environ.get("HERMES_UPSTREAM", "/work/upstream")
OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "config-scalars"
sys.path.insert(0, UPSTREAM)
from utils import fast_safe_load  # noqa: E402

words = ["yes", "Yes", "YES", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF", "true", "True", "TRUE",
         "false", "False", "FALSE", "y", "n", "Y", "N", "yEs", "oN", "~", "null", "Null", "NULL", "", "1", "0", "-3",
         "+7", "0x1F", "3.5", "-0.25", ".5", "1.", "1.0e+3", "'yes'", '"off"', "none", "None"]
lines = ["memory:", "  provider: holographic", "scalars:"]
lines += [f"  k{i}: {w}" for i, w in enumerate(words)]
lines += ["flow: [yes, no, on, off, y, n]", "plugins:", "  hermes-memory-store:", "    auto_extract: no", "    hrr_dim: 512"]
text = "\n".join(lines) + "\n"
data = fast_safe_load(text)
OUT.mkdir(parents=True, exist_ok=True)
(OUT / "config.yaml").write_text(text)
(OUT / "upstream.json").write_text(json.dumps({"words": words, "parsed": data}, indent=1, allow_nan=True) + "\n")
print(json.dumps(data)[:400])
