#!/usr/bin/env python3
"""What upstream's mem0 memory provider sends and answers, in its two HTTP modes, on homes its own setup wrote.

For each mode (platform = the Mem0 cloud API through the mem0ai SDK's MemoryClient; selfhosted = upstream's own
httpx client for a self-hosted Mem0 server), upstream's real `post_setup` (`hermes memory setup --mode ...`)
writes a fresh home (config.yaml, mem0.json, .env with a dummy key), then upstream's provider is loaded from that
home and driven through a fixed list of calls (tools, prefetch, sync_turn) against a local fake Mem0 server that
answers both protocols. Every HTTP request is recorded as method, path, query, which auth headers were sent (names
only, plus whether each carried the dummy key in the expected form: never a value), and the JSON body; every tool
answer is recorded verbatim.

The cloud mode needs the mem0ai SDK's client (the plugin pins mem0ai>=2.0.10,<3), which Debian does not package:
pass a git directory of the mem0ai/mem0 repository (MEM0_SDK_GIT, bare or not) and its client modules are loaded
from it, with its telemetry, pydantic option types and project helpers stubbed (none of them reach the wire when
upstream calls the client with plain keyword arguments). The SDK's default host (api.mem0.ai) is pointed at the
fake; the fixture records the host the SDK would have used.

Usage: MEM0_SDK_GIT=/path/to/mem0/.git /usr/bin/python3 scripts/golden/mem0_requests.py
       (Debian's python3-httpx, python3-requests, python3-yaml; HERMES_UPSTREAM, default /work/upstream)
Writes test/fixtures/upstream/mem0/requests.json, read by src-main/memory/providers/mem0/golden.test.ts.
"""
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "test" / "fixtures" / "upstream" / "mem0"
UPSTREAM = os.environ.get("HERMES_UPSTREAM", "/work/upstream")
SDK_GIT = os.environ.get("MEM0_SDK_GIT", "")
# A dummy key: the fixture never holds a real one, and records only whether it was sent, and how.
KEY = "m0-golden-dummy-key-0123456789"
CLOUD_DEFAULT = "https://api.mem0.ai"


# ---------------------------------------------------------------- the fake Mem0 server (both protocols)
class Fake:
    """The same fake as src-main/memory/providers/mem0/test-fixtures/fake-mem0.ts: keep the two in step."""

    def __init__(self, mode):
        self.mode = mode
        self.memories = []
        self.adds = 0
        self.log = []

    def handle(self, method, raw_path, headers, body):
        url = urlsplit(raw_path)
        path = url.path
        auth = headers.get("authorization")
        xkey = headers.get("x-api-key")
        uid = headers.get("mem0-user-id")
        sent = sorted(h for h, v in (("authorization", auth), ("x-api-key", xkey), ("mem0-user-id", uid)) if v)
        ok = auth == f"Token {KEY}" if self.mode == "platform" else xkey == KEY
        entry = {"method": method, "path": path, "query": url.query, "headers": sent, "auth_ok": ok, "body": body}
        if uid is not None:
            entry["mem0_user_id_is_md5_of_key"] = uid == hashlib.md5(KEY.encode()).hexdigest()
        self.log.append(entry)
        if not ok:
            return 401, {"detail": "Invalid API key"}
        cloud = self.mode == "platform"
        if cloud and method == "GET" and path == "/v1/ping/":
            return 200, {"status": "ok", "org_id": "org-1", "project_id": "proj-1", "user_email": None}
        if method == "POST" and path == ("/v3/memories/add/" if cloud else "/memories"):
            self.adds += 1
            added = []
            for m in body.get("messages") or []:
                if m.get("role") == "user" and (m.get("content") or "").strip():
                    mem = {"id": f"mem-{len(self.memories) + 1}", "memory": m["content"], "user_id": body.get("user_id")}
                    self.memories.append(mem)
                    added.append({"id": mem["id"], "memory": mem["memory"], "event": "ADD"})
            return 200, {"results": added, "event_id": f"evt-{self.adds}"}
        if method == "POST" and path == ("/v3/memories/search/" if cloud else "/search"):
            user = ((body.get("filters") or {}).get("user_id"))
            words = [w for w in re.split(r"\W+", str(body.get("query", "")).lower()) if len(w) >= 3]
            hits = [
                {"id": m["id"], "memory": m["memory"], "user_id": m["user_id"], "score": 0.5}
                for m in self.memories
                if m["user_id"] == user and any(w in m["memory"].lower() for w in words)
            ]
            return 200, {"results": hits[: int(body.get("top_k") or 10)]}
        m = re.fullmatch(r"/v1/memories/([^/]+)/" if cloud else r"/memories/([^/]+)", path)
        if m and method in ("PUT", "DELETE"):
            found = next((x for x in self.memories if x["id"] == m.group(1)), None)
            if not found:
                return 404, {"detail": "Memory not found"}
            if method == "PUT":
                found["memory"] = body.get("text")
                return 200, {"message": "Memory updated successfully!"}
            self.memories.remove(found)
            return 200, {"message": "Memory deleted successfully!"}
        return 404, {"detail": "Not found"}


