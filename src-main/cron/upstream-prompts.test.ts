// The text a cron job's agent turn gets, against upstream's own assembly (test/fixtures/upstream/cron-prompts, written
// by scripts/golden/cron_prompts.py): the same skills found (by folder path, `category:skill`, a folder anywhere
// below, a front-matter name, a flat .md; none for an ambiguous, absolute, climbing or support-folder name, one for
// another operating system or one config.yaml turns off), in the
// same order, each once, with the same ones named as missing; the note on what a cron run is, wherever upstream gives
// its own; the job's prompt last. Upstream's wording is its own, so texts are compared by what they carry.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildJobPrompt } from './job-prompt'
import type { RawJob } from './jobs-file'
import { guardRunText, promptRefusal } from './prompt-guard'
import { readSkill } from './skill-lookup'

const GOLDEN = resolve(import.meta.dirname, '../../test/fixtures/upstream/cron-prompts')
const HOME = join(GOLDEN, 'home')
interface Case {
  name: string
  job: RawJob
  script?: { ok: boolean; output: string }
  prompt?: string
  blocked?: string
  lookups: Array<{ name: string; loaded: boolean; file: string | null }>
}
interface Guard {
  text: string
  tier: 'prompt' | 'skills' | 'data'
  user_prompt?: string
  blocked: boolean
  runs?: string
}
const { cases, guard } = JSON.parse(readFileSync(join(GOLDEN, 'cases.json'), 'utf8')) as {
  cases: Case[]
  guard: Guard[]
}
const SKILL_FILES = [
  'tone/SKILL.md',
  'writing/brief/SKILL.md',
  'plain-text/SKILL.md',
  'renamed-dir/SKILL.md',
  'flat-note.md',
  'team-a/same/SKILL.md',
  'team-b/same/SKILL.md',
  'tone/references/kept/SKILL.md',
  'mac-only/SKILL.md',
  'unix/SKILL.md',
  'switched-off/SKILL.md',
  'off-by-name/SKILL.md',
  'tools/templated/SKILL.md',
  'flat-templated.md'
]
/** A skill's text as a run gets it: a skill folder's ${HERMES_SKILL_DIR} is that folder (upstream's template_vars). */
const body = (rel: string) => {
  const text = readFileSync(join(HOME, 'skills', rel), 'utf8').trim()
  return rel.endsWith('/SKILL.md') ? text.replaceAll('${HERMES_SKILL_DIR}', join(HOME, 'skills', dirname(rel))) : text
}
/** Upstream's own note to a cron run starts so; ours is CRON_RUN_NOTE. */
const UPSTREAM_NOTE = '[IMPORTANT: You are running as a scheduled cron job.'

const ours = (c: Case) => buildJobPrompt(HOME, join(HOME, 'cron'), c.job, c.script ?? null)
/** Our note to a cron run: what a plain job's text has before its prompt. */
const CRON_RUN_NOTE = buildJobPrompt(HOME, join(HOME, 'cron'), { id: 'a1', prompt: 'p' }, null).slice(
  0,
  -'\n\np'.length
)

describe("a cron job's prompt, as upstream assembles it", () => {
  it.each(cases.filter((c) => c.prompt !== undefined && c.job.prompt != null).map((c) => [c.name, c] as const))(
    '%s',
    (_name, c) => {
      const text = ours(c)
      const loaded = c.lookups.filter((l) => l.loaded).map((l) => l.file!)
      // The same skills' full text (front matter included), in upstream's order, none twice.
      let at = -1
      for (const rel of loaded) {
        const i = text.indexOf(body(rel))
        expect(i, `${rel} loaded after the one before it`).toBeGreaterThan(at)
        expect(text.indexOf(body(rel), i + 1)).toBe(-1)
        at = i
      }
      for (const rel of SKILL_FILES.filter((f) => !loaded.includes(f))) expect(text).not.toContain(body(rel))
      // The names upstream could not load are named as skipped; a job whose skills all loaded names none.
      const missing = c.lookups.filter((l) => !l.loaded).map((l) => l.name)
      if (missing.length) expect(text).toContain(`they were skipped: ${missing.join(', ')}.`)
      else expect(text).not.toContain('were not found')
      // The run's note wherever upstream gives its own, before the script's data and the job's prompt.
      expect(c.prompt).toContain(UPSTREAM_NOTE)
      const note = text.indexOf(CRON_RUN_NOTE)
      expect(note).toBeGreaterThanOrEqual(0)
      if (c.script) expect(text.indexOf(c.script.output)).toBeGreaterThan(note)
      expect(text.endsWith(String(c.job.prompt))).toBe(true)
      expect(c.prompt!.endsWith(String(c.job.prompt))).toBe(true)
    }
  )

  it('${HERMES_SKILL_DIR} is the skill folder upstream fills in; a session id, $HOME and inline shell stay as written', () => {
    const c = cases.find((x) => x.name === 'template')!
    expect(c.prompt).toMatch(
      /Run \/\S+\/skills\/tools\/templated\/scripts\/go\.sh for \$\{HERMES_SESSION_ID\}; keep \$\{HOME\} and !`date`/
    )
    expect(ours(c)).toContain(
      `Run ${join(HOME, 'skills', 'tools', 'templated')}/scripts/go.sh for \${HERMES_SESSION_ID}; keep \${HOME} and !\`date\``
    )
    expect(ours(c)).toContain('Flat: ${HERMES_SKILL_DIR} stays.')
  })

  // upstream's skill_view asks `name in skills.disabled`: one string turns off every name it contains, a mapping its
  // keys (run against upstream's _is_skill_disabled: 'off' and 'switched-off' in 'switched-off'; 'a' in {a: 1})
  it("skills.disabled as one string or a mapping turns skills off as upstream's `in` does", () => {
    const h = mkdtempSync(join(tmpdir(), 'cad-cron-disabled-'))
    try {
      for (const n of ['off', 'switched-off', 'x', 'a']) {
        mkdirSync(join(h, 'skills', n), { recursive: true })
        writeFileSync(join(h, 'skills', n, 'SKILL.md'), `---\nname: ${n}\ndescription: d\n---\nDo ${n}.\n`)
      }
      const loads = (config: string) => {
        writeFileSync(join(h, 'config.yaml'), config)
        return ['off', 'switched-off', 'x', 'a'].filter((n) => readSkill(h, n) !== null)
      }
      expect(loads('skills:\n  disabled: switched-off\n')).toEqual(['x', 'a'])
      expect(loads('skills:\n  disabled: {a: 1}\n')).toEqual(['off', 'switched-off', 'x'])
    } finally {
      rmSync(h, { recursive: true, force: true })
    }
  })

  it('a job with no prompt, script output or skill runs on the note alone, as upstream runs it', () => {
    const c = cases.find((x) => x.name === 'null-prompt')!
    // upstream's text is its note and nothing after it; ours is our note alone
    expect(c.prompt!.trim()).toMatch(/^\[IMPORTANT: You are running as a scheduled cron job\.[^\n]*\]$/)
    expect(ours(c).trim()).toBe(CRON_RUN_NOTE)
  })
})

