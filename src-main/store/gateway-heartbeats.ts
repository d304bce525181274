/**
 * Upstream's `gateway_heartbeats` (hermes-spec: backend_id, pid, started_at, last_heartbeat, profile,
 * host). Read only: an upstream gateway writes it; Caduceus asks whether one is alive for a profile, so
 * its own cron scheduler stands down and the two never run the same jobs.
 */
import type Database from 'better-sqlite3'

export interface GatewayHeartbeat {
  backendId: string
  pid: number
  lastHeartbeat: number
  host: string
}

/** Heartbeats older than this are a crashed or stopped gateway. */
export const HEARTBEAT_STALE_SECONDS = 120

export function liveUpstreamGateway(
  db: Database.Database,
  profile: string,
  nowSec: number,
  staleAfter = HEARTBEAT_STALE_SECONDS
): GatewayHeartbeat | null {
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'gateway_heartbeats'").get()
  if (!exists) return null
  // A row with an empty profile predates per-profile heartbeats: it speaks for the DB's own profile.
  const row = db
    .prepare(
      `SELECT backend_id, pid, last_heartbeat, host FROM gateway_heartbeats
     WHERE last_heartbeat >= ? AND (profile = '' OR profile = ?) ORDER BY last_heartbeat DESC LIMIT 1`
    )
    .get(nowSec - staleAfter, profile) as
    { backend_id: string; pid: number; last_heartbeat: number; host: string } | undefined
  return row ? { backendId: row.backend_id, pid: row.pid, lastHeartbeat: row.last_heartbeat, host: row.host } : null
}