def serve(fake):
    class H(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def _h(self):
            n = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(n).decode() if n else ""
            headers = {k.lower(): v for k, v in self.headers.items()}
            status, out = fake.handle(self.command, self.path, headers, json.loads(raw) if raw else None)
            b = json.dumps(out).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(b)))
            self.end_headers()
            self.wfile.write(b)

        do_GET = do_POST = do_PUT = do_DELETE = _h

    srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, f"http://127.0.0.1:{srv.server_address[1]}"


# ---------------------------------------------------------------- the mem0ai SDK client, from its repository
def sdk_file(path):
    return subprocess.run(
        ["git", "--git-dir", SDK_GIT, "show", f"HEAD:{path}"], check=True, capture_output=True, text=True
    ).stdout


def install_sdk():
    if not SDK_GIT:
        sys.exit("MEM0_SDK_GIT must name a git directory of the mem0ai/mem0 repository (the cloud mode needs it)")
    version = re.search(r'^version\s*=\s*"([^"]+)"', sdk_file("pyproject.toml"), re.M).group(1)
    major = int(version.split(".")[0])
    if major != 2:
        sys.exit(f"mem0ai {version}: upstream pins mem0ai>=2.0.10,<3")
    pkg = Path(tempfile.mkdtemp(prefix="golden-mem0-sdk-")) / "mem0"
    (pkg / "client").mkdir(parents=True)
    (pkg / "memory").mkdir()
    for rel in ("client/main.py", "client/utils.py", "exceptions.py"):
        (pkg / rel).write_text(sdk_file(f"mem0/{rel}"))
    (pkg / "client" / "__init__.py").write_text("")
    (pkg / "memory" / "__init__.py").write_text("")
    (pkg / "client" / "types.py").write_text(
        "class _Opt:\n    pass\n"
        "AddMemoryOptions = DeleteAllMemoryOptions = GetAllMemoryOptions = ProjectUpdateOptions = _Opt\n"
        "SearchMemoryOptions = UpdateMemoryOptions = _Opt\n"
    )
    (pkg / "client" / "project.py").write_text(
        "class Project:\n    def __init__(self, **kw):\n        pass\nAsyncProject = Project\n"
    )
    (pkg / "memory" / "setup.py").write_text(
        "def setup_config():\n    pass\ndef get_user_id():\n    return 'golden'\n"
        "def is_aliased(*a):\n    return True\ndef mark_aliased(*a):\n    pass\ndef read_anon_ids():\n    return {}\n"
    )
    (pkg / "memory" / "telemetry.py").write_text(
        "class _T:\n    posthog = None\nclient_telemetry = _T()\ndef capture_client_event(*a, **k):\n    pass\n"
    )
    # The SDK's own default host, checked in its source rather than assumed.
    assert f'host or "{CLOUD_DEFAULT}"' in (pkg / "client" / "main.py").read_text()
    (pkg / "__init__.py").write_text(
        f"__version__ = {version!r}\n"
        "import os\n"
        "from mem0.client.main import MemoryClient as _Client\n"
        "class MemoryClient(_Client):\n"
        "    def __init__(self, api_key=None, host=None, client=None):\n"
        "        assert host is None  # upstream's PlatformBackend passes none: the SDK's default cloud host\n"
        "        super().__init__(api_key=api_key, host=os.environ['GOLDEN_CLOUD_URL'], client=client)\n"
    )
    sys.path.insert(0, str(pkg.parent))
    return version


