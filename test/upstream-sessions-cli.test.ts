// `caduceus sessions export` and `sessions list` against upstream's own `hermes sessions export` on the fidelity home
// (scripts/golden/export_cli.py → test/fixtures/upstream/fidelity/export-cli.json): for each flag set the same
// sessions in the same order, each record field by field and message by message, the same words printed; then
// upstream's session import (import_sessions, the dashboard's) of some of those exports against `caduceus sessions
// import` of the same files. Everything runs through the CLI's own code in-process.
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { join, resolve } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sessionsCliApart } from './helpers/cli-in-process'
import { SessionStore } from '../src-main/store'
import { cleanupTempDirs, tempDir } from '../src-main/store/test-fixtures/tmp'
import { STOPPED_REPLY } from '../shared/contract/stopped-turn'
import { processCompletionMessage } from '../src-main/tools/completion'
import { hiddenMessageSql } from '../src-main/store/sql'
import { classifyRow } from '../shared/contract/notice-rows'

type Rec = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any
const gold = resolve(import.meta.dirname, 'fixtures/upstream/fidelity')
interface Case {
  profile: 'default' | 'work'
  flags: string[]
  printed: string
  ids?: string[]
  last_active?: number[]
  prompts?: Rec[]
  markdown?: string
  refused?: true
}
const G = JSON.parse(readFileSync(join(gold, 'export-cli.json'), 'utf8')) as {
  upstream_commit: string
  sessions: Record<string, Record<string, Rec>>
  cases: Case[]
  imports: Array<{ export: string; into: 'empty' | 'golden'; result: Rec; parents: Record<string, string | null> }>
  redact: Array<{ text: string; secret: string; redacted: string; masked: boolean }>
  md: Array<{
    flags: string[]
    runs: number
    printed: string[]
    files: Record<string, string>
    manifest: Rec[]
    sessions?: string[]
  }>
}
const INACTIVE = 'caduceus_inactive_messages'

afterAll(cleanupTempDirs)
// The CLI code run in this process logs into a temp folder, as the spawned CLI tests' children do, not into the
// user's data folder (test/support/fresh-file.ts restores the environment for the next file).
beforeAll(() => {
  process.env.CADUCEUS_LOG_DIR = tempDir('cad-export-cli-logs-')
})
const tmp = () => tempDir('cad-export-cli-')
let home: string
beforeAll(() => {
  home = tmp()
  cpSync(join(gold, 'home'), home, { recursive: true })
})

/** `caduceus sessions <argv> --home H` through the CLI's own entry: what went to stdout, and what it printed. */
const caduceus = (argv: string[], at = home) => sessionsCliApart(at, argv)
const jsonl = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Rec)
const withOut = (c: Case, out: string) => c.flags.map((f) => (f === 'OUT' ? out : f))
const profileFlags = (c: Pick<Case, 'profile'>) => (c.profile === 'default' ? [] : ['--profile', c.profile])
const label = (c: Pick<Case, 'profile' | 'flags'>) =>
  `${c.profile === 'default' ? '' : `[${c.profile}] `}${c.flags.join(' ') || '(no output)'}`

/** A record against upstream's: every field upstream wrote, equal, and nothing more but Caduceus's inactive rows. */
function sameRecord(profile: string, r: Rec, lastActive: number | undefined) {
  const { [INACTIVE]: inactive, last_active, ...rest } = r
  expect({ id: r.id, rest }).toEqual({ id: r.id, rest: G.sessions[profile]![r.id] })
  expect({ id: r.id, last_active }).toEqual({ id: r.id, last_active: lastActive })
  if (inactive !== undefined) for (const m of inactive as Rec[]) expect(m.active).toBe(0)
}

