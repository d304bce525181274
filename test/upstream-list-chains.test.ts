// How the Sessions page and `caduceus sessions list` show compression chains, on a home upstream's own SessionDB
// wrote (scripts/golden/list_chains.py), row by row against upstream's list_sessions_rich: one row per chain at its
// tip with the tip's title; archived or not as a whole by the chain's root (a tip archived alone by an older upstream
// stays listed); with the children filter on, every segment a row of its own. The preview is the one deliberate
// difference: upstream shows the tip's first user message, which after a second compaction is the handoff
// summary's boilerplate on every chain; Caduceus shows the conversation's opening message, from the root.
import { cpSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { SessionPage, SessionSummary } from '@shared/contract'
import { createHost, type Host } from '../src-main/host'
import { createLogger } from '../src-main/host/log/log'
import { parseArgs } from '../src-main/host/cli/args'
import { sessions as sessionsCli } from '../src-main/host/cli/sessions'
import { cleanupTempDirs, tempDir } from '../src-main/store/test-fixtures/tmp'

interface Row {
  id: string
  title: string | null
  preview: string
  archived: number
  root: string
}
const gold = resolve(import.meta.dirname, 'fixtures/upstream/list-chains')
const U = JSON.parse(readFileSync(join(gold, 'upstream.json'), 'utf8')) as Record<
  'list' | 'archived_only' | 'archived_include' | 'children' | 'children_archived_include',
  Row[]
>

// The CLI code run in this process logs into a temp folder, as the spawned CLI tests' children do, not into the
// user's data folder (test/support/fresh-file.ts restores the environment for the next file).
beforeAll(() => {
  process.env.CADUCEUS_LOG_DIR = tempDir('cad-list-chains-logs-')
})
let host: Host
let home: string
beforeAll(async () => {
  home = tempDir('cad-list-chains-')
  cpSync(join(gold, 'home'), home, { recursive: true })
  host = await createHost({ home, headless: true, live: false, validateOutput: true, log: createLogger() })
})
afterAll(async () => {
  await host?.close()
  cleanupTempDirs()
})

async function list(input: Record<string, unknown> = {}): Promise<SessionSummary[]> {
  const r = await host.dispatcher.invoke('sessions.list' as never, { profile: 'default', ...input } as never)
  if (!r.ok) throw new Error(JSON.stringify(r.error))
  return (r.output as SessionPage).items
}
/** A row as upstream's list gives it, but for the preview (compared separately). */
const seen = (s: SessionSummary) => ({ id: s.id, title: s.title, archived: s.archived ? 1 : 0, root: s.rootId })
const theirs = (r: Row) => ({ id: r.id, title: r.title, archived: r.archived, root: r.root })

describe("compression chains in the session list, against upstream's list_sessions_rich", () => {
  it("one row per chain, at its tip, with the tip's title and the root's archived flag", async () => {
    expect((await list()).map(seen)).toEqual(U.list.map(theirs))
    expect((await list({ archived: 'include' })).map(seen)).toEqual(U.archived_include.map(theirs))
  })

  it('a tip archived alone stays listed, unarchived; a root archived alone puts the chain under Archived', async () => {
    expect(U.list.map((r) => r.id)).toContain('arch-tip-2') // the golden holds the state it is about
    expect((await list({ archived: 'only' })).map(seen)).toEqual(U.archived_only.map(theirs))
    // archiving the listed row archives the whole conversation, and it comes back whole from the Archived filter
    const set = async (archived: boolean) => {
      const r = await host.dispatcher.invoke(
        'sessions.update' as never,
        {
          profile: 'default',
          sessionId: 'arch-tip-2',
          archived
        } as never
      )
      expect(r.ok).toBe(true)
    }
    await set(true)
    expect((await list()).map((s) => s.id)).not.toContain('arch-tip-2')
    expect((await list({ archived: 'only' })).map((s) => [s.id, s.archived])).toContainEqual(['arch-tip-2', true])
    await set(false)
    expect((await list()).map(seen)).toEqual(U.list.map(theirs))
  })

  it("the preview is the conversation's opening message, where upstream's is the tip's (a handoff summary)", async () => {
    const previews = Object.fromEntries((await list()).map((s) => [s.id, s.preview]))
    expect(previews).toEqual({
      'arch-tip-2': 'an old archive of the shown row only',
      'build-2': 'why does the build fail on arm64',
      'trip-2': null, // titled
      solo: 'a session never compressed'
    })
    for (const r of U.list.filter((r) => r.id !== r.root)) expect(r.preview).toMatch(/^\[CONTEXT COMPACTION/)
  })

  it('with the children filter on, every segment is a row of its own, as upstream lists them', async () => {
    // upstream filters each raw row on its own flag; Caduceus keeps a chain whole (its root's flag): the two lists
    // differ only on the chains an older upstream left half-archived
    const split = (r: Row) => r.id.startsWith('arch-')
    const ids = (await list({ includeChildren: true, archived: 'include' })).map((s) => s.id)
    expect(ids).toEqual(U.children_archived_include.map((r) => r.id))
    const rows = (await list({ includeChildren: true })).map((s) => ({ id: s.id, title: s.title }))
    expect(rows.filter((r) => !r.id.startsWith('arch-'))).toEqual(
      U.children.filter((r) => !split(r)).map((r) => ({ id: r.id, title: r.title }))
    )
    expect(rows.map((r) => r.id).filter((id) => id.startsWith('arch-'))).toEqual([
      'arch-tip-2',
      'arch-tip-1',
      'arch-tip-0'
    ])
  })

  it('the CLI lists the same rows, and every segment with --children', async () => {
    const cli = async (...argv: string[]) => {
      const log = vi.spyOn(console, 'log').mockImplementation(() => {})
      try {
        expect(
          await sessionsCli(parseArgs(['sessions', 'list', ...argv, '--home', home, '--profile', 'default', '--json']))
        ).toBe(0)
        return (JSON.parse(String(log.mock.calls[0]![0])) as SessionPage).items
      } finally {
        log.mockRestore()
      }
    }
    expect((await cli()).map(seen)).toEqual(U.list.map(theirs))
    expect((await cli('--children')).map((s) => s.id)).toEqual(
      (await list({ includeChildren: true, excludeSources: ['tool'] })).map((s) => s.id)
    )
    expect((await cli('--children')).map((s) => s.id)).toEqual(expect.arrayContaining(['trip-0', 'trip-1', 'build-0']))
  })
})
