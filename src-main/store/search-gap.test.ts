/**
 * Search on homes whose upstream FTS indexes do not hold every row, by upstream's own markers in `state_meta`
 * (hermes-spec §1.3): in the middle of its deferred rebuild (rows in (fts_rebuild_progress, fts_rebuild_high_water]
 * are in no index yet), and after it marked the indexes stale (`fts_stale`, sync triggers detached). The homes are
 * scripts/golden/search_complete.py's v30-rebuild.db and v30-stale.db: upstream's v30 DDL, and the marker states
 * built with the SQL that spec gives (the v21 fork has neither). The truth for each home is the same file with its
 * indexes rebuilt whole and the markers gone: a search must answer alike on both, and say what it scanned.
 * Caduceus's writes on such a home leave it as upstream's rebuild and checks expect it: judged by the system
 * Python's SQLite (upstream's), after its rebuild finishes, with FTS5's integrity-check against the content.
 */
import { execFileSync } from 'node:child_process'
import { copyFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import type { SearchResult } from '@shared/contract'
import { StoreRegistry } from './index'
import { cleanupTempDirs, tempDir } from './test-fixtures/tmp'
import { makeHome } from './test-fixtures/homes'
import { txDb } from './write-tx'
import { shortIndexStep } from './short-index'
import { SYSTEM_PYTHON, hasSystemPython } from '../../test/support/fts-integrity'

afterAll(cleanupTempDirs)

const fixture = (name: string) => resolve(import.meta.dirname, '../../test/fixtures/upstream/search-complete', name)

// words (a prefix, a non-word, a phrase, NOT, NEAR, ^, a column), 2- and 3+-character CJK, symbols, mixed trees
const QUERIES = [
  'plain',
  'lau*',
  'launc',
  '"plain words"',
  'plain NOT budget',
  'NEAR(plain words, 2)',
  '^plain',
  'tool_calls:terminal',
  'quokka',
  '北京',
  '北京大学',
  '$100',
  '北京 AND plain',
  'launch NOT 北京',
  // FTS5 reads an accented letter as its base letter, in either case
  'resume',
  'RÉSUMÉ*'
]
/** The terms Caduceus's short-text index answers. */
const SHORT = ['北京', '$100', '北京 AND plain']

/** Each query's matching sessions with their counts, and the page of hit ids. */
function answers(
  reg: StoreRegistry,
  queries = QUERIES
): Record<string, { sessions: Record<string, number>; ids: number[] }> {
  const out: Record<string, { sessions: Record<string, number>; ids: number[] }> = {}
  for (const query of queries) {
    const r: SearchResult = reg.searchAll({ query, limit: 200, filters: { includeChildren: true } })
    expect(r.message, query).toBeUndefined()
    out[query] = {
      sessions: Object.fromEntries((r.sessions ?? []).map((g) => [g.sessionId, g.hits])),
      ids: r.hits.map((h) => h.messageId)
    }
  }
  return out
}

/** The same home with upstream's indexes whole: rebuilt from their sources, markers gone, triggers back. */
function whole(from: string): StoreRegistry {
  const root = tempDir()
  const path = join(root, 'state.db')
  copyFileSync(from, path)
  const db = new Database(path)
  db.exec(`INSERT INTO messages_fts(messages_fts) VALUES('rebuild');
    INSERT INTO messages_fts_trigram(messages_fts_trigram) VALUES('rebuild');
    DELETE FROM state_meta WHERE key IN ('fts_rebuild_high_water', 'fts_rebuild_progress', 'fts_stale')`)
  db.close()
  return new StoreRegistry(root)
}

function copied(name: string): { reg: StoreRegistry; path: string } {
  const root = tempDir()
  const path = join(root, 'state.db')
  copyFileSync(fixture(name), path)
  return { reg: new StoreRegistry(root), path }
}

/**
 * Upstream's view, one Python run for every file: a file still mid-rebuild has the rebuild finished first as its
 * worker does (each row of the marked range that no index holds, from the index's own source view; markers
 * dropped), then FTS5's integrity-check on every FTS table, against the content (rank 1) where `content` is set.
 */
const CHECK = `
import json, sqlite3, sys
out = {}
for arg in sys.argv[1:]:
    path, content = arg.rsplit("|", 1)
    c = sqlite3.connect(path)
    meta = dict(c.execute("SELECT key, value FROM state_meta"))
    if "fts_rebuild_high_water" in meta:
        lo, hi = int(meta.get("fts_rebuild_progress", "0")), int(meta["fts_rebuild_high_water"])
        c.execute("INSERT INTO messages_fts(rowid, content, tool_name, tool_calls) SELECT id, content, tool_name, tool_calls "
                  "FROM messages_fts_src s WHERE id > ? AND id <= ? AND NOT EXISTS (SELECT 1 FROM messages_fts_docsize d WHERE d.id = s.id)", (lo, hi))
        c.execute("INSERT INTO messages_fts_trigram(rowid, content, tool_name) SELECT id, content, tool_name "
                  "FROM messages_fts_trigram_src s WHERE id > ? AND id <= ? AND NOT EXISTS (SELECT 1 FROM messages_fts_trigram_docsize d WHERE d.id = s.id)", (lo, hi))
        c.execute("DELETE FROM state_meta WHERE key IN ('fts_rebuild_high_water', 'fts_rebuild_progress')")
        c.commit()
    res = {}
    for (t,) in c.execute("SELECT name FROM sqlite_master WHERE sql LIKE 'CREATE VIRTUAL TABLE%fts5%'"):
        try:
            c.execute(f"INSERT INTO {t}({t}, rank) VALUES('integrity-check', ?)", (int(content),)); res[t] = "ok"
        except sqlite3.DatabaseError as e:
            res[t] = str(e)
    res["triggers"] = sorted(r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'messages_fts%'"))
    res["stale"] = meta.get("fts_stale")
    out[path] = res
print(json.dumps(out))
`
type Verdict = Record<string, string | string[] | null>
const upstreamView = (files: Array<[string, 0 | 1]>): Record<string, Verdict> =>
  JSON.parse(
    execFileSync(SYSTEM_PYTHON, ['-c', CHECK, ...files.map(([p, c]) => `${p}|${c}`)], { encoding: 'utf8' })
  ) as Record<string, Verdict>

describe('search where upstream’s indexes do not hold every row', () => {
  it('mid-rebuild: the rows no index holds yet are scanned (that range only), word semantics kept', async () => {
    const { reg, path } = copied('v30-rebuild.db')
    // a row the rebuild has not reached, given accented text (upstream's gated update trigger leaves the index alone)
    const raw = new Database(path)
    raw.prepare("UPDATE messages SET content = 'Résumé sent: the RÉSUMÉ is plain' WHERE id = 150").run()
    raw.close()
    const truth = whole(path)
    try {
      const want = answers(truth)
      // the gap matters: a word and a 3+ character CJK term have hits in the rows no index holds
      for (const q of ['plain', '北京大学', 'resume'])
        expect(
          want[q]!.ids.some((id) => id > 100 && id <= 180),
          q
        ).toBe(true)
      expect(answers(reg)).toEqual(want)
      const r = reg.searchAll({ query: 'plain', limit: 5 })
      expect(r.fallback).toBe(
        "Upstream's search index is being rebuilt and does not hold messages 101–180 yet: those rows were scanned."
      )
      // a substring term says it too, after what the indexes answered
      expect(reg.searchAll({ query: '北京大学', limit: 5 }).fallback).toMatch(
        /^Not a word search: .*\. Upstream's search index is being rebuilt .*messages 101–180/
      )
      // Caduceus's short-text index changes nothing
      const s = reg.get('default')
      await s.write((tx) => shortIndexStep(txDb(tx), s.shape, { budgetMs: Number.POSITIVE_INFINITY }))
      expect(answers(reg, SHORT)).toEqual(answers(truth, SHORT))
    } finally {
      reg.closeAll()
      truth.closeAll()
    }
  })

  it('stale (fts_stale): every row is scanned, the index is not trusted for what it still holds', () => {
    const { reg, path } = copied('v30-stale.db')
    // rows where a plain word stands as a token, surely (between spaces, any case), or maybe (beside punctuation,
    // inside a longer word, past the 8,192 characters of tool output the index holds, in a NULL column's row): the
    // scan takes the sure ones as they are and leaves the rest to FTS5
    const raw = new Database(path)
    const add = raw.prepare(
      "INSERT INTO messages (session_id, role, content, tool_name, timestamp) VALUES ('s00', ?, ?, ?, 1700000000)"
    )
    raw.transaction(() => {
      for (const [role, content, tool] of [
        ['user', 'PLAIN words, said plainly', null],
        ['user', 'Plain, words. budget', null],
        ['assistant', 'plainly budgets', 'plain'],
        ['user', 'plain budgets here', null],
        ['tool', `${'x'.repeat(8190)} plain words`, 'terminal'],
        ['tool', `${'x'.repeat(8180)} plain words`, null]
      ] as const)
        add.run(role, content, tool)
    })()
    raw.close()
    const truth = whole(path)
    try {
      const extra = [
        'plain*',
        'plain NOT budget*',
        'plain NOT budgets',
        '(plain OR words) NOT budget',
        'plain AND words',
        'plain OR budget',
        'pl*'
      ]
      const want = answers(truth, [...QUERIES, ...extra])
      // the rewritten row's new word is found, its old words are not
      expect(Object.keys(want['quokka']!.sessions)).toEqual(['s00'])
      expect(answers(reg, [...QUERIES, ...extra])).toEqual(want)
      expect(reg.searchAll({ query: 'quokka', limit: 5 }).fallback).toBe(
        'Upstream marked its search index stale (fts_stale): every message was scanned.'
      )
    } finally {
      reg.closeAll()
      truth.closeAll()
    }
  })

  it.skipIf(!hasSystemPython)(
    'Caduceus’s writes honour the rebuild gate and leave a stale index detached, as upstream’s SQLite judges',
    async () => {
      // upstream's DDL mid-rebuild, and a home Caduceus created (its own gated triggers) put in the same state
      const rebuilding = copied('v30-rebuild.db')
      const ownRoot = tempDir()
      const ownPath = makeHome(ownRoot, 30)
      const own = new StoreRegistry(ownRoot)
      const stale = copied('v30-stale.db')
      try {
        const o = own.get('default')
        await o.createSession('early', 'cli')
        await o.appendMessages(
          'early',
          Array.from({ length: 6 }, (_, i) => ({ role: 'user' as const, content: `early row ${i} 北京 heater` }))
        )
        const raw = new Database(ownPath)
        // rows 3..6 not indexed yet, as upstream's rebuild leaves them: emptied, then 1..2 backfilled
        raw.exec(`INSERT INTO messages_fts(messages_fts) VALUES('delete-all');
          INSERT INTO messages_fts_trigram(messages_fts_trigram) VALUES('delete-all');
          INSERT INTO state_meta(key, value) VALUES ('fts_rebuild_high_water', '6'), ('fts_rebuild_progress', '2');
          INSERT INTO messages_fts(rowid, content, tool_name, tool_calls)
            SELECT id, content, tool_name, tool_calls FROM messages_fts_src WHERE id <= 2;
          INSERT INTO messages_fts_trigram(rowid, content, tool_name)
            SELECT id, content, tool_name FROM messages_fts_trigram_src WHERE id <= 2;`)
        raw.close()
        for (const reg of [rebuilding.reg, own, stale.reg]) {
          const s = reg.get('default')
          await s.createSession('cad', 'cli')
          await s.appendMessages('cad', [
            { role: 'user', content: 'written by Caduceus: 北京 heater' },
            { role: 'assistant', content: 'noted' }
          ])
        }
        // deletes across the gate: a session with rows on both sides of the progress marker, one wholly inside
        const r = rebuilding.reg.get('default')
        const across = new Database(rebuilding.path, { readonly: true })
          .prepare(
            'SELECT session_id FROM messages WHERE id IN (99, 100, 101) GROUP BY session_id ORDER BY count(*) DESC'
          )
          .pluck()
          .get() as string
        await r.deleteSession(across)
        await r.deleteSession('s30')
        await own.get('default').deleteSession('early')
        await stale.reg.get('default').deleteSession('s01')
        // Caduceus wrote on the stale home without putting upstream's sync triggers back
        expect(
          new Database(stale.path, { readonly: true })
            .prepare("SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'messages_fts%'")
            .pluck()
            .get()
        ).toBe(0)
        // the search still finds what Caduceus wrote on each
        for (const reg of [rebuilding.reg, own, stale.reg])
          expect(reg.searchAll({ query: 'heater', limit: 50 }).hits.map((h) => h.sessionId)).toContain('cad')
        for (const reg of [rebuilding.reg, own, stale.reg]) reg.closeAll()
        const view = upstreamView([
          [rebuilding.path, 1],
          [ownPath, 1],
          [stale.path, 0]
        ])
        for (const p of [rebuilding.path, ownPath])
          expect(view[p], p).toMatchObject({ messages_fts: 'ok', messages_fts_trigram: 'ok' })
        expect(view[stale.path]).toEqual({
          messages_fts: 'ok',
          messages_fts_trigram: 'ok',
          triggers: [],
          stale: '1'
        })
      } finally {
        for (const reg of [rebuilding.reg, own, stale.reg]) reg.closeAll()
      }
    }
  )
})

describe('the rebuild gate of the FTS triggers Caduceus creates', () => {
  it('reads the markers exactly as upstream’s triggers do, a marker without a value included', async () => {
    // upstream's own triggers (v30.db) and the ones Caduceus creates in a new v30 home, with the same markers
    const theirs = copied('v30.db')
    const ownRoot = tempDir()
    const own = { reg: new StoreRegistry(ownRoot), path: makeHome(ownRoot, 30) }
    try {
      const indexed: Record<string, boolean[]> = {}
      for (const [name, h] of Object.entries({ theirs, own })) {
        const s = h.reg.get('default')
        await s.createSession('gate', 'cli')
        const raw = new Database(h.path)
        const ids: number[] = []
        // a high water set without a value (upstream: no rebuild under way); a non-number (upstream: 0); a number
        for (const [high, progress] of [
          [null, null],
          ['n/a', null],
          ['ahead', '1']
        ] as const) {
          const next = (raw.prepare('SELECT COALESCE(MAX(id), 0) FROM messages').pluck().get() as number) + 1
          raw.exec("DELETE FROM state_meta WHERE key IN ('fts_rebuild_high_water', 'fts_rebuild_progress')")
          raw
            .prepare("INSERT INTO state_meta(key, value) VALUES ('fts_rebuild_high_water', ?)")
            .run(high === 'ahead' ? String(next) : high)
          if (progress !== null)
            raw.prepare("INSERT INTO state_meta(key, value) VALUES ('fts_rebuild_progress', ?)").run(progress)
          ids.push(await s.appendMessage('gate', { role: 'user', content: `gate ${String(high)}` }))
        }
        ids.push(await s.appendMessage('gate', { role: 'user', content: 'past the high water' }))
        indexed[name] = ids.map(
          (id) => raw.prepare('SELECT count(*) FROM messages_fts_docsize WHERE id = ?').pluck().get(id) === 1
        )
        raw.exec("DELETE FROM state_meta WHERE key IN ('fts_rebuild_high_water', 'fts_rebuild_progress')")
        raw.close()
      }
      expect(indexed.theirs).toEqual([true, true, false, true])
      expect(indexed.own).toEqual(indexed.theirs)
    } finally {
      theirs.reg.closeAll()
      own.reg.closeAll()
    }
  })
})
