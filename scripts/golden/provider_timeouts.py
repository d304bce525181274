#!/usr/bin/env python3
"""Golden: the provider request timeouts upstream reads, for config.yaml values and environment variables.

Ran against upstream commit 9a75ff049b020ab5b24f76892f50f59064811028 (recorded in the output).

For each case a fresh HERMES_HOME gets the case's config.yaml, the environment gets the case's HERMES_API_TIMEOUT /
HERMES_STREAM_READ_TIMEOUT, and upstream's own readers are asked: hermes_cli/timeouts.py get_provider_request_timeout
(providers.<id>.models.<model>.timeout_seconds, then providers.<id>.request_timeout_seconds), utils.env_float for the
two variables (defaults 1800 and 120) and agent/model_metadata.is_local_endpoint for the base URL. `read` is the
streamed call's read timeout upstream's chat-completions call then uses (agent/chat_completion_helpers.py,
_call_chat_completions): the configured timeout when there is one, else the stream read variable — raised to the
HERMES_API_TIMEOUT value for a local endpoint while that variable is at its default. Infinity and NaN are written
as the strings "inf" / "nan"; null: none configured.

Usage: /usr/bin/python3 scripts/golden/provider_timeouts.py
Writes test/fixtures/upstream/provider-timeouts/cases.json; replayed by src-main/host/services/agent-assembly.test.ts.
"""
import json
import math
import os
import sys
import tempfile
from pathlib import Path

from golden_setup import write_golden
from upstream_cli import UPSTREAM

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "provider-timeouts"
CLOUD = "https://api.example.com/v1"
LOCAL = "http://127.0.0.1:8080/v1"