# ---------------------------------------------------------------- one mode
def run_mode(mode):
    fake = Fake(mode)
    srv, url = serve(fake)
    home = Path(tempfile.mkdtemp(prefix=f"golden-mem0-{mode}-"))
    for k in list(os.environ):
        if k.startswith("MEM0_"):
            del os.environ[k]
    os.environ["HERMES_HOME"] = str(home)
    os.environ["GOLDEN_CLOUD_URL"] = url
    argv = ["hermes", "memory", "setup", "--mode", mode, "--api-key", KEY]
    if mode == "selfhosted":
        argv += ["--host", url, "--user-id", "alice"]
    sys.argv = argv
    from hermes_cli.config import load_config
    from plugins.memory.mem0 import _setup

    # The wizard's prompts take their defaults (user id, agent id, rerank), as pressing Enter does.
    _setup._prompt = lambda label, default=None, secret=False: default or ""
    _setup._curses_select = lambda title, items, default=0: default
    _setup._check_selfhosted_server = lambda host: None
    config = load_config()
    config.setdefault("memory", {})
    _setup.post_setup(str(home), config)
    env_text = (home / ".env").read_text()
    for line in env_text.splitlines():
        if "=" in line and not line.startswith("#"):
            k, v = line.split("=", 1)
            os.environ[k.strip()] = v
    mem0_json = json.loads((home / "mem0.json").read_text())
    import yaml

    provider_name = (yaml.safe_load((home / "config.yaml").read_text()) or {}).get("memory", {}).get("provider")

    from plugins.memory import load_memory_provider

    p = load_memory_provider("mem0")
    steps = []

    def step(label, fn):
        start = len(fake.log)
        out = fn()
        steps.append({"call": label, "answer": out, "requests": fake.log[start:]})

    step({"hook": "initialize", "kwargs": {"platform": "cli", "agent_context": "primary", "agent_identity": "default"}},
         lambda: p.initialize("s1", platform="cli", hermes_home=str(home), agent_context="primary",
                              agent_identity="default"))
    tool_calls = [
        ("mem0_add", {"content": "User prefers green tea in the morning"}),
        ("mem0_add", {"content": "User lives in Lisbon"}),
        ("mem0_search", {"query": "green tea"}),
        ("mem0_search", {"query": "tea lisbon", "top_k": 1, "rerank": True}),
        ("mem0_search", {"query": "zebra"}),
        ("mem0_search", {"query": ""}),
        ("mem0_update", {"memory_id": "mem-1", "text": "User prefers oolong tea in the morning"}),
        ("mem0_update", {"memory_id": "mem-404", "text": "nothing"}),
        ("mem0_update", {"memory_id": "mem-1"}),
    ]
    for name, args in tool_calls:
        step({"tool": name, "args": args}, lambda n=name, a=args: p.handle_tool_call(n, a))
    step({"hook": "prefetch", "query": "what tea do I drink"}, lambda: p.prefetch("what tea do I drink"))

    def sync():
        p.sync_turn("I started learning Portuguese", "Boa sorte!")
        p._sync_thread.join(10)

    step({"hook": "sync_turn", "user": "I started learning Portuguese", "assistant": "Boa sorte!"}, sync)
    for name, args in [
        ("mem0_delete", {"memory_id": "mem-2"}),
        ("mem0_delete", {"memory_id": "mem-2"}),
        ("mem0_delete", {}),
        ("mem0_forget", {"memory_id": "mem-1"}),
    ]:
        step({"tool": name, "args": args}, lambda n=name, a=args: p.handle_tool_call(n, a))
    schemas = p.get_tool_schemas()
    p.shutdown()
    srv.shutdown()
    return {
        "mode": mode,
        "base": CLOUD_DEFAULT if mode == "platform" else "{FAKE}",
        "config_provider": provider_name,
        # The files the setup wrote, with the fake's address made a placeholder the test fills in.
        "mem0_json": json.loads(json.dumps(mem0_json).replace(url, "{FAKE}")),
        "env": env_text.replace(KEY, "{KEY}"),
        "available": True,
        "tool_schemas": [
            {
                "name": s["name"],
                "properties": {k: v["type"] for k, v in s["parameters"]["properties"].items()},
                "required": s["parameters"].get("required", []),
            }
            for s in schemas
        ],
        "steps": steps,
    }


def main():
    sys.path.insert(0, UPSTREAM)
    os.environ["HERMES_DISABLE_LAZY_INSTALLS"] = "1"
    version = install_sdk()
    modes = [run_mode("platform"), run_mode("selfhosted")]
    OUT.mkdir(parents=True, exist_ok=True)
    doc = {"key": "{KEY}", "mem0ai_sdk": version, "modes": modes}
    text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    assert KEY not in text
    (OUT / "requests.json").write_text(text)
    print(f"wrote {OUT / 'requests.json'}: " + ", ".join(f"{m['mode']} {len(m['steps'])} steps" for m in modes))


if __name__ == "__main__":
    main()
