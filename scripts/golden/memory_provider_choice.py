#!/usr/bin/env python3
"""Which external memory provider upstream's agent runs with for each `memory.provider` value in config.yaml: a real
AIAgent is built over a home holding that config.yaml (as memory_core.py builds one: no network, only its OpenAI
client constructor is replaced), and the providers its memory manager holds and the memory tools it offers are
recorded. Values: unset, empty, blank, null, a known local provider as written and with spaces or capitals around it,
an unknown name, hosted providers without keys, and values that are not strings.

Usage: PYTHONPATH=/tmp/loopwork/pylib /usr/bin/python3 scripts/golden/memory_provider_choice.py
       (HERMES_UPSTREAM, default /work/upstream; numpy for holographic)
Upstream fork at schema v21, commit 9a75ff049b020ab5b24f76892f50f59064811028.
Writes test/fixtures/upstream/memory-provider-choice/upstream.json; read by
src-main/host/memory-providers/memory-providers.host.test.ts.
"""
import json
import logging
import os
import shutil
import sys
import tempfile
from pathlib import Path

UPSTREAM = os.environ.get("HERMES_UPSTREAM", "/work/upstream")
OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "memory-provider-choice"
sys.path.insert(0, UPSTREAM)
HOME = tempfile.mkdtemp(prefix="golden-memchoice-")
os.environ["HERMES_HOME"] = HOME
os.environ["HOME"] = HOME
for key in ("MEM0_API_KEY", "HONCHO_API_KEY", "SUPERMEMORY_API_KEY", "MEM0_HOST"):
    os.environ.pop(key, None)
logging.disable(logging.CRITICAL)

# The YAML text after `memory:\n  provider:`; None leaves the key out.
VALUES = [None, "''", "'   '", "", "holographic", "' holographic '", "Holographic", "nosuch", "mem0", "honcho",
          "supermemory", "5", "true", "[holographic]"]
FACT_TOOLS = ("fact_store", "fact_feedback")


def agent_for(value):
    from run_agent import AIAgent
    AIAgent._create_openai_client = lambda self, kwargs, **kw: object()
    shutil.rmtree(HOME, ignore_errors=True)
    os.makedirs(HOME)
    config = "model:\n  default: m\n" + ("" if value is None else f"memory:\n  provider: {value}\n")
    Path(HOME, "config.yaml").write_text(config, encoding="utf-8")
    agent = AIAgent(base_url="http://127.0.0.1:9/v1", api_key="golden-key-xxxxxxxx", model="m", quiet_mode=True,
                    skip_context_files=True, platform="cli")
    manager = agent._memory_manager
    names = {t["function"]["name"] for t in agent.tools}
    return {"config": config,
            "providers": [p.name for p in manager.providers] if manager else [],
            "fact_tools": sorted(n for n in FACT_TOOLS if n in names),
            "memory_tool": "memory" in names}


cases = [agent_for(v) for v in VALUES]
shutil.rmtree(HOME, ignore_errors=True)
OUT.mkdir(parents=True, exist_ok=True)
result = {"commit": "9a75ff049b020ab5b24f76892f50f59064811028", "cases": cases}
(OUT / "upstream.json").write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
for c in cases:
    print(repr(c["config"].split("provider:")[-1].strip()) if "provider" in c["config"] else "unset", c["providers"], c["fact_tools"])