describe("sessions export writes what upstream's hermes sessions export writes, flag set by flag set", () => {
  const ok = G.cases.filter((c) => !c.refused)

  it.each(ok.map((c) => [label(c), c] as const))('%s', async (_, c) => {
    const file = join(tmp(), 'export.jsonl')
    const { code, stdout, printed } = await caduceus(['export', ...withOut(c, file), ...profileFlags(c)])
    expect(code).toBe(0)
    const toFile = c.flags.includes('OUT')
    // a file gets the records and the words say how many; stdout gets only the records
    expect(printed.replaceAll(file, 'OUT')).toBe(toFile || c.flags.includes('--dry-run') ? c.printed : '')
    const written = toFile ? readFileSync(file, 'utf8') : stdout
    if (c.markdown !== undefined) return expect(written).toBe(c.markdown)
    const records = jsonl(written)
    if (c.prompts) return expect(records).toEqual(c.prompts)
    if (c.flags.includes('--dry-run')) return expect(stdout).toBe('')
    expect(records.map((r) => r.id)).toEqual(c.ids)
    records.forEach((r, i) => sameRecord(c.profile, r, c.last_active?.[i]))
  })

  // scripts/golden/export_bytes.py: upstream's json.dumps text, separators, floats (`1500000000.0`) and key order
  const BYTES = JSON.parse(readFileSync(join(gold, 'export-bytes.json'), 'utf8')) as {
    cases: Array<{ profile: Case['profile']; flags: string[]; text: string }>
  }
  it.each(BYTES.cases.map((c) => [label(c), c] as const))('%s: the same bytes, line by line', async (_, c) => {
    const { code, stdout } = await caduceus(['export', ...c.flags, ...profileFlags(c)])
    expect(code).toBe(0)
    const ours = stdout.split('\n')
    const theirs = c.text.split('\n')
    expect(ours.length).toBe(theirs.length)
    // a record with inactive rows carries them as a last key of Caduceus's own: upstream's line up to its end
    theirs.forEach((line, i) =>
      ours[i]!.includes(`"${INACTIVE}": `)
        ? expect(ours[i]!.startsWith(`${line.slice(0, -1)}, "${INACTIVE}": `)).toBe(true)
        : expect(ours[i]).toBe(line)
    )
  })

  it('refusals and misses say what upstream says (and exit non-zero, where upstream exits 0)', async () => {
    const refused = G.cases.filter((c) => c.refused)
    expect(refused.map(label)).toEqual([
      '(no output)',
      '--session-id chain- -',
      '--session-id nope -',
      '--dry-run -',
      '--older-than 2w --newer-than 1w -'
    ])
    for (const c of refused.slice(1)) {
      const words = c.printed.trim().replace(/^Error: /, '')
      // upstream's empty-window message names the two bounds' times; Caduceus's names the two flags
      const want = words.startsWith('Empty time window') ? /^Empty time window/ : words
      await expect(caduceus(['export', ...c.flags])).rejects.toThrow(want)
    }
  })

  it('no OUTPUT: upstream refuses a JSONL export, Caduceus writes it to stdout (the same as `-`)', async () => {
    expect(G.cases[2]).toMatchObject({
      flags: [],
      printed: 'JSONL export requires an output path (use - for stdout).\n'
    })
    const bare = await caduceus(['export'])
    expect(bare.stdout).toBe((await caduceus(['export', '-'])).stdout)
    expect(jsonl(bare.stdout).map((r) => r.id)).toEqual(G.cases[0]!.ids)
  })

  it('the golden covers the selection rules: bare = every session with last_active; a filter = ended ones, oldest first', () => {
    const of = (...f: string[]) => G.cases.find((c) => c.profile === 'default' && c.flags.join(' ') === f.join(' '))!
    const all = of('-')
    expect(all.last_active).toHaveLength(all.ids!.length)
    expect(all.ids).toContain('chain-3') // live (not ended)
    expect(of('--source', 'cli', '-').ids).not.toContain('chain-3')
    expect(of('--source', 'cli', '-').ids).toContain('arch') // archived, still exported
    expect(of('--source', 'cli', '-').last_active).toBeUndefined()
    expect(of('--session-id', 'big', '-').ids).toEqual(['big-tools']) // a unique prefix
    expect(G.upstream_commit).toBe('9a75ff049b020ab5b24f76892f50f59064811028')
  })

  it('--lineage logical (upstream reads it for md/qmd only) merges the chain into one JSONL record', async () => {
    const { stdout } = await caduceus(['export', '--session-id', 'chain-3', '--lineage', 'logical', '-'])
    const [r] = jsonl(stdout)
    expect(r!.lineage_session_ids).toEqual(['chain-0', 'chain-1', 'chain-2', 'chain-3'])
    const single = jsonl((await caduceus(['export', '--session-id', 'chain-3', '--lineage', 'single', '-'])).stdout)
    expect(single.map((x) => x.id)).toEqual(['chain-3'])
    sameRecord('default', single[0]!, undefined)
  })

  it("--redact writes each credential as upstream's --redact writes it (one per kind, planted in a copy)", async () => {
    const h = tmp()
    cpSync(join(gold, 'home'), h, { recursive: true })
    const store = new SessionStore(join(h, 'state.db'))
    await store.createSession('secrets', 'cli')
    for (const [i, s] of G.redact.entries())
      await store.appendMessage('secrets', { role: 'user', content: s.text, timestamp: 1500030000 + i })
    await store.endSession('secrets', 'cli_close')
    store.close()
    const [r] = jsonl((await caduceus(['export', '--session-id', 'secrets', '--redact', '-'], h)).stdout)
    const written = (r!.messages as Rec[]).map((m) => m.content as string)
    expect(written).toHaveLength(G.redact.length)
    // the same mask, character for character (`sk-pro...9xyz`, `[REDACTED PRIVATE KEY]`), not just no secret
    expect(written).toEqual(G.redact.map((s) => s.redacted))
    const kept = G.redact.filter((s, i) => written[i]!.includes(s.secret)).map((s) => s.text)
    // upstream passes web URLs' userinfo and query strings through on purpose; everything else it masks, so do we
    expect(kept.filter((t) => G.redact.find((s) => s.text === t)!.masked)).toEqual([])
    expect(G.redact.filter((s) => s.masked).length).toBeGreaterThan(15)
  })

  it('--lineage with a filter: one record per chain, even when the filter left its first segment out', async () => {
    const lineage = async (...f: string[]) =>
      jsonl((await caduceus(['export', '--lineage', ...f, '-'])).stdout).map((r) => r.lineage_session_ids ?? [r.id])
    const chain = ['chain-0', 'chain-1', 'chain-2', 'chain-3']
    expect(await lineage('--title', 'plan')).toEqual([chain])
    expect(await lineage('--title', '#2')).toEqual([chain])
  })

  it('--redact masks a credential in the messages, not elsewhere', async () => {
    const h = tmp()
    cpSync(join(gold, 'home'), h, { recursive: true })
    const db = new Database(join(h, 'state.db'))
    db.prepare("UPDATE messages SET content = 'my key is sk-abcdefghijklmnop1234' WHERE session_id = 'ancient'").run()
    db.close()
    const plain = jsonl((await caduceus(['export', '--session-id', 'ancient', '-'], h)).stdout)[0]!
    const masked = jsonl((await caduceus(['export', '--session-id', 'ancient', '--redact', '-'], h)).stdout)[0]!
    expect(JSON.stringify(plain.messages)).toContain('sk-abcdefghijklmnop1234')
    expect(JSON.stringify(masked.messages)).not.toContain('abcdefghijklmnop1234')
    expect(masked.messages.length).toBe(plain.messages.length)
  })
})

