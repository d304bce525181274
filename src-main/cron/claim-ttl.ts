import { pyIntValue, pyStrip, pythonFloat, pythonInt } from '@shared/contract/py-text'
import { loadConfig, readSection } from '../config'

/**
 * How long another scheduler's one-shot run claim stays fresh, as upstream derives it from `HERMES_CRON_TIMEOUT`,
 * and how often this host refreshes its own claims while their runs go on.
 */
export function runClaimTtlMs(): number {
  const raw = pythonFloat(process.env.HERMES_CRON_TIMEOUT ?? '')
  const timeout = raw ?? 600
  // As upstream's max(): NaN stays NaN (no claim is ever fresh), Infinity never goes stale.
  return timeout <= 0 ? 1_800_000 : Math.max(timeout * 3, 1800) * 1000
}

/** How often a running one-shot's run_claim is refreshed: well inside the TTL (upstream beats every minute). */
export function claimHeartbeatMs(): number {
  const ttl = runClaimTtlMs()
  return Number.isFinite(ttl) ? Math.min(300_000, ttl / 6) : 300_000
}

/**
 * Upstream's fire claim (`claim_job_for_fire`, the claim a manual `hermes cron run` takes) is fresh this long: a second
 * manual run meanwhile is refused.
 */
export const FIRE_CLAIM_TTL_MS = 300_000

/** How often a Run now refreshes its claims: its fire claim must stay inside FIRE_CLAIM_TTL_MS too. */
export function runNowHeartbeatMs(): number {
  return Math.min(claimHeartbeatMs(), FIRE_CLAIM_TTL_MS / 5)
}

/**
 * How many of a profile's jobs upstream runs at once: `HERMES_CRON_MAX_PARALLEL`, else config.yaml's
 * `cron.max_parallel_jobs`, each read with Python's int() (golden cron-max-parallel): a variable of 0 or one int()
 * refuses falls back to config.yaml, as upstream's tick does. 0 or none is no limit of its own (Infinity), and so is
 * a value it cannot read. The scheduler's own cap across profiles still applies on top.
 */
export function profileParallelCap(home: string): number {
  const env = pyStrip(process.env.HERMES_CRON_MAX_PARALLEL ?? '')
  const n = (env ? pythonInt(env) : null) || pyIntValue(readSection(loadConfig(home).raw, 'cron').max_parallel_jobs)
  return n !== null && n > 0 ? n : Infinity
}
