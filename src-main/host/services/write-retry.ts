/**
 * How long a write that meets another process's lock on state.db is retried off the event loop before the
 * user is told (issue 10: at least 60 s by default). Per profile, in `config.yaml`:
 *
 *   caduceus:
 *     write_retry_seconds: 120
 *
 * The environment variable CADUCEUS_WRITE_RETRY_SECONDS overrides it for every profile (headless hosts,
 * tests). Values outside 0.1 s … 1 h are ignored.
 */
import { loadConfig, readSection } from '../../config'

export const DEFAULT_WRITE_RETRY_SECONDS = 60
const valid = (v: unknown): number | null => {
  const n = typeof v === 'string' && v.trim() ? Number(v) : v
  return typeof n === 'number' && Number.isFinite(n) && n >= 0.1 && n <= 3600 ? n : null
}

export function writeRetryMs(home: string, env: NodeJS.ProcessEnv = process.env): number {
  const s =
    valid(env.CADUCEUS_WRITE_RETRY_SECONDS) ?? valid(readSection(loadConfig(home).raw, 'caduceus').write_retry_seconds)
  return Math.round((s ?? DEFAULT_WRITE_RETRY_SECONDS) * 1000)
}

/**
 * The profile's `database.journal_mode` as upstream Hermes reads it (`wal` | `delete`; anything else means
 * WAL). Caduceus honours it at a profile's first write: `delete` leaves a rollback-journal home in that mode.
 */
export function journalModeSetting(home: string): string | undefined {
  const v = readSection(loadConfig(home).raw, 'database').journal_mode
  return typeof v === 'string' ? v : undefined
}