// `--format md|qmd`: upstream's files, each compared whole but for the export time and the hash over it (which is
// checked the way upstream's verifier checks it), the manifest line by line, the words printed, what the home keeps.
describe("sessions export --format md|qmd writes the files upstream's writes", () => {
  const STAMP = /^(exported_at: )".*"$|^(- Exported at: )`.*`$|^(- SHA256 of exported body: )`[0-9a-f]{64}`$/gm
  const sha = (t: string) => createHash('sha256').update(t).digest('hex')
  /** Upstream's verify_export_file: the hash over the text with the hash written as `pending`. */
  const verified = (text: string) => {
    const m = /- SHA256 of exported body: `([0-9a-f]{64})`/.exec(text)
    return (
      !!m &&
      sha(text.replace(/- SHA256 of exported body: `[0-9a-f]{64}`/g, '- SHA256 of exported body: `pending`')) === m[1]
    )
  }

  it.each(G.md.map((c) => [`${c.flags.join(' ')}${c.runs > 1 ? ` (×${c.runs})` : ''}`, c] as const))(
    '%s',
    async (_, c) => {
      const h = tmp()
      cpSync(join(gold, 'home'), h, { recursive: true })
      const dir = join(tmp(), 'exports')
      const argv = ['export', ...c.flags.map((f) => (f === 'DIR' ? dir : f))]
      for (let run = 0; run < c.runs; run++) {
        const want = c.printed[run]!
        const refusal = !/^(Exported|Would export)/.test(want)
        if (refusal) {
          await expect(caduceus(argv, h)).rejects.toThrow(want.trim().replace('DIR', dir).replace('HOME', h))
          continue
        }
        const { printed } = await caduceus(argv, h)
        expect(printed.replaceAll(dir, 'DIR').replaceAll(h, 'HOME')).toBe(want)
      }
      const target = c.flags.includes('DIR') ? dir : join(h, 'session-exports')
      const names = existsSync(target) ? readdirSync(target).sort() : []
      expect(names.filter((n) => n !== 'manifest.jsonl')).toEqual(Object.keys(c.files).sort())
      for (const [name, want] of Object.entries(c.files)) {
        const text = readFileSync(join(target, name), 'utf8')
        expect(verified(text)).toBe(true)
        expect(text.replace(STAMP, (_m, a, b, d) => `${a ?? b ?? d}X`)).toBe(want)
      }
      const manifest = names.includes('manifest.jsonl')
        ? jsonl(readFileSync(join(target, 'manifest.jsonl'), 'utf8'))
        : []
      expect(
        manifest.map(({ exported_at, sha256, path, ...e }, i) => {
          expect(typeof exported_at).toBe('number')
          // the hash of the file as written then: the last line for a path is the file there now
          if (!manifest.slice(i + 1).some((x) => x.path === path)) expect(sha256).toBe(sha(readFileSync(path, 'utf8')))
          return { ...e, path: path.slice(target.length + 1) }
        })
      ).toEqual(c.manifest)
      if (c.sessions) {
        const db = new Database(join(h, 'state.db'), { readonly: true })
        expect(db.prepare('SELECT id FROM sessions ORDER BY id').pluck().all()).toEqual(c.sessions)
        db.close()
      }
    }
  )
})

