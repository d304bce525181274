// Issue #26 item 3, through the request the Sessions page sends: a search applies the page's filters (source,
// archived, children, dates, id prefix), and a compression chain (segments linked by parent_session_id, each
// ended by `compression`) is one result under its tip, named by the tip's title.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SearchResult } from '@shared/contract'
import { createHost } from '../src-main/host'
import { createLogger } from '../src-main/host/log/log'
import { SessionStore } from '../src-main/store'

const home = mkdtempSync(join(tmpdir(), 'cad-search-filters-'))
let host: Awaited<ReturnType<typeof createHost>>

beforeAll(async () => {
  const s = new SessionStore(join(home, 'state.db'))
  try {
    const say = (id: string, content: string, timestamp: number) =>
      s.appendMessage(id, { role: 'user', content, timestamp })
    await s.createSession('tg-1', 'telegram', { title: 'Heater from Telegram', startedAt: 1796000000 })
    await say('tg-1', 'the heater makes a clicking noise', 1796000000)
    await s.createSession('cli-1', 'cli', { title: 'Heater from the CLI', startedAt: 1796100000 })
    await say('cli-1', 'order a new heater valve', 1796100000)
    await s.createSession('old-1', 'cli', { title: 'Archived heater', startedAt: 1796200000 })
    await say('old-1', 'the old heater manual', 1796200000)
    await s.setArchived('old-1', true)
    await s.createSession('kid-1', 'cli', {
      parentSessionId: 'cli-1',
      modelConfig: { _delegate_from: 'cli-1' },
      startedAt: 1796300000
    })
    await say('kid-1', 'subagent looked up heater prices', 1796300000)
    // a /branch of cli-1, and a subagent run that says the same word
    await s.createSession('br-1', 'cli', {
      parentSessionId: 'cli-1',
      modelConfig: { _branched_from: 'cli-1' },
      startedAt: 1796310000
    })
    await say('br-1', 'what if we fit a radiator instead', 1796310000)
    await s.createSession('kid-2', 'cli', {
      parentSessionId: 'cli-1',
      modelConfig: { _delegate_from: 'cli-1' },
      startedAt: 1796320000
    })
    await say('kid-2', 'subagent priced the radiator', 1796320000)
    // a three-part chain: root → middle → tip, each earlier part ended by compression
    await s.createSession('chain-1', 'cli', { title: 'Rename files by date', startedAt: 1796400000 })
    await say('chain-1', 'rename the heater photos by date', 1796400000)
    await s.endSession('chain-1', 'compression', 1796400100)
    await s.createSession('chain-2', 'cli', {
      title: 'Rename files by date #2',
      parentSessionId: 'chain-1',
      startedAt: 1796400100
    })
    await say('chain-2', 'the heater photos from March too', 1796400200)
    await s.endSession('chain-2', 'compression', 1796400300)
    await s.createSession('chain-3', 'cli', {
      title: 'Rename files by date #3',
      parentSessionId: 'chain-2',
      startedAt: 1796400300
    })
    await say('chain-3', 'done: 40 heater photos renamed', 1796400400)
    // a chain whose tip is untitled goes by its root's title
    await s.createSession('u-1', 'tui', { title: 'Boiler service', startedAt: 1796500000 })
    await say('u-1', 'book the boiler service', 1796500000)
    await s.endSession('u-1', 'compression', 1796500100)
    await s.createSession('u-2', 'tui', { parentSessionId: 'u-1', startedAt: 1796500100 })
    await say('u-2', 'boiler service booked for Monday', 1796500200)
  } finally {
    s.close()
  }
  host = await createHost({ home, headless: true, live: false, validateOutput: true, log: createLogger() })
})
afterAll(async () => {
  await host?.close()
  rmSync(home, { recursive: true, force: true })
})

async function search(input: Record<string, unknown>): Promise<SearchResult> {
  const r = await host.dispatcher.invoke('sessions.search', { profile: 'default', query: 'heater', ...input } as never)
  if (!r.ok) throw new Error(JSON.stringify(r))
  return (r as { output: SearchResult }).output
}
const conversations = (r: SearchResult) => [...new Set(r.hits.map((h) => h.chainId ?? h.sessionId))].sort()

