/**
 * FTS rows whose text holds a NUL byte (upstream's multimodal marker "\0json:") are tokenized differently by
 * different SQLite versions: the trigram tokenizer of 3.40 (Debian's Python, upstream's usual SQLite) stops at
 * the NUL, 3.53 (better-sqlite3) reads through it. FTS5 removes a row by re-tokenizing its text, so when this
 * SQLite removes a row another SQLite indexed, it would remove tokens that were never there and corrupt the
 * index for both. Each table records per row how many tokens were indexed (`<t>_docsize`), which tells which
 * tokenization built the row:
 * - before Caduceus removes or rewrites such a row (`adoptNulRows`), a row built "up to the NUL" is re-based:
 *   its prefix tokens removed, its full text re-indexed by this SQLite, so the trigger's own removal is exact;
 *   a row matching neither tokenization is refused, never guessed;
 * - after Caduceus inserts such a row (`normalizeNulRows`), it is re-indexed "up to the NUL", as upstream's
 *   SQLite indexes it — trigram tables only: unicode61 reads through the NUL in every version (a contentful
 *   table then also stores only the prefix, which every SQLite version tokenizes alike).
 */
import type Database from 'better-sqlite3'
import { CaduceusError } from '@shared/contract'
import { stmt, type ColumnsOf } from './stmt-cache'
import type { messages, sqliteMaster } from './schema'
import { errorMessage } from '@shared/contract/errors'

type MasterColumns = ColumnsOf<typeof sqliteMaster, 'name' | 'sql'>

interface FtsTable {
  name: string
  cols: string[]
  tokenize: string | null
  contentful: boolean
}

const qi = (s: string) => `"${s.replace(/"/g, '""')}"`