// Upstream's own verifier (the check before --delete-after-verified deletes) reads the files Caduceus writes; run
// where upstream's checkout is (HERMES_UPSTREAM, the golden scripts' default): elsewhere the goldens above stand in.
const UPSTREAM = process.env.HERMES_UPSTREAM ?? '/work/upstream'
describe.skipIf(!existsSync('/usr/bin/python3') || !existsSync(join(UPSTREAM, 'hermes_state.py')))(
  "upstream's verify_export_file accepts Caduceus's md/qmd files",
  () => {
    it('a plain session, a multimodal one, a compression lineage and stopped tool rounds', async () => {
      const h = tmp()
      cpSync(join(gold, 'home'), h, { recursive: true })
      await seedStopped(h)
      await seedNotices(h)
      const dir = join(tmp(), 'md')
      const cases: Array<[string, string[]]> = [
        ['big-tools', ['--format', 'md']],
        ['mm-many', ['--format', 'qmd']],
        ['chain-3', ['--format', 'md', '--lineage', 'logical']],
        // a stopped tool round's closing row, written as the transcript's notice (upstream heads it Assistant)
        ['ours', ['--format', 'md']],
        ['theirs', ['--format', 'qmd']],
        // notices, notes to the model, a compression summary and a steer, each headed as what it is
        ['notices', ['--format', 'md']]
      ]
      const files: Array<[string, string, boolean]> = []
      for (const [id, flags] of cases) {
        const { printed } = await caduceus(['export', ...flags, '--session-id', id, dir], h)
        files.push([id, /to (.*)$/m.exec(printed)![1]!, flags.includes('logical')])
      }
      const py = `
import json, sys; sys.path.insert(0, sys.argv[1])
from pathlib import Path
from hermes_state import SessionDB
from hermes_cli.session_export_md import verify_export_file
db = SessionDB(Path(sys.argv[2]))
out = [verify_export_file(f, db.export_session_lineage(i) if lin else db.export_session(i)) for i, f, lin in json.loads(sys.argv[3])]
print(json.dumps(out))`
      const upstream = process.env.HERMES_UPSTREAM ?? '/work/upstream'
      if (!existsSync(join(upstream, 'hermes_state.py'))) return
      const got = JSON.parse(
        execFileSync('/usr/bin/python3', ['-c', py, UPSTREAM, join(h, 'state.db'), JSON.stringify(files)], {
          encoding: 'utf8',
          env: { ...process.env, HERMES_HOME: h }
        })
      ) as unknown[]
      expect(got).toEqual(files.map(() => [true, 'ok']))
    })
  }
)

