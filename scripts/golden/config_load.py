#!/usr/bin/env python3
"""How upstream's load_config reads hand-edited config.yaml files: its own loader (hermes_cli.config.load_config,
with utils.fast_safe_load, the profile's .env loaded by load_hermes_dotenv first, as every upstream entry point does)
on files with repeated keys, ${VAR} references, legacy model keys, merge keys and YAML 1.1 scalars.

Usage: /usr/bin/python3 scripts/golden/config_load.py   (HERMES_UPSTREAM, default /work/upstream)
Writes test/fixtures/upstream/config-load/cases.json; read by src-main/config/config-load-golden.test.ts.
For each case: `file` (PyYAML's reading of the file alone, fast_safe_load) and `loaded` (load_config). `defaults` is
load_config on an empty file: Caduceus leaves defaults to its typed readers, so the test merges them in as
upstream's _deep_merge does. A date is recorded as its isoformat() text, the JSON form Caduceus gives it.
"""
import datetime
import json
import os
import sys
import tempfile
from pathlib import Path

UPSTREAM = os.environ.get("HERMES_UPSTREAM", "/work/upstream")
OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "config-load"
sys.path.insert(0, UPSTREAM)

CASES = [
    ("duplicate-keys", "model:\n  default: a/b\n  provider: openrouter\nmodel:\n  default: c/d\n"
     "display:\n  skin: one\n  skin: two\n", None),
    ("env-refs", "model:\n  default: ${CAD_GOLDEN_MODEL}\n  base_url: http://${CAD_GOLDEN_HOST}/v1\n"
     "auxiliary:\n  api_key: ${CAD_GOLDEN_UNSET}\n  list: [\"${CAD_GOLDEN_MODEL}\", 3]\n  '${CAD_GOLDEN_HOST}': kept\n",
     "CAD_GOLDEN_MODEL=openai/gpt-5\nCAD_GOLDEN_HOST=127.0.0.1:9\n"),
    ("legacy-name", "model:\n  name: my-model\n  provider: custom\n  api_base: http://localhost:8080/v1\n", None),
    ("legacy-root", "model: gpt-4o\nprovider: openai\nbase_url: https://api.openai.com/v1\ncontext_length: 8000\n"
     "max_turns: 12\n", None),
    ("legacy-precedence", "model:\n  default: kept\n  model: dropped\n  name: dropped-too\n  base_url: http://a/v1\n"
     "  api_base: http://b/v1\nprovider: ''\napi_base: http://c/v1\n", None),
    ("merge-keys", "defaults: &defs\n  timeout: 30\n  backend: docker\nterminal:\n  <<: *defs\n  backend: local\n"
     "base: &m {default: x/y, provider: openrouter}\nmodel:\n  <<: *m\n  provider: anthropic\n", None),
    ("yaml11-scalars", "agent:\n  max_turns: 060\n  octal_perm: 0755\n  big: 1_000\n  sexa: 1:30\n  ratio: 1e3\n"
     "  float_one: 1.0\n  exp: 1.0e+3\n  neg: -0x1F\n  bin: 0b101\n  when: 2024-01-02\n"
     "  stamp: 2024-01-02 03:04:05.5 +01:00\n  utc: 2024-01-02T03:04:05Z\n  short_date: 2024-1-2\n"
     "  eight: 08\n  inf: .inf\n  sexa_float: 1:30.5\n  yes_word: yes\n  y_word: y\n", None),
    # Hand-edited in every way at once: comments, anchors, block scalars, an explicit `? key`, long lines.
    ("hand-edited", '# Hand-edited Hermes config\nmodel:\n  default: anthropic/claude-sonnet-4   # my model\n  provider: openrouter\ndefaults: &defs\n  timeout: 30\n  retries: 3\nterminal:\n  <<: *defs\n  backend: local\n  cwd: "."\ndisplay:\n  compact: no\n  streaming: on\n  show_cost: Yes\n  busy_text_mode: queue\n  skin: "yes"\n  personality: \'off\'\nagent:\n  max_turns: 060\n  octal_perm: 0755\n  big: 1_000\n  sexa: 1:30\n  ratio: 1e3\n  float_one: 1.0\n  when: 2024-01-02\n  nothing: ~\n  empty:\n  tilde_str: "~"\ncompression:\n  threshold: .5\n  summary_prompt: |\n    Summarize the conversation.\n    Keep: decisions, todos.\n  folded: >\n    folded line one\n    folded line two\nunicode: "héllo — 日本語 🚀"\nlong_plain: this is a very long plain scalar value that goes past the eighty column default line width of the yaml library for sure\nquoted_num: "42"\nquoted_bool: "true"\nkey with spaces: value\n? complex\n: key\n', None),
]


def jsonable(x):
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if isinstance(x, (datetime.date, datetime.datetime)):
        return x.isoformat()
    if isinstance(x, float) and x != x:
        return "NaN"
    if isinstance(x, float) and x in (float("inf"), float("-inf")):
        return "Infinity" if x > 0 else "-Infinity"
    return x


def load_in(home: Path):
    from hermes_cli import config as cfg
    from hermes_cli.env_loader import load_hermes_dotenv
    saved = dict(os.environ)
    os.environ["HERMES_HOME"] = str(home)
    try:
        cfg._LOAD_CONFIG_CACHE.clear()
        cfg._LAST_EXPANDED_CONFIG_BY_PATH.clear()
        load_hermes_dotenv(hermes_home=home)
        return cfg.load_config()
    finally:
        os.environ.clear()
        os.environ.update(saved)


def main():
    from utils import fast_safe_load
    out = {"cases": []}
    with tempfile.TemporaryDirectory() as tmp:
        empty = Path(tmp) / "empty"
        empty.mkdir()
        (empty / "config.yaml").write_text("")
        out["defaults"] = jsonable(load_in(empty))
        for name, text, env in CASES:
            home = Path(tmp) / name
            home.mkdir()
            (home / "config.yaml").write_text(text)
            if env is not None:
                (home / ".env").write_text(env)
            out["cases"].append({
                "name": name, "yaml": text, "env": env,
                "file": jsonable(fast_safe_load(text)),
                "loaded": jsonable(load_in(home)),
            })
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "cases.json").write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    for c in out["cases"]:
        print(c["name"], json.dumps(c["file"])[:200])


if __name__ == "__main__":
    main()
