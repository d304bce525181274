// A compression chain with more than one candidate continuation, as upstream's own code leaves one (a gateway racing
// its compressor, a stale socket's sibling, two children each compressed in turn, two live twins):
// scripts/golden/compression_race.py → test/fixtures/upstream/compression-race. Upstream lists each conversation
// once, at the tip its get_compression_tip chooses; Caduceus's list, search, chain and resume must choose the same.
import { copyFileSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { StoreRegistry } from '../src-main/store'
import { cleanupTempDirs, tempDir } from '../src-main/store/test-fixtures/tmp'

const gold = resolve(import.meta.dirname, 'fixtures/upstream/compression-race')
const G = JSON.parse(readFileSync(join(gold, 'upstream.json'), 'utf8')) as {
  list: Array<[string, string | null]>
  tips: Record<string, string>
}
afterAll(cleanupTempDirs)

function registry(): StoreRegistry {
  const home = tempDir('cad-race-')
  copyFileSync(join(gold, 'state.db'), join(home, 'state.db'))
  return new StoreRegistry(home)
}

describe("sibling continuations: the chain goes on where upstream's goes on", () => {
  it("the list shows each conversation once, at upstream's tip, in upstream's order", () => {
    const reg = registry()
    const items = reg.get('default').listSessions({}).items
    expect(items.map((s) => [s.id, s.rootId === s.id ? null : s.rootId])).toEqual(G.list)
    reg.closeAll()
  })

  it('search finds a passed-over sibling only among child sessions, as the list shows it', () => {
    const reg = registry()
    const ids = (includeChildren: boolean) =>
      reg.searchAll({ query: 'messaged', filters: { includeChildren } }).hits.map((h) => h.sessionId)
    // fork-a2 continues the child the chain passed over; fork-b is the chosen chain's own segment
    expect(ids(false).sort()).toEqual(['fork-b'])
    expect(ids(true).sort()).toEqual(['fork-a2', 'fork-b'])
    reg.closeAll()
  })

  it("a passed-over sibling's row names the root the filter judged it by, and is archived as that root is", () => {
    const home = tempDir('cad-race-')
    copyFileSync(join(gold, 'state.db'), join(home, 'state.db'))
    // the chains' roots archived by another program, row by row: the chosen segments go with their root (a chain
    // is archived by its root's flag); a sibling the chain passed over is judged by itself
    const db = new Database(join(home, 'state.db'))
    db.prepare("UPDATE sessions SET archived = 1 WHERE id IN ('race-root', 'fork-root')").run()
    db.close()
    const reg = new StoreRegistry(home)
    const store = reg.get('default')
    const rows = (archived: 'exclude' | 'only') =>
      Object.fromEntries(
        store
          .listSessions({ includeChildren: true, archived, limit: 100 })
          .items.map((s) => [s.id, [s.rootId, s.chainLength, s.archived]])
      )
    const shown = rows('exclude')
    // race-stale and twins-late were passed over; fork-a too, and fork-a2 continues it (a chain of its own, from fork-a)
    expect(shown['race-stale']).toEqual(['race-stale', 1, false])
    expect(shown['fork-a']).toEqual(['fork-a', 1, false])
    expect(shown['fork-a2']).toEqual(['fork-a', 2, false])
    expect(shown['twins-late']).toEqual(['twins-late', 1, false])
    expect(shown['race-live']).toBeUndefined() // the chosen continuation goes with its archived root
    expect(rows('only')['race-live']).toEqual(['race-root', 2, true])
    // a single-row read says the same as the page
    for (const id of ['race-stale', 'fork-a2', 'race-live']) {
      const s = store.summary(id)!
      expect([id, s.rootId, s.chainLength, s.archived]).toEqual([id, ...(shown[id] ?? rows('only')[id])])
    }
    reg.closeAll()
  })

  it("resuming any compressed segment continues upstream's tip; its chain is the chosen path", () => {
    const reg = registry()
    const store = reg.get('default')
    for (const [id, tip] of Object.entries(G.tips)) expect([id, store.resolveResumeSessionId(id)]).toEqual([id, tip])
    expect(store.compressionChainIds('twins-root')).toEqual(['twins-root', 'twins-early'])
    expect(store.compressionChainIds('fork-root')).toEqual(['fork-root', 'fork-b', 'fork-b2'])
    reg.closeAll()
  })
})