// scripts/golden/cron_skill_dirs.py: config.yaml's `skills.external_dirs` adds folders upstream's skill lookup searches
// (relative to the profile, `${HERMES_HOME}/...`, `$VAR` from .env); a job naming a skill kept there ran without it,
// the skill named as not found, and a name in both a folder and the profile's own skills was not refused as ambiguous
describe("a cron job's skills in config.yaml's skills.external_dirs, found as upstream finds them", () => {
  const DIRS = resolve(import.meta.dirname, '../../test/fixtures/upstream/cron-skill-dirs')
  const dirsHome = join(DIRS, 'home')
  const gold = JSON.parse(readFileSync(join(DIRS, 'cases.json'), 'utf8')) as {
    cases: Array<{ name: string; loaded: boolean; file?: string }>
  }
  const files = [...new Set(gold.cases.flatMap((c) => (c.file ? [c.file] : [])))]
  files.push('skills/clash/SKILL.md', 'shared-skills/clash/SKILL.md', 'shared-skills/switched/SKILL.md')
  const text = (rel: string) => readFileSync(join(dirsHome, rel), 'utf8').trim()
  it.each(gold.cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const prompt = buildJobPrompt(dirsHome, join(dirsHome, 'cron'), { id: 'd1', prompt: 'p', skills: [c.name] }, null)
    for (const rel of files) expect(prompt.includes(text(rel)), rel).toBe(rel === c.file)
    if (c.loaded) expect(prompt).not.toContain('were not found')
    else expect(prompt).toContain(`they were skipped: ${c.name}.`)
  })
})

describe("upstream's check before a cron run: what it refuses, what it cleans", () => {
  it.each(
    guard.map((g) => [`${g.tier}: ${JSON.stringify(g.text)}${g.user_prompt ? ` (${g.user_prompt})` : ''}`, g] as const)
  )('%s', (_name, g) => {
    const r = guardRunText(g.text, {
      skills: g.tier === 'skills',
      data: g.tier === 'data',
      ownPrompt: g.user_prompt ?? (g.tier === 'data' ? 'summarise the feed' : '')
    })
    expect('refusal' in r).toBe(g.blocked)
    if (!g.blocked) expect(r).toEqual({ text: g.runs })
  })
})

describe('the check on long texts', () => {
  it('answers at once where a backtracking regex takes minutes (it runs on the main thread)', () => {
    const long = [
      'ignore '.repeat(10_000),
      'cat '.repeat(10_000),
      `curl ${'http://a'.repeat(10_000)}`,
      'curl -d '.repeat(5_000),
      'curl -H '.repeat(5_000),
      'wget --post-data= '.repeat(5_000),
      `${'$KEYKEY'.repeat(10_000)}"`,
      'x'.repeat(100_000)
    ]
    // No clock here (a timed assertion fails on a loaded machine): upstream's patterns take 20 s on the first text alone
    // (Python 3.11) and a backtracking copy of them hung this thread for minutes, past the test's timeout.
    for (const text of long) {
      expect(promptRefusal(text)).toBeNull()
      expect(guardRunText(text, { skills: true, data: false, ownPrompt: '' })).toEqual({ text })
    }
    expect(promptRefusal(`${'ignore '.repeat(10_000)}all instructions`)).not.toBeNull()
  })
})
