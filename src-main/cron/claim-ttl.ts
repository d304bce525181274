import { pythonFloat } from '@shared/contract/py-text'

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
