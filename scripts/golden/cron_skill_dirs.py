"""Which skill upstream loads for a name when config.yaml lists `skills.external_dirs` (skills kept outside the
profile, e.g. a folder shared with other agents): its own lookup, tools.skills_tool.skill_view, the one the cron
scheduler calls for each skill a job names (upstream fork at schema v21, commit
9a75ff049b020ab5b24f76892f50f59064811028).

  /usr/bin/python3 scripts/golden/cron_skill_dirs.py        # HERMES_UPSTREAM defaults to /work/upstream

The home (test/fixtures/upstream/cron-skill-dirs/home) has skills in its own skills/ folder and in three external
folders, named the ways upstream reads an entry: relative (to the profile's folder), `${HERMES_HOME}/...`, and `$VAR`
with VAR set in the profile's .env (upstream's entry points load .env into the environment first); one entry names a
folder that does not exist. A skill name found in two folders is refused as ambiguous; `skills.disabled`, written as
one name rather than a list, turns one off. Upstream's .env loader runs first, as every upstream entry point runs it.

Writes test/fixtures/upstream/cron-skill-dirs/{home/..., cases.json}: per name, whether skill_view loaded it and the
file (relative to the home), or its error.
"""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from golden_setup import temp_dir, write_files
from upstream_cli import UPSTREAM, upstream_commit

DEST = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "upstream" / "cron-skill-dirs"
SKILL = "---\nname: {name}\ndescription: {desc}\n---\n{body}\n"
FILES = {
    "skills/local-one/SKILL.md": SKILL.format(name="local-one", desc="in the profile", body="Local skill."),
    "skills/clash/SKILL.md": SKILL.format(name="clash", desc="local copy", body="Local clash."),
    "shared-skills/team-brief/SKILL.md": SKILL.format(name="team-brief", desc="team", body="Team brief in 3 bullets."),
    "shared-skills/clash/SKILL.md": SKILL.format(name="clash", desc="shared copy", body="Shared clash."),
    "shared-skills/ops/rollout/SKILL.md": SKILL.format(name="rollout", desc="nested", body="Roll out slowly."),
    "vendor/agents/deploy-dir/SKILL.md": SKILL.format(name="deploy", desc="front-matter name", body="Check deploys."),
    "team/more/notes/SKILL.md": SKILL.format(name="notes", desc="via $VAR", body="Keep notes short."),
    "shared-skills/switched/SKILL.md": SKILL.format(name="switched", desc="turned off", body="Switched off."),
    "config.yaml": "skills:\n  disabled: switched\n  external_dirs:\n    - shared-skills\n    - ${HERMES_HOME}/vendor/agents\n"
    "    - $TEAM_DIR/more\n    - missing-dir\n",
    ".env": "TEAM_DIR=team\n",
}
NAMES = ["local-one", "team-brief", "ops/rollout", "rollout", "deploy", "deploy-dir", "notes", "clash", "switched", "nope"]

PROBE = """
import json, os, sys
sys.path.insert(0, sys.argv[1])
home = os.environ["HERMES_HOME"]
from hermes_cli.env_loader import load_hermes_dotenv
load_hermes_dotenv(hermes_home=home)
from tools import skills_tool
out = []
for name in json.loads(sys.argv[2]):
    r = json.loads(skills_tool.skill_view(name))
    case = {"name": name, "loaded": bool(r.get("success"))}
    if r.get("success"):
        case["file"] = os.path.relpath(os.path.join(r["skill_dir"], "SKILL.md"), home)
    else:
        case["error"] = r.get("error")
    out.append(case)
print(json.dumps(out))
"""


def main():
    home = temp_dir("golden-skill-dirs-") / "home"
    write_files(home, FILES)
    env = {k: v for k, v in os.environ.items() if k != "TEAM_DIR"}
    run = subprocess.run(
        ["/usr/bin/python3", "-c", PROBE, UPSTREAM, json.dumps(NAMES)],
        env={**env, "HERMES_HOME": str(home)}, capture_output=True, text=True, check=True,
    )
    cases = json.loads(run.stdout.strip().splitlines()[-1])
    if DEST.exists():
        shutil.rmtree(DEST)
    write_files(DEST / "home", FILES)
    out = {"upstream_commit": upstream_commit(), "cases": cases}
    (DEST / "cases.json").write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    sys.exit(main())
