/**
 * Upstream's `gateway_heartbeats` (hermes-spec: backend_id, pid, started_at, last_heartbeat, profile,
 * host). Read only: an upstream gateway writes it; Caduceus asks whether one is alive for a profile, so
 * its own cron scheduler stands down and the two never run the same jobs.
 */
import type Database from 'better-sqlite3'
import { and, desc, eq, gte, or } from 'drizzle-orm'
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3'
import { gatewayHeartbeats as g } from './schema'

export interface GatewayHeartbeat {
  backendId: string
  pid: number
  lastHeartbeat: number
  host: string
}

/** Heartbeats older than this are a crashed or stopped gateway. */
export const HEARTBEAT_STALE_SECONDS = 120

const orms = new WeakMap<Database.Database, BetterSQLite3Database>()
const ormOn = (db: Database.Database) => {
  let orm = orms.get(db)
  if (!orm) orms.set(db, (orm = drizzle(db)))
  return orm
}

export function liveUpstreamGateway(
  db: Database.Database,
  profile: string,
  nowSec: number,
  staleAfter = HEARTBEAT_STALE_SECONDS
): GatewayHeartbeat | null {
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'gateway_heartbeats'").get()
  if (!exists) return null
  // A row with an empty profile predates per-profile heartbeats: it speaks for the DB's own profile.
  const row = ormOn(db)
    .select({ backendId: g.backend_id, pid: g.pid, lastHeartbeat: g.last_heartbeat, host: g.host })
    .from(g)
    .where(and(gte(g.last_heartbeat, nowSec - staleAfter), or(eq(g.profile, ''), eq(g.profile, profile))))
    .orderBy(desc(g.last_heartbeat))
    .limit(1)
    .get()
  return row ?? null
}
