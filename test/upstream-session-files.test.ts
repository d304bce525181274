// The files a deleted session leaves in its home (`<id>.json`, `<id>.jsonl`, `request_dump_<id>_*.json` in
// `<home>/sessions/`), golden data from scripts/golden/session_files.py: upstream's CLI ran its delete and prune steps
// on one copy of a home, Caduceus's requests (the ones its CLI and Sessions page send) run on another, and the two
// file trees must match but for the two places Caduceus is narrower on purpose (listed below).
import { cpSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync } from 'node:fs'
import { symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createHost, type Host } from '../src-main/host'
import { createLogger } from '../src-main/host/log/log'

const gold = resolve(import.meta.dirname, 'fixtures/upstream/session-files')
const up = JSON.parse(readFileSync(join(gold, 'upstream.json'), 'utf8')) as {
  files: Record<string, string>
  links: Record<string, string>
  dirs: string[]
  homes: Record<string, string>
  steps: Array<{ profile: string; args: string[] }>
  before: string[]
  after: string[]
}

/**
 * What upstream removes and Caduceus keeps: deleting `a` takes upstream's glob `request_dump_a_*.json` over the dumps
 * of the session `a_b`, which was not deleted; and a profile whose `sessions` folder is a symlink out of the home has
 * its files removed there by upstream, never by Caduceus.
 */
const keptOnPurpose = up.before.filter(
  (p) =>
    !up.after.includes(p) &&
    (p.startsWith('home/sessions/request_dump_a_b_') || p.startsWith('outside/linked-sessions/'))
)

/** The same listing as the script's `paths`: a home's sessions folders and `outside/`. */
function paths(tree: string): string[] {
  const out: string[] = []
  const walk = (rel: string) => {
    for (const e of readdirSync(join(tree, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name
      const shown = r.startsWith('outside/') || r.includes('sessions/')
      if (e.isSymbolicLink()) {
        if (shown) out.push(`${r} -> ${readlinkSync(join(tree, r))}`)
      } else if (e.isDirectory()) {
        if (shown) out.push(`${r}/`)
        walk(r)
      } else if (shown) out.push(r)
    }
  }
  walk('')
  return out.sort()
}

let tree = ''
let host: Host | null = null
afterEach(async () => {
  await host?.close()
  host = null
  rmSync(tree, { recursive: true, force: true })
})

async function lay(): Promise<Host> {
  tree = mkdtempSync(join(tmpdir(), 'cad-session-files-'))
  cpSync(join(gold, 'tree'), tree, { recursive: true })
  for (const d of up.dirs) mkdirSync(join(tree, d), { recursive: true })
  for (const [rel, text] of Object.entries(up.files)) {
    mkdirSync(dirname(join(tree, rel)), { recursive: true })
    writeFileSync(join(tree, rel), text)
  }
  for (const [rel, target] of Object.entries(up.links)) {
    mkdirSync(dirname(join(tree, rel)), { recursive: true })
    symlinkSync(target, join(tree, rel))
  }
  expect(paths(tree)).toEqual(up.before)
  host = await createHost({
    home: join(tree, 'home'),
    headless: true,
    live: false,
    validateOutput: true,
    log: createLogger()
  })
  return host
}

const invoke = async (h: Host, method: string, input: unknown) =>
  (await h.dispatcher.invoke(method as never, input as never)) as { ok: boolean; output: any } // eslint-disable-line @typescript-eslint/no-explicit-any

/** Upstream's CLI steps as the requests `caduceus sessions delete|prune` send; deletes in a batch when `bulk`. */
async function runSteps(h: Host, bulk: boolean) {
  for (const { profile, args } of up.steps) {
    const [, verb, ...rest] = args
    if (verb === 'delete') {
      const sessionId = rest[0]!
      if (bulk) {
        const r = await invoke(h, 'sessions.bulk', { action: 'delete', sessions: [{ profile, sessionId }] })
        expect(r.output.results[0].ok).toBe(sessionId !== 'nope')
      } else {
        const r = await invoke(h, 'sessions.delete', { profile, sessionId })
        expect(r.output.deleted).toBe(sessionId !== 'nope')
      }
    } else {
      expect(rest).toEqual(['--older-than', '30', '--yes'])
      const r = await invoke(h, 'sessions.prune', { profile, olderThanDays: 30 })
      expect(r).toMatchObject({ ok: true, output: { deleted: 1 } })
    }
  }
}

describe("a deleted session's files, as upstream's delete and prune remove them", () => {
  it('the fixture is what upstream did: every deleted session lost its files, nothing else went', () => {
    expect(keptOnPurpose).toHaveLength(6) // a_b's two dumps; l-1's .json, .jsonl and two dumps
    expect(up.after).toContain('home/sessions/session_del-me.json') // upstream's own log of it: not named
    expect(up.after).toContain('outside/del-me-target.jsonl') // a link's target
  })

  it.each([
    ['one at a time (CLI, the undo bar)', false],
    ['in a batch (a selection on the Sessions page)', true]
  ])('removes what upstream removes, %s', async (_label, bulk) => {
    const h = await lay()
    await runSteps(h, bulk)
    expect(paths(tree)).toEqual([...up.after, ...keptOnPurpose].sort())
    expect(lstatSync(join(tree, 'home/sessions/old-1.jsonl')).isDirectory()).toBe(true)
  })

  it('removes nothing for a delete that did not happen or a dry run', async () => {
    const h = await lay()
    expect((await invoke(h, 'sessions.delete', { profile: 'default', sessionId: 'nope' })).output.deleted).toBe(false)
    const dry = await invoke(h, 'sessions.prune', { profile: 'default', olderThanDays: 30, dryRun: true })
    expect(dry.output.candidates.map((c: { id: string }) => c.id)).toEqual(['old-1'])
    expect(paths(tree)).toEqual(up.before)
  })
})
