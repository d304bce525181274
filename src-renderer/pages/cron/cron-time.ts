/**
 * Cron times as the home's cron keeps them: in the zone its schedules run in (the host names it with the job list),
 * not the browser's, so a page opened from a machine in another zone shows when the job really runs there. Each
 * time carries its zone's short name; without a clock yet (the list still loading) the browser's own zone is used.
 */
import type { CronClock } from '@shared/contract'

export function whenOnClock(iso: string | null, clock: CronClock | null): string {
  if (!iso) return '—'
  const at = new Date(iso)
  if (Number.isNaN(at.getTime())) return iso
  try {
    return at.toLocaleString(undefined, { timeZone: clock?.zone, timeZoneName: 'short' })
  } catch {
    return at.toLocaleString() // a zone name this browser does not know
  }
}

/** "Asia/Tokyo (config.yaml timezone)": the zone and where the home takes it from. */
export function clockLabel(clock: CronClock): string {
  const from =
    clock.source === 'HERMES_TIMEZONE'
      ? 'HERMES_TIMEZONE'
      : clock.source === 'config.yaml'
        ? 'config.yaml timezone'
        : "the host machine's zone"
  return `${clock.zone} (${from})`
}
