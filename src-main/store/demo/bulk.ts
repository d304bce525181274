/**
 * Bulk generator for the bench: raw prepared inserts, one transaction per ~1k rows. Counters are set
 * to match the rows written, so the data is consistent with what appendMessage would produce.
 * The per-row FTS insert trigger is suspended and the new rows are indexed in one pass at the end
 * (several times faster); meant for fresh bench/demo DBs, not a DB other processes are writing.
 */
import { sqliteOf, type SessionStore } from '../session-store'
import { FTS_TRIGGER_SQL, TRIGRAM_TRIGGER_SQL } from '../schema'
import { Rng, sessionIdAt } from './rng'

export interface BulkOptions {
  sessions: number
  messagesPerSession: number
  seed?: number
  now?: number
}

// Some CJK text, so CJK search is measured on realistic data (every 16th message).
const CJK = ['数据库的索引需要重建', '東京の会議は明日です', '日本語の検索テスト', '服务器部署完成了', '缓存命中率很高']
const WORDS = (
  'agent session deploy review latency index query memory budget migrate schema profile cache token retry ' +
  'network parser vector search summary billing incident report plan draft trace metric queue worker cluster'
).split(' ')

export function generateBulk(store: SessionStore, opts: BulkOptions): { sessions: number; messages: number } {
  store.prepareWrite() // a lazily opened profile gets its file (and schema) before raw inserts
  const rng = new Rng(opts.seed ?? 7)
  const now = opts.now ?? 1796083200
  const perSession = Math.max(0, Math.floor(opts.messagesPerSession))
  const insertSession = sqliteOf(store)
    .prepare(`INSERT INTO sessions (id, source, model, started_at, ended_at, end_reason, message_count,
      tool_call_count, input_tokens, output_tokens, estimated_cost_usd, cost_status, api_call_count, title, last_activity_at, profile_name)
    VALUES (?, ?, 'demo-model', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
  const insertMessage = sqliteOf(store)
    .prepare(`INSERT INTO messages (session_id, role, content, tool_calls, tool_call_id, tool_name, timestamp)
    VALUES (?, ?, ?, ?, ?, ?, ?)`)
  const sentence = () => Array.from({ length: rng.int(6, 18) }, () => rng.pick(WORDS)).join(' ')
  let rows = 0
  let messages = 0
  const firstNewId = Number(
    sqliteOf(store).prepare<unknown[], number>('SELECT COALESCE(MAX(id), 0) FROM messages').pluck().get()
  )
  const sync = sqliteOf(store).pragma('synchronous', { simple: true })
  sqliteOf(store).pragma('synchronous = NORMAL') // WAL + NORMAL: durable at checkpoint, no fsync per commit
  sqliteOf(store).exec('BEGIN IMMEDIATE')
  sqliteOf(store).exec('DROP TRIGGER IF EXISTS messages_fts_insert')
  const trigram =
    sqliteOf(store).prepare("SELECT 1 FROM sqlite_master WHERE name = 'messages_fts_trigram_insert'").get() !==
    undefined
  sqliteOf(store).exec('DROP TRIGGER IF EXISTS messages_fts_trigram_insert')
  try {
    for (let i = 0; i < opts.sessions; i++) {
      const startedAt = now - (opts.sessions - i) * 60
      const id = sessionIdAt(startedAt, rng)
      const calls = Math.floor(perSession / 4)
      const priced = rng.chance(0.7)
      insertSession.run(
        id,
        rng.pick(['cli', 'tui', 'desktop', 'telegram']),
        startedAt,
        startedAt + perSession * 5,
        'cli_close',
        perSession,
        calls,
        perSession * 300,
        perSession * 80,
        priced ? perSession * 0.002 : null,
        priced ? 'estimated' : 'unknown',
        Math.ceil(perSession / 2),
        rng.chance(0.8) ? `${rng.pick(WORDS)} ${rng.pick(WORDS)} ${i}` : null,
        startedAt + perSession * 5,
        store.profile
      )
      for (let m = 0; m < perSession; m++) {
        const role = m % 4 === 0 ? 'user' : m % 4 === 2 ? 'tool' : 'assistant'
        const call = role === 'assistant' && m % 4 === 1 ? `call_${i}_${m}` : null
        insertMessage.run(
          id,
          role,
          (i * perSession + m) % 16 === 5 ? `${rng.pick(CJK)} ${sentence()}` : sentence(),
          call
            ? JSON.stringify([{ id: call, type: 'function', function: { name: 'terminal', arguments: '{}' } }])
            : null,
          role === 'tool' ? `call_${i}_${m - 1}` : null,
          role === 'tool' ? 'terminal' : null,
          startedAt + m * 5
        )
      }
      messages += perSession
      rows += 1 + perSession
      if (rows >= 1000) {
        sqliteOf(store).exec('COMMIT')
        sqliteOf(store).exec('BEGIN IMMEDIATE')
        rows = 0
      }
    }
    sqliteOf(store)
      .prepare(
        `INSERT INTO messages_fts(rowid, content, tool_name, tool_calls)
      SELECT id, content, tool_name, tool_calls FROM messages_fts_src WHERE id > ?`
      )
      .run(firstNewId)
    sqliteOf(store).exec(FTS_TRIGGER_SQL[0])
    if (trigram) {
      sqliteOf(store)
        .prepare(
          `INSERT INTO messages_fts_trigram(rowid, content, tool_name)
        SELECT id, content, tool_name FROM messages_fts_trigram_src WHERE id > ?`
        )
        .run(firstNewId)
      sqliteOf(store).exec(TRIGRAM_TRIGGER_SQL[0])
    }
    sqliteOf(store).exec('COMMIT')
  } catch (err) {
    if (sqliteOf(store).inTransaction) sqliteOf(store).exec('ROLLBACK')
    sqliteOf(store).exec(FTS_TRIGGER_SQL[0]) // IF NOT EXISTS: restores the trigger if a committed chunk had dropped it
    if (trigram) sqliteOf(store).exec(TRIGRAM_TRIGGER_SQL[0])
    throw err
  } finally {
    sqliteOf(store).pragma(`synchronous = ${Number(sync)}`)
  }
  return { sessions: opts.sessions, messages }
}
