/**
 * The profile's clock, resolved as upstream's `hermes_time` resolves it: `HERMES_TIMEZONE` (the profile's `.env`
 * wins over the shell, as upstream loads that file with override), else config.yaml `timezone`, else the machine's
 * zone (undefined here). Read fresh on every call so an edit applies without a restart; an invalid name is skipped,
 * as upstream falls back rather than fail.
 */
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
  const fromEnv = readEnvFile(envPath(home)).HERMES_TIMEZONE?.trim() || process.env.HERMES_TIMEZONE?.trim()
  // Upstream takes a set variable even when it names no zone (then falls back to the machine's), never config.yaml.
  if (fromEnv) return validZone(fromEnv)
  return validZone(loadConfig(home).raw.timezone)
}
