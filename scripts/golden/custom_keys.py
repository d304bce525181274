#!/usr/bin/env python3
"""Which key upstream sends to a custom endpoint: upstream's own resolve_runtime_provider (after its .env loader) on
homes whose config.yaml points model.base_url at various hosts, with various keys in .env and config.yaml; and, for
the official providers (openrouter, anthropic), whether config.yaml's model.api_key is ever used (it is not: the
provider's own secret or nothing; upstream refuses an anthropic home without one, recorded as "error").

Usage: /usr/bin/python3 scripts/golden/custom_keys.py   (python3-dotenv, -yaml, -httpx, -requests; HERMES_UPSTREAM)
Writes test/fixtures/upstream/custom-keys/cases.json: [{config, env, base_url, api_key, error?}] ("" where upstream sends no key:
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
    ("custom", "https://api.deepseek.com/v1", None, ENV),
    ("custom", "https://api.deepseek.com/v1", "sk-config-0006", ENV),
    ("custom", "https://api.groq.com/openai/v1", None, ENV),
    ("custom", "https://api.mistral.ai/v1", None, ENV),
    ("custom", "http://localhost:11434/v1", None, ENV),
    ("custom", "http://127.0.0.1:8080/v1", None, ENV),
    ("custom", "http://localhost:11434/v1", "sk-config-0006", ENV),
    ("custom", "https://ollama.com/v1", None, ENV),
    ("custom", "https://myco.openai.azure.com/openai/v1", None, ENV),
    ("custom", "https://api.openai.com/v1", None, ENV),
    ("custom", "https://openrouter.ai/api/v1", None, ENV),
    ("custom", "https://api.deepseek.com.attacker.test/v1", None, ENV),
    ("custom", "https://evil.example/ollama.com/v1", None, ENV),
    ("custom", "https://llm.internal/v1", None, ENV),
    ("custom", "https://api.deepseek.com/v1", None, "OPENAI_API_KEY=sk-openai-0001\n"),
    # Official providers: model.api_key (here an OpenRouter-looking key) is never what they are sent.
    ("openrouter", None, "sk-config-0006", ""),
    ("openrouter", None, "sk-config-0006", ENV),
    ("openrouter", "https://openrouter.ai/api/v1", "sk-config-0006", ""),
    ("anthropic", None, "sk-config-0006", "ANTHROPIC_API_KEY=sk-ant-0007\n"),
    ("anthropic", None, "sk-config-0006", ENV),
    ("anthropic", "https://api.anthropic.com", "sk-config-0006", ""),
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
for provider, base_url, cfg_key, env in CASES:
    home = Path(tempfile.mkdtemp(prefix="golden-keys-"))
    config = (f"model:\n  default: m\n  provider: {provider}\n" + (f"  base_url: {base_url}\n" if base_url else "")
              + (f"  api_key: {cfg_key}\n" if cfg_key else ""))
    (home / "config.yaml").write_text(config)
    (home / ".env").write_text(env)
    out = subprocess.run([sys.executable, "-c", probe, str(home), UPSTREAM], capture_output=True, text=True,
                         env={**os.environ, "HOME": str(home)})
    if out.returncode != 0:
        # Upstream refuses the home (AuthError: no credentials for the provider): no key is sent anywhere.
        assert "AuthError" in out.stderr, out.stderr
        cases.append({"config": config, "env": env, "base_url": base_url or provider, "api_key": "", "error": True})
        continue
    r = json.loads(out.stdout.strip().splitlines()[-1])
    key = r["api_key"]
    cases.append({"config": config, "env": env, "base_url": r["base_url"], "api_key": "" if key == "no-key-required" else key})
commit = subprocess.run(["git", "-C", UPSTREAM, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
commit = commit or "9a75ff049b020ab5b24f76892f50f59064811028"
OUT.mkdir(parents=True, exist_ok=True)
(OUT / "cases.json").write_text(json.dumps({"upstream_commit": commit, "cases": cases}, indent=1) + "\n")
for c in cases:
    print(c["base_url"], "->", c["api_key"] or "(none)")