PROV = "providers:\n  custom:\n    request_timeout_seconds: {}\n"
MODEL = "providers:\n  custom:\n    request_timeout_seconds: 30\n    models:\n      m:\n        timeout_seconds: {}\n"
# (name, config.yaml text, env, provider, model, base_url)
CASES = [
    ("nothing", "", {}, "custom", "m", CLOUD),
    ("nothing-local", "", {}, "custom", "m", LOCAL),
    ("provider-seconds", PROV.format("45"), {}, "custom", "m", CLOUD),
    ("provider-fraction", PROV.format("0.25"), {}, "custom", "m", LOCAL),
    ("provider-string", PROV.format('"12.5"'), {}, "custom", "m", CLOUD),
    ("provider-padded-string", PROV.format('" 7 "'), {}, "custom", "m", CLOUD),
    ("provider-zero", PROV.format("0"), {}, "custom", "m", CLOUD),
    ("provider-negative", PROV.format("-5"), {"HERMES_API_TIMEOUT": "9"}, "custom", "m", LOCAL),
    ("provider-word", PROV.format("soon"), {}, "custom", "m", CLOUD),
    ("provider-true", PROV.format("true"), {}, "custom", "m", CLOUD),
    ("provider-inf", PROV.format(".inf"), {}, "custom", "m", CLOUD),
    ("provider-nan", PROV.format(".nan"), {}, "custom", "m", CLOUD),
    ("provider-list", PROV.format("[1, 2]"), {}, "custom", "m", CLOUD),
    ("provider-null", PROV.format("~"), {"HERMES_API_TIMEOUT": "3"}, "custom", "m", LOCAL),
    ("provider-underscore", PROV.format('"1_0"'), {}, "custom", "m", CLOUD),
    ("other-provider", PROV.format("45"), {}, "openrouter", "m", CLOUD),
    ("model-wins", MODEL.format("5"), {}, "custom", "m", CLOUD),
    ("model-bad-falls-to-provider", MODEL.format("nope"), {}, "custom", "m", CLOUD),
    ("model-other-name", MODEL.format("5"), {}, "custom", "other", CLOUD),
    ("providers-not-mapping", "providers: [custom]\n", {}, "custom", "m", CLOUD),
    ("provider-not-mapping", "providers:\n  custom: 30\n", {}, "custom", "m", CLOUD),
    ("models-not-mapping", "providers:\n  custom:\n    request_timeout_seconds: 30\n    models: [m]\n", {}, "custom", "m",
     CLOUD),
    ("env-api-cloud", "", {"HERMES_API_TIMEOUT": "0.5"}, "custom", "m", CLOUD),
    ("env-api-local", "", {"HERMES_API_TIMEOUT": "0.5"}, "custom", "m", LOCAL),
    ("env-api-localhost-name", "", {"HERMES_API_TIMEOUT": "0.5"}, "custom", "m", "http://localhost:11434/v1"),
    ("env-api-private", "", {"HERMES_API_TIMEOUT": "0.5"}, "custom", "m", "http://192.168.1.20:8000/v1"),
    ("env-api-bare-host", "", {"HERMES_API_TIMEOUT": "0.5"}, "custom", "m", "http://ollama:11434/v1"),
    ("env-api-word", "", {"HERMES_API_TIMEOUT": "slow"}, "custom", "m", LOCAL),
    ("env-api-padded", "", {"HERMES_API_TIMEOUT": "  2  "}, "custom", "m", LOCAL),
    ("env-api-empty", "", {"HERMES_API_TIMEOUT": ""}, "custom", "m", LOCAL),
    ("env-api-zero", "", {"HERMES_API_TIMEOUT": "0"}, "custom", "m", LOCAL),
    ("env-api-negative", "", {"HERMES_API_TIMEOUT": "-1"}, "custom", "m", LOCAL),
    ("env-api-inf", "", {"HERMES_API_TIMEOUT": "inf"}, "custom", "m", LOCAL),
    ("env-stream", "", {"HERMES_STREAM_READ_TIMEOUT": "0.5"}, "custom", "m", CLOUD),
    ("env-stream-local", "", {"HERMES_STREAM_READ_TIMEOUT": "0.5", "HERMES_API_TIMEOUT": "9"}, "custom", "m", LOCAL),
    ("env-stream-120-local", "", {"HERMES_STREAM_READ_TIMEOUT": "120", "HERMES_API_TIMEOUT": "9"}, "custom", "m",
     LOCAL),
    ("config-over-env", PROV.format("4"), {"HERMES_API_TIMEOUT": "9", "HERMES_STREAM_READ_TIMEOUT": "8"}, "custom",
     "m", LOCAL),
]


def num(x):
    if x is None:
        return None
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def main() -> None:
    sys.path.insert(0, str(UPSTREAM))
    out = []
    for name, config, env, provider, model, base_url in CASES:
        with tempfile.TemporaryDirectory() as home:
            Path(home, "config.yaml").write_text(config)
            os.environ["HERMES_HOME"] = home
            for k in ("HERMES_API_TIMEOUT", "HERMES_STREAM_READ_TIMEOUT"):
                os.environ.pop(k, None)
            os.environ.update(env)
            for mod in [m for m in sys.modules if m.startswith("hermes_cli") or m in ("utils", "hermes_constants")]:
                del sys.modules[mod]
            from hermes_cli.timeouts import get_provider_request_timeout
            from agent.model_metadata import is_local_endpoint
            from utils import env_float

            configured = get_provider_request_timeout(provider, model)
            api = env_float("HERMES_API_TIMEOUT", 1800.0)
            stream = env_float("HERMES_STREAM_READ_TIMEOUT", 120.0)
            local = is_local_endpoint(base_url)
            if configured is not None:
                read = configured
            elif stream == 120.0 and local:
                read = api
            else:
                read = stream
            out.append({"name": name, "config": config, "env": env, "provider": provider, "model": model,
                        "baseUrl": base_url, "configured": num(configured), "apiTimeout": num(api),
                        "streamRead": num(stream), "local": local, "read": num(read)})
    write_golden(OUT / "cases.json", "scripts/golden/provider_timeouts.py", {"cases": out})
    print(f"{len(out)} cases → {OUT / 'cases.json'}")


if __name__ == "__main__":
    main()