describe('sessions.search applies the Sessions page filters', () => {
  it('without filters finds every session, archived and delegated ones too (as before)', async () => {
    expect(conversations(await search({}))).toEqual(['chain-3', 'cli-1', 'kid-1', 'old-1', 'tg-1'])
  })
  it('sources=telegram keeps only Telegram sessions, in hits and title matches', async () => {
    const r = await search({ sources: ['telegram'] })
    expect(r.hits.map((h) => h.sessionId)).toEqual(['tg-1'])
    expect(r.sessions?.map((g) => g.sessionId)).toEqual(['tg-1'])
  })
  it('archived and children follow the list: excluded unless asked for', async () => {
    const page = await search({ archived: 'exclude', includeChildren: false })
    expect(conversations(page)).toEqual(['chain-3', 'cli-1', 'tg-1'])
    expect((await search({ archived: 'only' })).hits.map((h) => h.sessionId)).toEqual(['old-1'])
    expect(conversations(await search({ archived: 'exclude', includeChildren: true }))).toContain('kid-1')
    // a /branch is a conversation of its own (upstream lists it): its hits stay; a subagent run's do not
    expect(conversations(await search({ query: 'radiator', includeChildren: false }))).toEqual(['br-1'])
    expect(conversations(await search({ query: 'radiator', includeChildren: true }))).toEqual(['br-1', 'kid-2'])
  })
  it('from/to bound the matching message time; idPrefix the session id', async () => {
    const r = await search({ from: 1796050000, to: 1796250000 })
    expect(r.hits.map((h) => h.sessionId).sort()).toEqual(['cli-1', 'old-1'])
    expect((await search({ idPrefix: 'tg-' })).hits.map((h) => h.sessionId)).toEqual(['tg-1'])
  })
})

describe('a compression chain is one search result', () => {
  it("groups every segment's hits under the tip, named by the tip's title, counted together", async () => {
    const r = await search({ sources: ['cli'], archived: 'exclude', includeChildren: false })
    const chainHits = r.hits.filter((h) => ['chain-1', 'chain-2', 'chain-3'].includes(h.sessionId))
    expect(chainHits.map((h) => h.sessionId).sort()).toEqual(['chain-1', 'chain-2', 'chain-3'])
    // earlier segments point at the tip; the tip is its own group
    expect(chainHits.map((h) => h.chainId ?? h.sessionId)).toEqual(['chain-3', 'chain-3', 'chain-3'])
    const groups = r.sessions!.filter((g) => g.sessionId.startsWith('chain-'))
    expect(groups).toEqual([
      { profile: 'default', sessionId: 'chain-3', title: 'Rename files by date #3', hits: 3, titleMatch: false }
    ])
  })
  it('with the children filter on (or an id typed), each segment is its own result, as the list shows it', async () => {
    const list = await host.dispatcher.invoke('sessions.list', {
      profile: 'default',
      sources: ['cli'],
      includeChildren: true
    } as never)
    const rows = (list as { output: { items: Array<{ id: string }> } }).output.items.map((i) => i.id)
    expect(rows).toEqual(expect.arrayContaining(['chain-1', 'chain-2', 'chain-3']))
    const r = await search({ sources: ['cli'], includeChildren: true })
    const chainHits = r.hits.filter((h) => h.sessionId.startsWith('chain-'))
    expect(chainHits.map((h) => h.chainId ?? h.sessionId).sort()).toEqual(['chain-1', 'chain-2', 'chain-3'])
    expect(r.sessions!.filter((g) => g.sessionId.startsWith('chain-'))).toEqual([
      { profile: 'default', sessionId: 'chain-3', title: 'Rename files by date #3', hits: 1, titleMatch: false },
      { profile: 'default', sessionId: 'chain-2', title: 'Rename files by date #2', hits: 1, titleMatch: false },
      { profile: 'default', sessionId: 'chain-1', title: 'Rename files by date', hits: 1, titleMatch: false }
    ])
    const typed = await search({ idPrefix: 'chain-1' })
    expect(typed.hits.map((h) => h.chainId ?? h.sessionId)).toEqual(['chain-1'])
    expect(typed.sessions!.map((g) => g.sessionId)).toEqual(['chain-1'])
  })
  it("an untitled tip's chain is named by its root, in the search and in the list after it", async () => {
    const r = await search({ query: 'boiler' })
    expect(r.sessions).toEqual([
      { profile: 'default', sessionId: 'u-2', title: 'Boiler service', hits: 2, titleMatch: true }
    ])
    const list = await host.dispatcher.invoke('sessions.list', { profile: 'default', sources: ['tui'] } as never)
    const items = (list as { output: { items: Array<{ id: string; title: string | null }> } }).output.items
    expect(items.map((i) => [i.id, i.title])).toEqual([['u-2', 'Boiler service']])
  })
  it('a title matching several segments is one title match, the tip', async () => {
    const r = await search({ query: 'Rename' })
    expect(r.sessions?.filter((g) => g.titleMatch).map((g) => g.sessionId)).toEqual(['chain-3'])
  })
})
