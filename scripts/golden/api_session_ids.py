#!/usr/bin/env python3
"""Golden session ids upstream's API server derives for a conversation sent without X-Hermes-Session-Id.

Upstream keys such a conversation on its system prompt and first user message (gateway/platforms/api_server.py:
_derive_chat_session_id over _normalize_multimodal_content's result). A first message with images stays a list of
parts, so the key hashes Python's repr of that list: quoting, escapes and non-ASCII as Python writes them.

Usage: /usr/bin/python3 scripts/golden/api_session_ids.py
Needs Debian's python3-yaml, python3-dotenv, python3-httpx and python3-requests (the module's imports).
Env: HERMES_UPSTREAM (default /work/upstream) is the upstream checkout to import.
Writes test/fixtures/upstream/api-session-ids/cases.json: cases [{system, content, id}, ...] (first messages),
systemParts (system messages sent as parts) and the upstream commit.
"""
import json
import os
import sys
import tempfile
from pathlib import Path

from upstream_cli import UPSTREAM, upstream_commit  # noqa: E402

UPSTREAM = Path(UPSTREAM)
OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "api-session-ids"

IMG = {"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}}
# the 1x1 PNG test/api-server-process.test.ts sends through the openai SDK
PNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
CASES = [
    ("", "hello"),
    ("You are terse.", "hello"),
    (None, [{"type": "text", "text": "two"}, {"type": "text", "text": "parts"}]),
    ("", [{"type": "text", "text": "what is this?"}, IMG]),
    (None, [{"type": "text", "text": "what is this?"}, {"type": "image_url", "image_url": {"url": PNG, "detail": "low"}}]),
    ("You are terse.", [IMG, {"type": "text", "text": "describe"}]),
    ("", [{"type": "text", "text": "it's mine"}, IMG]),
    ("", [{"type": "text", "text": "say \"hi\""}, IMG]),
    ("", [{"type": "text", "text": "both ' and \" here"}, IMG]),
    ("", [{"type": "text", "text": "back\\slash, line\nbreak, tab\tand cr\r"}, IMG]),
    ("", [{"type": "text", "text": "café 東京 🚀 ünïcödé"}, IMG]),
    ("", [{"type": "text", "text": "ctrl \x01 \x7f del, nbsp\u00a0, zwsp\u200b, ls\u2028, bom\ufeff"}, IMG]),
    ("", [{"type": "input_text", "text": "responses-style"}, {"type": "input_image", "image_url": "https://example.com/a.jpg", "detail": " high "}]),
    ("", [{"type": "image_url", "image_url": {"url": "  data:image/png;base64,iVBORw0KGgo=  ", "detail": "auto"}}]),
    ("", ["a bare string part", IMG, 42, None]),
    ("", [{"type": "TEXT", "text": 7}, IMG]),
    ("sys", [{"type": "text", "text": ""}, {"type": "text", "text": None}, IMG]),
    ("", "x" * 70000),
    # Python's strip(): U+001C-U+001F and U+0085 are whitespace to it, U+FEFF is not
    ("", [{"type": "\x1ctext\x85", "text": "odd spaces"}, {"type": "image_url", "image_url": {"url": "\x1fhttps://example.com/a.png\x1e", "detail": "\x85low\u3000"}}]),
    ("", [{"type": "text", "text": "bom"}, {"type": "image_url", "image_url": {"url": "https://example.com/b.png\ufeff"}}]),
]

# A system message sent as parts: upstream flattens it (_normalize_chat_content) before keying on it.
SYSTEM_PARTS = [
    [{"type": "text", "text": "You are"}, {"type": "text", "text": "terse."}],
    ["plain", {"type": "input_text", "text": "and typed"}, {"type": "image_url", "image_url": {"url": "https://x/y.png"}}],
    [{"type": "text", "text": 7}, {"type": "text", "text": ""}, {"type": "text", "text": 0}, [["deep", ["deeper"]]]],
    [{"type": "Output_Text ", "text": "spaced type"}, {"type": "other", "text": "skipped"}],
    {"not": "a list"},
    12,
]


def main() -> None:
    with tempfile.TemporaryDirectory() as home:
        os.environ["HERMES_HOME"] = home
        sys.path.insert(0, str(UPSTREAM))
        from gateway.platforms.api_server import _derive_chat_session_id, _normalize_multimodal_content  # noqa: E402

        from gateway.platforms.api_server import _normalize_chat_content  # noqa: E402

        cases = [
            {"system": system, "content": content, "id": _derive_chat_session_id(system, _normalize_multimodal_content(content))}
            for system, content in CASES
        ]
        system_parts = [
            {"system": raw, "content": "hello", "id": _derive_chat_session_id(_normalize_chat_content(raw), "hello")}
            for raw in SYSTEM_PARTS
        ]
    commit = upstream_commit()
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "cases.json").write_text(
        json.dumps(
            {"upstreamCommit": commit, "cases": cases, "systemParts": system_parts},
            indent=1,
        ) + "\n"
    )


if __name__ == "__main__":
    main()
