#!/usr/bin/env python3
"""What upstream's own memory code reads from a home Caduceus wrote (run live by tests; upstream fork at schema v21,
commit 9a75ff049b020ab5b24f76892f50f59064811028).

Usage: /usr/bin/python3 scripts/golden/memory_eyes.py holographic ROOT PROFILE    (HERMES_UPSTREAM, default /work/upstream)
         upstream started as `hermes -p PROFILE` with HERMES_HOME=ROOT (its own profile override moves HERMES_HOME to
         the profile's folder), then its holographic plugin built from the profile's config.yaml as its loader builds it:
         {"hermes_home": ..., "db_path": <the store it opened>, "facts": [contents]}
       /usr/bin/python3 scripts/golden/memory_eyes.py builtin HOME
         upstream's on-disk MEMORY.md / USER.md store of HOME (tools.memory_tool.load_on_disk_store):
         {"memory": [...], "user": [...]}, or {"error": <exception class>} when it cannot read them
"""
import json
import logging
import os
import sys

UPSTREAM = os.environ.get("HERMES_UPSTREAM", "/work/upstream")
sys.path.insert(0, UPSTREAM)
logging.disable(logging.CRITICAL)


def holographic(root, profile):
    os.environ["HERMES_HOME"] = root
    sys.argv = ["hermes", "-p", profile, "chat"]
    from hermes_cli.main import _apply_profile_override

    _apply_profile_override()
    from plugins.memory.holographic import HolographicMemoryProvider, _load_plugin_config

    provider = HolographicMemoryProvider(config=_load_plugin_config())
    provider.initialize("memory-eyes")
    listed = json.loads(provider.handle_tool_call("fact_store", {"action": "list", "limit": 100}))
    return {
        "hermes_home": os.environ["HERMES_HOME"],
        "db_path": str(provider._store.db_path),
        "facts": sorted(f["content"] for f in listed.get("facts", [])),
    }


def builtin(home):
    os.environ["HERMES_HOME"] = home
    from tools.memory_tool import load_on_disk_store

    try:
        store = load_on_disk_store()
    except Exception as e:  # noqa: BLE001 - the class is the answer
        return {"error": type(e).__name__}
    return {"memory": store.memory_entries, "user": store.user_entries}


if __name__ == "__main__":
    mode = sys.argv[1]
    out = holographic(sys.argv[2], sys.argv[3]) if mode == "holographic" else builtin(sys.argv[2])
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
    os._exit(0)
