// The Sessions page lists the child sessions upstream's list shows, on a home upstream's own SessionDB wrote
// (scripts/golden/list_children.py): roots and branches (marked or legacy), compression chains as their tips;
// subagent runs (a detached one too), a tool's child, unmarked children and a chain's compressed parts only with the
// children filter on.
import { cpSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { SearchResult, SessionPage } from '@shared/contract'
import { createHost, type Host } from '../src-main/host'
import { createLogger } from '../src-main/host/log/log'
import { parseArgs } from '../src-main/host/cli/args'
import { sessions as sessionsCli } from '../src-main/host/cli/sessions'
import { cleanupTempDirs, tempDir } from '../src-main/store/test-fixtures/tmp'

const gold = resolve(import.meta.dirname, 'fixtures/upstream/list-children')
const U = JSON.parse(readFileSync(join(gold, 'upstream.json'), 'utf8')) as {
  list: string[]
  list_children: string[]
  parents: Record<string, string | null>
}

// The CLI code run in this process logs into a temp folder, as the spawned CLI tests' children do, not into the
// user's data folder (test/support/fresh-file.ts restores the environment for the next file).
beforeAll(() => {
  process.env.CADUCEUS_LOG_DIR = tempDir('cad-list-children-logs-')
})
let host: Host
let home: string
beforeAll(async () => {
  home = tempDir('cad-list-children-')
  cpSync(join(gold, 'home'), home, { recursive: true })
  host = await createHost({ home, headless: true, live: false, validateOutput: true, log: createLogger() })
})
afterAll(async () => {
  await host?.close()
  cleanupTempDirs()
})

async function call<T>(name: string, input: Record<string, unknown>): Promise<T> {
  const r = await host.dispatcher.invoke(name as never, { profile: 'default', ...input } as never)
  if (!r.ok) throw new Error(JSON.stringify(r.error))
  return r.output as T
}
const list = async (input: Record<string, unknown> = {}) => (await call<SessionPage>('sessions.list', input)).items

describe("the session list shows what upstream's list_sessions_rich shows", () => {
  // root-a is live and has an unmarked child: Caduceus once hid it (a NULL end reason made "superseded" NULL)
  it('the same rows in the same order: roots, branches and chain tips', async () => {
    const items = await list()
    expect(items.map((s) => s.id)).toEqual(U.list)
    const kind = Object.fromEntries(items.map((s) => [s.id, s.kind]))
    expect(kind).toMatchObject({
      'br-marked': 'branch',
      'br-legacy': 'branch',
      'br-src-dg': 'branch', // a delegate source, but the /branch marker decides
      'chain-1': 'continuation',
      'cmp-dkid': 'continuation' // upstream's chain edge passes any source but tool
    })
    // the golden holds every kind upstream leaves out, so this compares something
    for (const id of ['dg-run', 'dg-detached', 'dg-chain-1', 'tool-kid', 'plain-kid', 'early-kid', 'pk-kid-1'])
      expect({ id, listed: U.list.includes(id), exists: id in U.parents }).toEqual({ id, listed: false, exists: true })
    expect(U.parents['dg-detached']).toBeNull() // detached by upstream's prune, marker kept
  })

  it('the children filter shows every row upstream shows with include_children, compressed parts too', async () => {
    const items = await list({ includeChildren: true })
    expect(items.map((s) => s.id)).toEqual(U.list_children)
    // a child started before its parent ended 'branched' is no branch; a run detached by a prune is still a run
    const kind = Object.fromEntries(items.map((s) => [s.id, s.kind]))
    expect(kind).toMatchObject({
      'early-kid': 'child',
      'plain-kid': 'child',
      'tool-kid': 'child',
      'dg-run': 'delegate'
    })
  })

  it('pages of any size are full and together make the same list (nothing is dropped after a LIMIT)', async () => {
    for (const limit of [1, 2, 3]) {
      const ids: string[] = []
      let cursor: string | null = null
      do {
        const page: SessionPage = await call<SessionPage>('sessions.list', { limit, ...(cursor ? { cursor } : {}) })
        if (page.nextCursor) expect({ limit, n: page.items.length }).toEqual({ limit, n: limit })
        ids.push(...page.items.map((s) => s.id))
        cursor = page.nextCursor
      } while (cursor)
      expect({ limit, ids }).toEqual({ limit, ids: U.list })
    }
  })

  it('the same inputs asked again, interleaved, answer as the first time (each input keeps its own statement)', async () => {
    const inputs = [{}, { includeChildren: true }, { limit: 2 }, { includeChildren: true, limit: 2 }, { sort: 'title' }]
    const ids = async (input: Record<string, unknown>) => (await list(input)).map((s) => s.id)
    const first: string[][] = []
    for (const input of inputs) first.push(await ids(input))
    expect(first.slice(0, 2)).toEqual([U.list, U.list_children])
    expect(first.slice(2, 4)).toEqual([U.list.slice(0, 2), U.list_children.slice(0, 2)])
    for (let round = 0; round < 2; round++)
      for (const [i, input] of inputs.entries()) expect(await ids(input)).toEqual(first[i])
  })

  it('the session page names every child the list hides or shows: branches (legacy too), runs, others', async () => {
    type Refs = Record<'branches' | 'delegateChildren' | 'otherChildren', Array<{ id: string }>>
    const lineage = async (sessionId: string) => {
      const l = (await call<{ lineage: Refs }>('sessions.get', { sessionId })).lineage
      return {
        b: l.branches.map((r) => r.id),
        d: l.delegateChildren.map((r) => r.id),
        o: l.otherChildren.map((r) => r.id)
      }
    }
    expect(await lineage('root-b')).toEqual({ b: ['br-legacy'], d: [], o: ['early-kid'] })
    expect(await lineage('root-a')).toEqual({
      b: ['br-marked', 'br-chain-0'],
      d: ['dg-run', 'dg-chain-0'],
      o: ['tool-kid', 'plain-kid']
    })
  })

  it('the CLI lists and searches as the app does: child sessions only with --children', async () => {
    const cli = async (...argv: string[]) => {
      const log = vi.spyOn(console, 'log').mockImplementation(() => {})
      try {
        expect(
          await sessionsCli(parseArgs(['sessions', ...argv, '--home', home, '--profile', 'default', '--json']))
        ).toBe(0)
        return JSON.parse(String(log.mock.calls[0]![0]))
      } finally {
        log.mockRestore()
      }
    }
    const ids = (page: SessionPage) => page.items.map((s) => s.id)
    expect(ids(await cli('list'))).toEqual(U.list)
    expect(ids(await cli('list', '--children'))).toContain('plain-kid')
    const found = async (...argv: string[]) => ((await cli(...argv)) as SearchResult).hits.map((h) => h.sessionId)
    expect(await found('search', '"hello from plain-kid"')).toEqual([])
    expect(await found('search', '"hello from plain-kid"', '--children')).toEqual(['plain-kid'])
  })

  it('search follows the list: a hidden child is found with the children filter on', async () => {
    const hits = async (query: string, includeChildren: boolean) =>
      (await call<SearchResult>('sessions.search', { query: `"${query}"`, includeChildren })).hits.map(
        (h) => h.sessionId
      )
    expect(await hits('hello from plain-kid', false)).toEqual([])
    expect(await hits('hello from plain-kid', true)).toEqual(['plain-kid'])
    expect(await hits('hello from br-legacy', false)).toEqual(['br-legacy'])
    // a chain is hidden or shown whole: a compressed subagent run's or unmarked child's later parts too
    for (const id of ['dg-chain-1', 'pk-kid-1']) {
      expect({ id, hits: await hits(`hello from ${id}`, false) }).toEqual({ id, hits: [] })
      expect({ id, hits: await hits(`hello from ${id}`, true) }).toEqual({ id, hits: [id] })
    }
    const titled = await call<SearchResult>('sessions.search', { query: 'zebra', includeChildren: false })
    expect([...titled.hits, ...(titled.sessions ?? [])]).toEqual([])
  })
})