describe("sessions import of upstream CLI exports answers what upstream's import_sessions answers", () => {
  const recordsOf = (flags: string) => {
    const c = G.cases.find((x) => x.profile === 'default' && x.flags.join(' ') === flags)!
    return c.ids!.map((id, i) => ({
      ...G.sessions.default![id],
      ...(c.last_active ? { last_active: c.last_active[i] } : {})
    }))
  }
  const parentsOf = (path: string, ids: string[]) => {
    const db = new Database(path, { readonly: true })
    try {
      const get = db.prepare('SELECT parent_session_id FROM sessions WHERE id = ?').pluck()
      return Object.fromEntries(ids.map((id) => [id, (get.get(id) as string | null | undefined) ?? null]))
    } finally {
      db.close()
    }
  }

  it.each(G.imports.filter((i) => i.result.ok).map((i) => [`${i.export} into ${i.into}`, i] as const))(
    '%s',
    async (_, imp) => {
      const at = tmp()
      if (imp.into === 'golden') cpSync(join(gold, 'home'), at, { recursive: true })
      const file = join(tmp(), 'in.jsonl')
      writeFileSync(
        file,
        recordsOf(imp.export)
          .map((r) => JSON.stringify(r))
          .join('\n') + '\n'
      )
      const { printed } = await caduceus(['import', file, '--json'], at)
      const got = JSON.parse(printed) as Rec
      const { imported, skipped, detached } = imp.result
      expect({ imported: got.imported, skipped: got.skipped, detached: got.detached, errors: got.errors }).toEqual({
        imported,
        skipped,
        detached,
        errors: []
      })
      const ids = Object.keys(imp.parents)
      expect(parentsOf(join(at, 'state.db'), ids)).toEqual(imp.parents)
    }
  )

  it('a bad session: upstream refuses the whole payload; Caduceus names it and imports the rest (hermes-channels §4)', async () => {
    const imp = G.imports.find((i) => !i.result.ok)!
    expect(imp.result).toMatchObject({
      imported: 0,
      errors: [{ session_id: 'broken', error: 'messages must be a list' }]
    })
    const file = join(tmp(), 'in.jsonl')
    const lines = [...recordsOf('--source discord -'), { id: 'broken', source: 'cli', messages: 'not a list' }]
    writeFileSync(file, lines.map((r) => JSON.stringify(r)).join('\n') + '\n')
    const got = JSON.parse((await caduceus(['import', file, '--json'], tmp())).printed) as Rec
    expect(got).toMatchObject({ imported: 1, skipped: 0 })
    expect(got.errors).toEqual([expect.objectContaining({ id: 'broken', reason: expect.stringMatching(/messages/) })])
  })
})

// `hermes sessions list` (scripts/golden/list_cli.py → list-cli.json): the same sessions; a 'tool' source only with
// --source. Order: Caduceus lists by last activity, as upstream's dashboard and in-app console do; upstream's
// terminal CLI alone lists newest-started first, so with a --limit below the count the two pick different rows.
describe("sessions list lists what upstream's hermes sessions list lists", () => {
  const L = JSON.parse(readFileSync(join(gold, 'list-cli.json'), 'utf8')) as {
    tool_session: { id: string; source: string; started_at: number; text: string }
    cases: Array<{ home: 'golden' | 'tool'; profile: string; flags: string[]; ids: string[] }>
  }
  const U = JSON.parse(readFileSync(join(gold, 'upstream.json'), 'utf8')) as Record<string, { list: string[] }>
  let toolHome: string
  beforeAll(async () => {
    toolHome = tmp()
    cpSync(join(gold, 'home'), toolHome, { recursive: true })
    const t = L.tool_session
    const store = new SessionStore(join(toolHome, 'state.db'))
    await store.createSession(t.id, t.source, { startedAt: t.started_at })
    await store.appendMessage(t.id, { role: 'user', content: t.text, timestamp: t.started_at + 5 })
    await store.endSession(t.id, 'completed', t.started_at + 9)
    store.close()
  })
  const ids = async (at: string, argv: string[]) =>
    (JSON.parse((await caduceus(['list', '--json', ...argv], at)).printed) as { items: Rec[] }).items.map(
      (s) => s.id as string
    )

  it.each(L.cases.map((c) => [`${c.home} ${c.profile} ${c.flags.join(' ') || '(no flag)'}`, c] as const))(
    '%s',
    async (_, c) => {
      const got = await ids(c.home === 'tool' ? toolHome : home, ['--profile', c.profile, ...c.flags])
      const limited = c.flags.includes('--limit') && Number(c.flags[c.flags.indexOf('--limit') + 1]) < 20
      if (!limited) return expect([...got].sort()).toEqual([...c.ids].sort())
      // the same count, each side's own order: Caduceus's first N by last activity (upstream's dashboard order)
      expect(got).toEqual(U[c.profile]!.list.slice(0, c.ids.length))
      expect(got).not.toEqual(c.ids)
    }
  )

  it("in upstream's last-activity order (its dashboard's and console's), not its terminal CLI's start order", async () => {
    const got = await ids(home, ['--profile', 'default'])
    expect(got).toEqual(U.default!.list)
    expect(got).not.toEqual(L.cases[0]!.ids)
    expect([...got].sort()).toEqual([...L.cases[0]!.ids].sort())
  })
})

// The row that closes a tool round the user stopped (shared/contract/stopped-turn.ts), through every reading of a
// session the CLI offers: the Markdown exports and `sessions show` read it as the notice the transcript shows, not
// as the model's words; JSONL keeps the row exactly as upstream stores and reads it.
const NOTICE = 'Stopped by you before the model answered the tool results.'
const UPSTREAM_ROW = 'Operation interrupted during retry (attempt 2/3).'

