#!/usr/bin/env python3
"""What upstream puts in the system prompt when MEMORY.md or USER.md is not valid UTF-8 (a hand edit saved as
Latin-1) or is a folder: a real AIAgent is built over each home, as memory_core.py builds one (no network: only its
OpenAI client constructor is replaced), and the prompt is searched for each file's block and entries. The folder
cases also replace the file AFTER the agent was built and rebuild the prompt the way upstream does after a
compression (invalidate_system_prompt re-reads both files).

Usage: /usr/bin/python3 scripts/golden/memory_bad_utf8.py   (HERMES_UPSTREAM, default /work/upstream)
Upstream fork at schema v21, commit 9a75ff049b020ab5b24f76892f50f59064811028.
Writes test/fixtures/upstream/memory-bad-utf8/upstream.json; read by src-main/memory/memory-bad-utf8.test.ts.
"""
import json
import logging
import os
import shutil
import sys
import tempfile
from pathlib import Path

UPSTREAM = os.environ.get("HERMES_UPSTREAM", "/work/upstream")
OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "memory-bad-utf8"
sys.path.insert(0, UPSTREAM)
HOME = tempfile.mkdtemp(prefix="golden-memutf8-")
os.environ["HERMES_HOME"] = HOME
os.environ["HOME"] = HOME
logging.disable(logging.CRITICAL)

GOOD = {"MEMORY.md": "Project uses pnpm", "USER.md": "Name: Ada"}
# "café" saved as Latin-1: the 0xE9 byte is not UTF-8.
BAD = "Likes caf\u00e9".encode("latin-1")
CASES = [
    ("both_valid", {}),
    ("memory_not_utf8", {"MEMORY.md": BAD}),
    ("user_not_utf8", {"USER.md": BAD}),
]
FOLDER_CASES = [("memory_is_folder", "MEMORY.md"), ("user_is_folder", "USER.md")]


def seen(prompt):
    return {
        "memory_block": "MEMORY (your personal notes)" in prompt,
        "memory_entry": GOOD["MEMORY.md"] in prompt,
        "user_block": "USER PROFILE (who the user is)" in prompt,
        "user_entry": GOOD["USER.md"] in prompt,
        "replacement_char": "\ufffd" in prompt,
    }


def agent():
    from run_agent import AIAgent
    AIAgent._create_openai_client = lambda self, kwargs, **kw: object()
    return AIAgent(base_url="http://127.0.0.1:9/v1", api_key="golden-key-xxxxxxxx", model="m", quiet_mode=True,
                   skip_context_files=True, platform="cli")


def folder(name):
    """`name` is a folder holding one file from the start; then the agent that read both files sees it become one."""
    build({})
    path = Path(HOME, "memories", name)
    path.unlink()
    path.mkdir()
    (path / "notes.txt").write_text("inside the folder", encoding="utf-8")
    start = seen(agent()._build_system_prompt())
    shutil.rmtree(path)
    path.write_text(GOOD[name], encoding="utf-8")
    a = agent()
    a._build_system_prompt()
    path.unlink()
    path.mkdir()
    from agent.system_prompt import invalidate_system_prompt
    invalidate_system_prompt(a)
    return {"folder": name, "at_start": start, "after_refresh": seen(a._build_system_prompt())}


def build(bad):
    shutil.rmtree(HOME, ignore_errors=True)
    os.makedirs(os.path.join(HOME, "memories"))
    Path(HOME, "config.yaml").write_text("", encoding="utf-8")
    files = {}
    for name, text in GOOD.items():
        data = bad.get(name, text.encode("utf-8"))
        Path(HOME, "memories", name).write_bytes(data)
        files[name] = data.hex()
    built = agent()
    return {"files_hex": files, "store": built._memory_store is not None, **seen(built._build_system_prompt())}


result = {"cases": [{"name": name, **build(bad)} for name, bad in CASES],
          "folder_cases": [{"name": name, **folder(file)} for name, file in FOLDER_CASES]}
shutil.rmtree(HOME, ignore_errors=True)
OUT.mkdir(parents=True, exist_ok=True)
(OUT / "upstream.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
print(json.dumps(result, indent=1))
