/**
 * The profile's clock, resolved as upstream's `hermes_time` resolves it: `HERMES_TIMEZONE` (the profile's `.env`
 * wins over the shell, as upstream loads that file with override), else config.yaml `timezone`, else the machine's
 * zone (undefined here). Read fresh on every call so an edit applies without a restart; an invalid name is skipped,
 * as upstream falls back rather than fail.
 */
import type { CronClock } from '@shared/contract'
import { loadConfig } from '../config'
import { envPath, readEnvFile } from '../secrets'

function validZone(tz: unknown): string | undefined {
  if (typeof tz !== 'string' || !tz.trim()) return undefined
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz.trim() })
    return tz.trim()
  } catch {
    return undefined // RangeError: a zone name Intl does not know
  }
}

export function timeZoneOf(home: string): string | undefined {
  const clock = cronClock(home)
  return clock.source === 'machine' ? undefined : clock.zone
}

/**
 * The zone the profile's cron schedules and stamps in, named, with where it comes from: what the Cron page shows its
 * times in, so a browser on another machine (another zone) sees the home's clock, not its own.
 */
export function cronClock(home: string): CronClock {
  // (the machine's zone is asked for only where neither names one)
  const machine = (): CronClock => ({
    zone: Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC',
    source: 'machine'
  })
  const fromEnv = readEnvFile(envPath(home)).HERMES_TIMEZONE?.trim() || process.env.HERMES_TIMEZONE?.trim()
  // Upstream takes a set variable even when it names no zone (then falls back to the machine's), never config.yaml.
  if (fromEnv) {
    const zone = validZone(fromEnv)
    return zone ? { zone, source: 'HERMES_TIMEZONE' } : machine()
  }
  const zone = validZone(loadConfig(home).raw.timezone)
  return zone ? { zone, source: 'config.yaml' } : machine()
}