/** Two sessions whose tool round the user stopped: closed by Caduceus's row (`ours`) and by upstream's (`theirs`). */
async function seedStopped(home: string) {
  const store = new SessionStore(join(home, 'state.db'))
  const call = { id: 'call_1', name: 'terminal', arguments: '{"command":"sleep 9"}' }
  for (const [id, closing] of [
    ['ours', STOPPED_REPLY],
    ['theirs', UPSTREAM_ROW]
  ] as const) {
    await store.createSession(id, 'cli')
    await store.appendMessages(id, [
      { role: 'user', content: 'wait a while' },
      { role: 'assistant', content: 'Waiting.', toolCalls: [call], finishReason: 'tool_calls' },
      { role: 'tool', content: '{"output": "", "exit_code": 130}', toolCallId: 'call_1', toolName: 'terminal' },
      // as the agent writes it on the user's Stop (turn-loop.ts `stopped`): no finish reason, no tool calls
      { role: 'assistant', content: closing },
      { role: 'user', content: 'never mind' },
      { role: 'assistant', content: 'Fine.', finishReason: 'stop' }
    ])
  }
  store.close()
}

describe("a stopped tool round's closing row reads as the transcript's notice, in every reading but JSONL", () => {
  let home: string
  beforeAll(async () => {
    home = tmp()
    await seedStopped(home)
  })

  /** `caduceus sessions ARGV` on this home: what it wrote to stdout and logged. */
  const run = async (...argv: string[]) => {
    const { code, stdout, printed } = await caduceus(argv, home)
    expect(code).toBe(0)
    return stdout + printed
  }

  it('reads as the notice in the Markdown export, never as an assistant reply', async () => {
    const md = await run('export', '-', '--format', 'markdown', '--session-id', 'ours')
    const sections = md.split(/^## /m).map((s) => s.split(' · ')[0]!.trim())
    expect(sections.slice(1)).toEqual(['user', 'assistant', 'notice', 'user', 'assistant'])
    expect(md).toMatch(/\n## notice · [^\n]+\n\nStopped by you before the model answered the tool results\.\n/)
    expect(md).not.toContain(STOPPED_REPLY)
    // upstream's own closing row: the same notice, with what upstream says its turn was doing
    const theirs = await run('export', '-', '--format', 'markdown', '--session-id', 'theirs')
    expect(theirs).toContain(
      '\n\nStopped by you before the model answered the tool results (upstream’s note: during retry (attempt 2/3)).\n'
    )
    expect(theirs).not.toContain('Operation interrupted')
  })

  it("reads as the notice in upstream's md file too, which still verifies before a delete", async () => {
    const dir = tmp()
    await run('export', dir, '--format', 'md', '--session-id', 'ours')
    const file = readdirSync(dir).find((f) => f.endsWith('.md'))!
    const text = readFileSync(join(dir, file), 'utf8')
    const headings = [...text.matchAll(/^### (\w+)/gm)].map((m) => m[1])
    expect(headings).toEqual(['User', 'Assistant', 'Tool', 'Notice', 'User', 'Assistant'])
    expect(text).toMatch(new RegExp(`\\n### Notice — [^\\n]+\\n\\n${NOTICE.replace('.', '\\.')}\\n`))
    expect(text).toContain('- Exported messages: `6`')
    // upstream's check of the file (its hash, message count and id) passes: the session is deleted after it
    // (the last test to read that session)
    const printed = await run(
      'export',
      dir,
      '--format',
      'md',
      '--session-id',
      'theirs',
      '--delete-after-verified',
      '--yes'
    )
    expect(printed).toMatch(/^Exported 1 session \(6 messages\) to .*\nDeleted exported session 'theirs'\.\n$/)
  })

  it('reads as the notice in `sessions show`', async () => {
    const shown = await run('show', 'ours')
    expect(shown).toContain(`\n[notice] ${NOTICE}\n`)
    expect(shown).not.toContain('[assistant] [Stopped')
  })

  it("stays upstream's row in the JSONL export: an assistant message, its text and no finish reason", async () => {
    const jsonl = await run('export', '-', '--session-id', 'ours')
    const rec = JSON.parse(jsonl.trim()) as { messages: Array<Record<string, unknown>> }
    expect(rec.messages[3]).toMatchObject({ role: 'assistant', content: STOPPED_REPLY, finish_reason: null })
    expect(rec.messages[3]!.tool_calls ?? null).toBeNull()
  })
})

// Every other row the transcript shows as a notice, a note or a summary rather than as someone's words (one
// classification: shared/contract/notice-rows.ts), through the same readings. Upstream's rows are the text its own
// code wrote: its delegation and process notices (scripts/golden/delegation_notices.py, process_notices.py) and the
// compression summary its agent loop stored (scripts/golden/compression_chain.py); Caduceus's are its writers' own.
const upstreamText = (dir: string) =>
  JSON.parse(readFileSync(resolve(import.meta.dirname, `fixtures/upstream/${dir}/notices.json`), 'utf8')) as Record<
    string,
    string
  >
/** Upstream's compression summaries, as its loop stored them: at the head of a continuation, and merged into the
 * user message or the reply it kept there. */
function upstreamSummaries(): { own: string; merged: string; reply: string } {
  const db = new Database(resolve(import.meta.dirname, 'fixtures/upstream/compression-chain/state.db'), {
    readonly: true
  })
  try {
    const get = (like: string) =>
      db.prepare("SELECT content FROM messages WHERE role = 'user' AND content LIKE ?").pluck().get(like) as string
    const reply = db
      .prepare("SELECT content FROM messages WHERE role = 'assistant' AND content LIKE '[PRIOR CONTEXT%'")
      .pluck()
      .get() as string
    return { own: get('[CONTEXT COMPACTION%'), merged: get('[PRIOR CONTEXT%'), reply }
  } finally {
    db.close()
  }
}
const CONTINUE = '[System: The output length limit cut your last reply short. Pick it up where it stopped.]'
const RESUMED = '[System note: Your previous turn was interrupted mid-run. Check what was done before going on.]'

async function seedNotices(home: string) {
  const store = new SessionStore(join(home, 'state.db'))
  await store.createSession('notices', 'cli')
  await store.appendMessages('notices', [
    { role: 'user', content: upstreamSummaries().own },
    { role: 'user', content: 'start the jobs' },
    { role: 'assistant', content: 'Started.', finishReason: 'length' },
    { role: 'user', content: CONTINUE, displayKind: 'continuation_notice' },
    { role: 'assistant', content: 'Still going.', finishReason: 'stop' },
    { role: 'user', content: 'and check the logs', displayKind: 'steer' },
    { role: 'user', content: upstreamText('delegation-notices').single_ok! },
    {
      role: 'user',
      content: '[Background delegation dlg_1 finished: failed]\nTask: count the files\nError: disk gone',
      displayKind: 'async_delegation_complete'
    },
    { role: 'user', content: upstreamText('process-notices').exit_fail! },
    processCompletionMessage({
      processId: 'proc_1',
      command: 'make',
      exitCode: 0,
      signal: null,
      outputTail: 'built'
    } as Parameters<typeof processCompletionMessage>[0]),
    { role: 'user', content: RESUMED },
    { role: 'user', content: upstreamSummaries().merged },
    { role: 'assistant', content: upstreamSummaries().reply, finishReason: 'stop' }
  ])
  store.close()
}

describe('notices, notes to the model and compression summaries read as the transcript shows them, but in JSONL', () => {
  let home: string
  beforeAll(async () => {
    home = tmp()
    await seedNotices(home)
  })
  const run = async (...argv: string[]) => {
    const { code, stdout, printed } = await caduceus(argv, home)
    expect(code).toBe(0)
    return stdout + printed
  }
  const NOTICES = [
    'Background delegation deleg_0a1b2c3d: completed (upstream).',
    'Background delegation dlg_1: failed.',
    'Background process finished: proc_5e6f7a8b9c0d, exited (upstream).',
    'Background process finished: proc_1, exit code 0.',
    'Resumed an interrupted turn.'
  ]

  it("the Markdown export heads each as what it is, in the transcript's words", async () => {
    const md = await run('export', '-', '--format', 'markdown', '--session-id', 'notices')
    // each row's heading (a summary's own headings are inside its fold)
    const sections = md.split(/^## (?=[a-z ]+ · \d{4}-)/m).slice(1)
    expect(sections.map((x) => x.split(' · ')[0]!.trim())).toEqual([
      'compaction summary',
      'user',
      'assistant',
      'system note',
      'assistant',
      'steer',
      ...NOTICES.map(() => 'notice'),
      'user',
      'assistant'
    ])
    expect(sections.slice(6, 11).map((x) => x.split('\n')[2])).toEqual(NOTICES)
    // the summary folded, as the transcript folds it
    expect(sections[0]).toMatch(
      /^[^\n]+\n\n<details><summary>Compaction summary · 6,339 chars<\/summary>\n\n\[CONTEXT COMPACTION/
    )
    expect(sections[0]).toMatch(/\n<\/details>\n\n$/)
    expect(sections[3]).toContain(CONTINUE)
    expect(sections[5]).toContain('and check the logs')
    // a task's goal and result, a process's command and output: what the card shows
    expect(sections[6]).toContain('Task: Summarize open issues\nThree issues are open:')
    expect(sections[7]).toContain('Task: count the files\ndisk gone')
    expect(sections[8]).toContain('$ npm test -- --watch=false\n\nOutput:\nFAIL src/a.test.ts')
    // a summary merged into the message it kept: the message's words, then the summary folded
    expect(sections[11]).toMatch(
      /^[^\n]+\n\nCHAIN-QUESTION question 2 [^\n]+\n\n<details><summary>Compaction summary · /
    )
    expect(sections[12]).toMatch(/^[^\n]+\n\nCHAIN-\w+ answer \d [^\n]+\n\n<details><summary>Compaction summary · /)
    expect(md).not.toContain('[PRIOR CONTEXT')
    expect(md).not.toContain('[ASYNC DELEGATION COMPLETE')
    expect(md).not.toContain('[IMPORTANT: Background process')
  })

  it("upstream's md file heads each as what it is", async () => {
    const dir = tmp()
    await run('export', dir, '--format', 'md', '--session-id', 'notices')
    const text = readFileSync(
      join(
        dir,
        readdirSync(dir).find((f) => f.endsWith('.md'))!
      ),
      'utf8'
    )
    expect([...text.matchAll(/^### ([\w ]+?)(?: — |\n)/gm)].map((m) => m[1])).toEqual([
      'Compaction summary',
      'User',
      'Assistant',
      'System note',
      'Assistant',
      'Steer',
      ...NOTICES.map(() => 'Notice'),
      'User',
      'Assistant'
    ])
    for (const n of NOTICES) expect(text).toContain(`\n\n${n}\n`)
    expect(text).toMatch(/\nCHAIN-QUESTION question 2 [^\n]+\n\n<details><summary>Compaction summary · /)
    expect(text).toMatch(/\nCHAIN-\w+ answer \d [^\n]+\n\n<details><summary>Compaction summary · /)
    expect(text).not.toContain('[PRIOR CONTEXT')
    expect(text).toContain('- Exported messages: `13`')
  })

  it('`sessions show` tags each as what it is; notes to the model stay out, as in the transcript', async () => {
    const shown = (await run('show', 'notices')).split('\n').slice(3)
    expect(shown.map((l) => /^\[([^\]]+)\]/.exec(l)?.[1]).filter(Boolean)).toEqual([
      'compaction summary',
      'user',
      'assistant',
      'assistant',
      'steer',
      ...NOTICES.map(() => 'notice'),
      'user',
      'compaction summary',
      'assistant',
      'compaction summary'
    ])
    for (const n of NOTICES) expect(shown).toContain(`[notice] ${n.split('\n')[0]}`)
  })

  // `show` reads pages, which leave notes to the model out in SQL (store/sql.ts); the exports tell them in code
  it('a note to the model is the same row to the SQL that hides it and to the exports', () => {
    const rows: Array<[string, string | null, string | null]> = [
      ['user', CONTINUE, 'continuation_notice'],
      ['user', ' \n\t[System: a note]', null],
      ['user', '\u00a0[System: after a no-break space]', null],
      ['user', '[System] mine', null],
      ['user', '[Systemd unit]', null],
      ['user', '[system: lower case]', null],
      ['assistant', '[System: said by the model]', null],
      ['user', 'anything', 'hidden'],
      ['tool', null, 'hidden'],
      ['user', null, null]
    ]
    const db = new Database(':memory:')
    try {
      const hidden = db
        .prepare(`SELECT ${hiddenMessageSql('')} FROM (SELECT ? AS role, ? AS content, ? AS display_kind)`)
        .pluck()
      for (const [role, content, displayKind] of rows) {
        const code = classifyRow({ role, content, displayKind, finishReason: null, toolCalls: null })?.kind
        expect([role, content, Boolean(hidden.get(role, content, displayKind))]).toEqual([
          role,
          content,
          code === 'system_note'
        ])
      }
    } finally {
      db.close()
    }
  })

  it("JSONL keeps every row as stored: upstream's shape, its text and display kind", async () => {
    const rec = JSON.parse((await run('export', '-', '--session-id', 'notices')).trim()) as {
      messages: Array<Record<string, unknown>>
    }
    expect(rec.messages.map((m) => [m.role, m.display_kind ?? null])).toEqual([
      ['user', null],
      ['user', null],
      ['assistant', null],
      ['user', 'continuation_notice'],
      ['assistant', null],
      ['user', 'steer'],
      ['user', null],
      ['user', 'async_delegation_complete'],
      ['user', null],
      ['user', 'process_complete'],
      ['user', null],
      ['user', null],
      ['assistant', null]
    ])
    expect(rec.messages[6]!.content).toBe(upstreamText('delegation-notices').single_ok)
    expect(rec.messages[3]!.content).toBe(CONTINUE)
  })
})
