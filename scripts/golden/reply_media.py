"""Golden: what upstream's gateway takes out of a reply before the chat gets it — `MEDIA:<path>` tags (sent as
attachments) and the `[[audio_as_voice]]` / `[[as_document]]` directives — by its own extract_media.

Upstream commit: 9a75ff049b020ab5b24f76892f50f59064811028 (the v21 fork at $HERMES_UPSTREAM, default /work/upstream).
Usage: /usr/bin/python3 scripts/golden/reply_media.py   (no network)

Replies as a model writes them in a gateway session (the text_to_speech tool hands it `[[audio_as_voice]]` and a
`MEDIA:` line to repeat; an image or a report is sent the same way), each through
gateway.platforms.base.BasePlatformAdapter.extract_media. Written to test/fixtures/upstream/reply-media/cases.json:
per reply, the files the gateway sends (path, as voice) and the text the chat gets.
"""

import json
import os
from pathlib import Path

from golden_setup import upstream_home

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "reply-media" / "cases.json"
upstream_home("caduceus-golden-media-")
os.environ["HOME"] = "/home/user"  # `~` expands the same wherever this runs

from gateway.platforms.base import BasePlatformAdapter  # noqa: E402

REPLIES = {
    "voice": "Here is the summary as audio.\n[[audio_as_voice]]\nMEDIA:/home/user/.hermes/cache/audio/tts_20260101_120000.ogg",
    "image": "Done — the chart:\n\nMEDIA:/home/user/project/out/chart.png\n\nThe spike is on Tuesday.",
    "quoted": "Report attached.\n`MEDIA:/home/user/project/report.pdf`",
    "double-quoted": 'Report attached.\n"MEDIA:/home/user/project/report.pdf"',
    "in-quote": "> MEDIA:/home/user/project/report.pdf",
    "mid-sentence": "The chart is at MEDIA:/tmp/chart.png if you need it.",
    "backticked-path": "MEDIA:`/home/user/My Files/summary.md`",
    "home-relative": "MEDIA: ~/Downloads/data.csv",
    "document": "[[as_document]]\nMEDIA:/home/user/project/infographic.jpg\nSent in full resolution.",
    "two-files": "Both:\nMEDIA:/tmp/a.png\nMEDIA:/tmp/b.webp",
    "in-code-block": "To send a file, write:\n```\nMEDIA:/path/to/file.png\n```\non its own line.",
    "unknown-extension": "MEDIA:/home/user/project/build.weirdext",
    "relative-path": "MEDIA:out/chart.png",
    "no-tag": "Just words, and a path /tmp/x.png in a sentence.",
    "windows": "MEDIA:C:\\Users\\ada\\Pictures\\cat.jpg",
    # tags inside a sentence: sent and taken out as a line of their own is; the same exceptions
    "mid-sentence-end": "Here it is: MEDIA:/tmp/chart.png.",
    "mid-sentence-two": "Before MEDIA:/tmp/a.png and after MEDIA:/tmp/b.pdf, both sent.\nNext line.",
    "mid-sentence-quoted": 'See "MEDIA:/tmp/My Files/plan.pdf" for the plan.',
    "mid-sentence-spaces": "Open MEDIA:/tmp/My Files/plan.pdf now.",
    "mid-sentence-backticked": "See MEDIA:`/tmp/My Files/plan.pdf` for the plan.",
    "mid-sentence-code": "Write `MEDIA:/tmp/chart.png` to send a file.",
    "mid-sentence-relative": "The chart is at MEDIA:out/chart.png for now.",
    "mid-sentence-unknown": "The build is at MEDIA:/tmp/build.weirdext for now.",
    "mid-sentence-in-quote": "> The chart is at MEDIA:/tmp/chart.png here.\nAnd the rest.",
    "mid-sentence-json": 'The tool said {"result": "MEDIA:/tmp/stale.png"} before.',
    "mid-sentence-in-fence": "```\nsend MEDIA:/tmp/chart.png like so\n```\nDone.",
}

cases = []
for name, text in REPLIES.items():
    media, cleaned = BasePlatformAdapter.extract_media(text)
    cases.append({"name": name, "reply": text, "media": [{"path": p, "voice": v} for p, v in media],
                  "text": cleaned})
OUT.parent.mkdir(parents=True, exist_ok=True)
OUT.write_text(json.dumps({"cases": cases}, indent=2, ensure_ascii=False) + "\n")
print(f"wrote {len(cases)} cases to {OUT}")
