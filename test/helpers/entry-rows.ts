// The rows upstream's own entry points write (scripts/golden/entry_rows.py, test/fixtures/upstream/entry-rows): the
// columns of a session row that depend neither on the provider nor on the conversation, per entry point, and how many
// rows upstream's `hermes status` counts as live gateway sessions once they all ran.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'

export const ENTRY_ROWS = JSON.parse(
  readFileSync(join(import.meta.dirname, '../fixtures/upstream/entry-rows/golden.json'), 'utf8')
) as {
  gatewayActive: number
  usage: Record<'chat' | 'responses', Record<string, number>>
  entries: Record<string, { session: Record<string, unknown> }>
}

const SHARED = [
  'source',
  'user_id',
  'session_key',
  'model_config',
  'parent_session_id',
  'ended_at',
  'end_reason',
  'estimated_cost_usd',
  'actual_cost_usd',
  'billing_mode',
  'cost_status',
  'cost_source',
  'pricing_version',
  'title'
] as const

/** The shared columns of a session row in `file`, its end time as the golden writes it ("set" or null). */
export function sharedColumns(file: string, id: string): Record<string, unknown> {
  const db = new Database(file, { readonly: true })
  try {
    const row = db.prepare('SELECT * FROM sessions WHERE id = ?').get(id) as Record<string, unknown>
    return Object.fromEntries(SHARED.map((c) => [c, c === 'ended_at' ? (row[c] == null ? null : 'set') : row[c]]))
  } finally {
    db.close()
  }
}

/** The same columns of upstream's row for `entry` (a cron title's clock reads `<Mon DD HH:MM>`). */
export const entryGolden = (entry: string): Record<string, unknown> =>
  Object.fromEntries(SHARED.map((c) => [c, ENTRY_ROWS.entries[entry]!.session[c]]))