/** FTS5 tables that keep per-row sizes (the default), i.e. every index upstream or Caduceus creates. */
function ftsTables(db: Database.Database): FtsTable[] {
  // `sql LIKE …` holds only where sql is not NULL.
  const rows = stmt<{ name: MasterColumns['name']; sql: NonNullable<MasterColumns['sql']> }>(
    db,
    `SELECT name, sql FROM main.sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%fts5%'
      AND EXISTS (SELECT 1 FROM main.sqlite_master d WHERE d.name = sqlite_master.name || '_docsize')`
  ).all()
  return rows.map(({ name, sql }) => {
    const body = sql.slice(sql.indexOf('(') + 1, sql.lastIndexOf(')'))
    const args = body.split(',').map((a) => a.trim())
    const opt = (k: string) => {
      const a = args.find((x) => new RegExp(`^${k}\\s*=`, 'i').test(x))
      return a ? a.replace(/^[^=]*=\s*/, '').replace(/^['"]|['"]$/g, '') : null
    }
    const content = opt('content')
    return {
      name,
      cols: args.filter((a) => !a.includes('=')).map((a) => a.split(/\s+/)[0]!.replace(/^["'`]|["'`]$/g, '')),
      tokenize: opt('tokenize'),
      contentful: content === null
    }
  })
}

/**
 * The varints of an FTS5 record (a row's `_docsize`, the table's averages record): SQLite's own format, 7 bits a
 * byte, most significant first, the high bit saying another byte follows; a 9th byte carries 8 bits.
 */
export function ftsVarints(buf: Buffer): number[] {
  const out: number[] = []
  let v = 0
  let n = 0
  for (const b of buf) {
    if (n === 8) {
      out.push(v * 256 + b)
      v = n = 0
      continue
    }
    v = v * 128 + (b & 0x7f)
    n++
    if (!(b & 0x80)) {
      out.push(v)
      v = n = 0
    }
  }
  return out
}

const recorded = (db: Database.Database, t: FtsTable, rowid: number): number[] | null => {
  const sz = stmt<Buffer>(db, `SELECT sz FROM main.${qi(t.name + '_docsize')} WHERE id = ?`)
    .pluck()
    .get(rowid)
  return sz ? ftsVarints(sz) : null
}

/** Token counts this SQLite gives `values` under `t`'s tokenizer (a TEMP scratch table, emptied after). */
function counts(db: Database.Database, t: FtsTable, values: unknown[]): number[] {
  const scratch = `cad_tokcount_${t.cols.length}_${(t.tokenize ?? 'default').replace(/\W/g, '_')}`
  const cols = t.cols.map((_, i) => `c${i}`).join(', ')
  db.exec(
    `CREATE VIRTUAL TABLE IF NOT EXISTS temp.${scratch} USING fts5(${cols}${t.tokenize ? `, tokenize=${qi(t.tokenize).replace(/"/g, "'")}` : ''})`
  )
  db.prepare(`INSERT INTO temp.${scratch}(rowid, ${cols}) VALUES (1, ${t.cols.map(() => '?').join(', ')})`).run(
    ...values
  )
  const sz = db.prepare<unknown[], Buffer>(`SELECT sz FROM temp.${scratch}_docsize WHERE id = 1`).pluck().get()!
  db.prepare(`DELETE FROM temp.${scratch} WHERE rowid = 1`).run()
  return ftsVarints(sz)
}

const hasNul = (v: unknown) => typeof v === 'string' && v.includes('\u0000')
const prefix = (v: unknown) => (typeof v === 'string' && v.includes('\u0000') ? v.slice(0, v.indexOf('\u0000')) : v)
const same = (a: number[], b: number[]) => a.length === b.length && a.every((x, i) => x === b[i])

/** The values of `rowid` as each FTS table sees them (content table or external-content view). */
function valuesOf(db: Database.Database, t: FtsTable, rowid: number): unknown[] | null {
  const row = stmt<unknown[]>(db, `SELECT ${t.cols.map(qi).join(', ')} FROM main.${qi(t.name)} WHERE rowid = ?`)
    .raw()
    .get(rowid)
  return row ?? null
}

function removeAs(db: Database.Database, t: FtsTable, rowid: number, values: unknown[]): void {
  const ph = t.cols.map(() => '?').join(', ')
  if (t.contentful) {
    // A contentful table re-tokenizes its stored copy on removal: store the text as it was tokenized first.
    // Shadow tables are read-only in defensive mode; lifted for this one statement only.
    db.unsafeMode(true)
    try {
      db.prepare(
        `UPDATE main.${qi(t.name + '_content')} SET ${t.cols.map((_, i) => `c${i} = ?`).join(', ')} WHERE id = ?`
      ).run(...values, rowid)
    } finally {
      db.unsafeMode(false)
    }
    db.prepare(`DELETE FROM main.${qi(t.name)} WHERE rowid = ?`).run(rowid)
  } else
    db.prepare(
      `INSERT INTO main.${qi(t.name)}(${qi(t.name)}, rowid, ${t.cols.map(qi).join(', ')}) VALUES ('delete', ?, ${ph})`
    ).run(rowid, ...values)
}

const insertAs = (db: Database.Database, t: FtsTable, rowid: number, values: unknown[]) =>
  db
    .prepare(
      `INSERT INTO main.${qi(t.name)}(rowid, ${t.cols.map(qi).join(', ')}) VALUES (?, ${t.cols.map(() => '?').join(', ')})`
    )
    .run(rowid, ...values)

/** Message ids of `sessionIds` whose text holds a NUL byte (the only rows tokenizers disagree on). */
export function nulMessageIds(db: Database.Database, sessionIds: string[]): number[] {
  const q = stmt<(typeof messages.$inferSelect)['id']>(
    db,
    `SELECT id FROM main.messages WHERE session_id = ? AND (instr(CAST(content AS BLOB), X'00') > 0
      OR instr(CAST(tool_calls AS BLOB), X'00') > 0 OR instr(CAST(tool_name AS BLOB), X'00') > 0)`
  ).pluck()
  return sessionIds.flatMap((s) => q.all(s))
}

/**
 * Whether this SQLite can load `t`'s tokenizer. One it cannot (upstream's optional `cjk_unicode61`) has had its
 * sync triggers dropped by the first write (reconcile.ts detachUnservableCjk), so no removal here reaches it.
 */
function tokenizerLoads(db: Database.Database, t: FtsTable): boolean {
  try {
    counts(
      db,
      t,
      t.cols.map(() => null)
    )
    return true
  } catch (e) {
    if (/no such tokenizer/i.test(errorMessage(e))) return false
    throw e
  }
}

/** Before removing/rewriting `rowids`: re-base rows another SQLite indexed so this SQLite's removal is exact. */
export function adoptNulRows(db: Database.Database, rowids: number[]): void {
  if (rowids.length === 0) return
  for (const t of ftsTables(db).filter((x) => tokenizerLoads(db, x))) {
    for (const id of rowids) {
      const values = valuesOf(db, t, id)
      const have = values && values.some(hasNul) ? recorded(db, t, id) : null
      if (!values || !have || same(have, counts(db, t, values))) continue
      const cut = values.map(prefix)
      if (!same(have, counts(db, t, cut)))
        throw new CaduceusError(
          'refused',
          `message ${id} in ${t.name} was indexed by a SQLite whose tokenization Caduceus cannot reproduce; ` +
            'nothing was changed — remove it with the program that wrote it'
        )
      removeAs(db, t, id, cut)
      insertAs(db, t, id, values)
    }
  }
}

/** After inserting `rowids` (marked content): index them "up to the NUL", as upstream's SQLite does. */
export function normalizeNulRows(db: Database.Database, rowids: number[]): void {
  if (rowids.length === 0) return
  // unicode61 reads through the NUL in every version; only the trigram tokenizer disagrees
  for (const t of ftsTables(db).filter((x) => /^trigram\b/i.test(x.tokenize ?? ''))) {
    for (const id of rowids) {
      const values = valuesOf(db, t, id)
      if (!values || !values.some(hasNul) || !recorded(db, t, id)) continue
      if (t.contentful) db.prepare(`DELETE FROM main.${qi(t.name)} WHERE rowid = ?`).run(id)
      else removeAs(db, t, id, values)
      insertAs(db, t, id, values.map(prefix))
    }
  }
}
