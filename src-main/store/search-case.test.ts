// Caseless search beyond ASCII: SQLite's lower() folds only A–Z, so a title "Übersicht Plan" was not found by
// "Übersicht" or "übersicht" (the term lowercased in JavaScript, the title left as written). Titles and the
// substring scan fold with the store's own Unicode-aware SQL function, on every connection the store opens.
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { SessionStore } from './index'
import { foldCase } from './fold'
import { cleanupTempDirs, tempDir } from './test-fixtures/tmp'

afterAll(cleanupTempDirs)

async function home(titles: Record<string, string>, messages: Record<string, string> = {}) {
  const path = join(tempDir('cad-search-case-'), 'state.db')
  const writer = new SessionStore(path, { profile: 'default' })
  for (const [id, title] of Object.entries(titles)) {
    await writer.createSession(id, 'cli')
    await writer.setTitle(id, title, 'user')
  }
  for (const [id, content] of Object.entries(messages)) {
    await writer.createSession(id, 'cli')
    await writer.appendMessage(id, { role: 'user', content })
  }
  writer.close()
  return path
}

const titleIds = (store: SessionStore, q: string) =>
  store
    .searchFull({ query: q })
    .titles.map((t) => t.sessionId)
    .sort()

describe('caseless search beyond ASCII', () => {
  it('matches titles whatever the case of their non-ASCII letters', async () => {
    const path = await home({ a: 'Übersicht Plan', b: 'ZÜRICH PLAN', c: 'ΟΔΟΣ ΠΡΟΣ', d: 'Straße', e: 'İSTANBUL trip' })
    const store = new SessionStore(path, { profile: 'default' }) // a fresh connection on an existing file
    try {
      for (const q of ['Übersicht', 'übersicht', 'ÜBERSICHT']) expect(titleIds(store, q), q).toEqual(['a'])
      expect(titleIds(store, 'zürich')).toEqual(['b'])
      expect(titleIds(store, 'Zürich plan')).toEqual(['b'])
      expect(titleIds(store, 'οδος')).toEqual(['c']) // the final sigma folds as the other one
      expect(titleIds(store, 'STRAẞE')).toEqual(['d'])
      expect(titleIds(store, 'plan')).toEqual(['a', 'b'])
      // İ folds to a plain i, as SQLite's word index folds it: the native ASCII path and the Unicode one agree
      for (const q of ['istanbul', 'İstanbul', 'ISTANBUL', 'istanbul trip'])
        expect(titleIds(store, q), q).toEqual(['e'])
      expect(titleIds(store, 'trip')).toEqual(['e'])
    } finally {
      store.close()
    }
  })

  it('matches in the substring scan, and on a store that created its file on its first write', async () => {
    const path = join(tempDir('cad-search-case-'), 'state.db')
    const store = new SessionStore(path, { profile: 'default', lazyCreate: true })
    try {
      expect(store.searchFull({ query: 'ü€' }).message).toBeUndefined() // the function exists before the file does
      await store.createSession('s', 'cli')
      await store.appendMessage('s', { role: 'user', content: 'Preis: Ü€ 5' })
      await store.createSession('t', 'cli')
      await store.setTitle('t', 'Ärger', 'user')
      // two characters with a symbol: no word or trigram index answers it, the scan does
      const r = store.searchFull({ query: 'ü€' })
      expect(r.message).toBeUndefined()
      expect(r.hits.map((h) => h.sessionId)).toEqual(['s'])
      expect(titleIds(store, 'ärger')).toEqual(['t'])
    } finally {
      store.close()
    }
  })
})

describe('snippets', () => {
  it('highlight the matched text, not text shifted by a character whose lowercase is longer', async () => {
    const path = await home({}, { s: 'İSTANBUL İZMİR hello world', t: 'Ärger über ÜBER' })
    const store = new SessionStore(path, { profile: 'default' })
    try {
      const marked = (q: string) =>
        store.searchFull({ query: q }).hits.map((h) => h.snippet.filter((p) => p.hit).map((p) => p.text))
      expect(marked('hello')).toEqual([['hello']])
      expect(marked('istanbul')).toEqual([['İSTANBUL']])
      expect(marked('izmir hello')).toEqual([['İZMİR', 'hello']])
      expect(marked('über')).toEqual([['über', 'ÜBER']])
      const [hit] = store.searchFull({ query: 'world' }).hits
      expect(hit!.snippet.map((p) => p.text).join('')).toBe('İSTANBUL İZMİR hello world')
    } finally {
      store.close()
    }
  })

  it('mark words where the word index matched them, never the same letters inside another word', async () => {
    // `heat*` is a word prefix: it matched heater and heatmap, not the "heat" inside theater
    const path = await home({}, { s: 'the theater heater and a heatmap', t: 'price 東京タワー$100 tower' })
    const store = new SessionStore(path, { profile: 'default' })
    try {
      const marked = (q: string) =>
        store.searchFull({ query: q }).hits.map((h) => h.snippet.filter((p) => p.hit).map((p) => p.text))
      expect(marked('heat*')).toEqual([['heater', 'heatmap']])
      expect(marked('heater')).toEqual([['heater']])
      expect(marked('heater OR theater')).toEqual([['theater', 'heater']])
      expect(marked('"theater heater"')).toEqual([['theater heater']])
      // substring terms (CJK, symbols) are marked wherever they are
      expect(marked('東京')).toEqual([['東京']])
      expect(marked('$100')).toEqual([['$100']])
      expect(marked('tow*')).toEqual([['tower']])
    } finally {
      store.close()
    }
  })

  it('rest on a fold that keeps every character the length it had', () => {
    const longer: string[] = []
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue
      const ch = String.fromCodePoint(cp)
      if (foldCase(ch).length !== ch.length) longer.push(cp.toString(16))
    }
    expect(longer).toEqual([])
  })
})
