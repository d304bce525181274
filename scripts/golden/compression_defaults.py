#!/usr/bin/env python3
"""Golden: the compression settings upstream's agent runs with, from a config.yaml that leaves `compression` out or
sets parts of it (upstream commit 9a75ff049b020ab5b24f76892f50f59064811028).

Builds upstream's AIAgent (run_agent.py) on a scripted provider for each config and model window, and records what
its constructor resolved: compression on or off, the ContextCompressor's effective threshold (after its floor for
windows under 512K), threshold tokens, protect_last_n, target ratio and context length.

Output: test/fixtures/upstream/compression-defaults/golden.json, read by src-main/agent/compression.test.ts.
Run: PYTHONPATH=<dir with openai> /usr/bin/python3 scripts/golden/compression_defaults.py
"""
from pathlib import Path

from golden_setup import ScriptedProvider, provider_home, serve_provider, write_golden

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "compression-defaults" / "golden.json"
MODEL = "m"

_server, base_url = serve_provider(ScriptedProvider)
home = provider_home(base_url, MODEL)
base = (home / "config.yaml").read_text()

from run_agent import AIAgent  # noqa: E402  (after the home is set)

# The compression section each case's config.yaml holds ("" = none at all).
CONFIGS = {
    "absent": "",
    "enabled-false": "compression:\n  enabled: false\n",
    "enabled-null": "compression:\n  enabled:\n",
    "threshold-0.5": "compression:\n  threshold: 0.5\n",
    "threshold-0.8": "compression:\n  threshold: 0.8\n",
    "explicit": "compression:\n  enabled: true\n  threshold: 0.6\n  target_ratio: 0.3\n  protect_last_n: 8\n",
}
# `enabled` spellings upstream turns into text (Python's str()) before it compares: one window each.
ENABLED = {
    "enabled-1.0": "compression:\n  enabled: 1.0\n",
    "enabled-1": "compression:\n  enabled: 1\n",
    "enabled-0x1": "compression:\n  enabled: 0x1\n",
    "enabled-YES-text": "compression:\n  enabled: 'YES'\n",
    "enabled-on": "compression:\n  enabled: on\n",
    "enabled-1e0-text": "compression:\n  enabled: 1e0\n",
}
WINDOWS = [128_000, 256_000, 600_000]
# (case, window, model lines): windows near upstream's 64K minimum (a trigger never below 64K tokens, and 85% of a
# window that minimum would fill; it refuses smaller windows), and an
# output reservation (model.max_tokens) carved out of the window.
EXTRA = [("absent", 64_000, ""), ("absent", 70_000, ""), ("absent", 90_000, ""),
         ("max-tokens", 128_000, "  max_tokens: 64000\n"), ("max-tokens", 600_000, "  max_tokens: 100000\n")]

cases = []
runs = [(name, window, "") for name in CONFIGS for window in WINDOWS] + EXTRA + [(n, 600_000, "") for n in ENABLED]
for name, window, model_lines in runs:
    section = {**CONFIGS, **ENABLED}.get(name, "")
    (home / "config.yaml").write_text(
        base.replace("  base_url:", f"  context_length: {window}\n{model_lines}  base_url:", 1) + section)
    agent = AIAgent(api_key="sk-golden", base_url=base_url, provider="custom", model=MODEL,
                    enabled_toolsets=[], quiet_mode=True, platform="cli", skip_memory=True)
    c = agent.context_compressor
    cases.append({"config": name, "compression": section, "model": model_lines, "contextLength": window,
                  "enabled": agent.compression_enabled, "threshold": c.threshold_percent,
                  "thresholdTokens": c.threshold_tokens, "protectLastN": c.protect_last_n,
                  "targetRatio": c.summary_target_ratio, "resolvedContextLength": c.context_length})

write_golden(OUT, "scripts/golden/compression_defaults.py", {"cases": cases})
for case in cases:
    print(case["config"], case["contextLength"], case["enabled"], case["threshold"], case["thresholdTokens"],
          case["protectLastN"], case["targetRatio"])
