#!/usr/bin/env python3
"""Which key upstream sends to a custom endpoint: upstream's own resolve_runtime_provider (after its .env loader) on
homes whose config.yaml points model.base_url at various hosts, with various keys in .env and config.yaml.

Usage: /usr/bin/python3 scripts/golden/custom_keys.py   (python3-dotenv, -yaml, -httpx, -requests; HERMES_UPSTREAM)
Writes test/fixtures/upstream/custom-keys/cases.json: [{config, env, api_key}] ("" where upstream sends no key:
its "no-key-required" placeholder), read by src-main/config/config.test.ts.
"""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

UPSTREAM = os.environ.get("HERMES_UPSTREAM", "/work/upstream")
OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "custom-keys"

ENV = (
    "OPENAI_API_KEY=sk-openai-0001\nOPENROUTER_API_KEY=sk-or-0002\nDEEPSEEK_API_KEY=sk-ds-0003\n"
    "OLLAMA_API_KEY=sk-ollama-0004\nGROQ_API_KEY=sk-groq-0005\n"
)
CASES = [
    ("https://api.deepseek.com/v1", None, ENV),
    ("https://api.deepseek.com/v1", "sk-config-0006", ENV),
    ("https://api.groq.com/openai/v1", None, ENV),
    ("https://api.mistral.ai/v1", None, ENV),
    ("http://localhost:11434/v1", None, ENV),
    ("http://127.0.0.1:8080/v1", None, ENV),
    ("http://localhost:11434/v1", "sk-config-0006", ENV),
    ("https://ollama.com/v1", None, ENV),
    ("https://myco.openai.azure.com/openai/v1", None, ENV),
    ("https://api.openai.com/v1", None, ENV),
    ("https://openrouter.ai/api/v1", None, ENV),
    ("https://api.deepseek.com.attacker.test/v1", None, ENV),
    ("https://evil.example/ollama.com/v1", None, ENV),
    ("https://llm.internal/v1", None, ENV),
    ("https://api.deepseek.com/v1", None, "OPENAI_API_KEY=sk-openai-0001\n"),
]

probe = """
import json, os, sys
home = sys.argv[1]
os.environ['HERMES_HOME'] = home
for k in list(os.environ):
    if k.endswith('_API_KEY') or k.endswith('_BASE_URL'):
        del os.environ[k]
sys.path.insert(0, sys.argv[2])
from hermes_cli.env_loader import load_hermes_dotenv
load_hermes_dotenv(hermes_home=home)
from hermes_cli.runtime_provider import resolve_runtime_provider
r = resolve_runtime_provider()
print(json.dumps({'provider': r.get('provider'), 'base_url': r.get('base_url'), 'api_key': r.get('api_key')}))
"""
cases = []
for base_url, cfg_key, env in CASES:
    home = Path(tempfile.mkdtemp(prefix="golden-keys-"))
    config = f"model:\n  default: m\n  provider: custom\n  base_url: {base_url}\n" + (f"  api_key: {cfg_key}\n" if cfg_key else "")
    (home / "config.yaml").write_text(config)
    (home / ".env").write_text(env)
    out = subprocess.run([sys.executable, "-c", probe, str(home), UPSTREAM], capture_output=True, text=True,
                         env={**os.environ, "HOME": str(home)}, check=True)
    r = json.loads(out.stdout.strip().splitlines()[-1])
    key = r["api_key"]
    cases.append({"config": config, "env": env, "base_url": r["base_url"], "api_key": "" if key == "no-key-required" else key})
OUT.mkdir(parents=True, exist_ok=True)
(OUT / "cases.json").write_text(json.dumps({"cases": cases}, indent=1) + "\n")
for c in cases:
    print(c["base_url"], "->", c["api_key"] or "(none)")
