import { CaduceusError } from '@shared/contract'
import { sessionHref } from '../../app/routes'
import { errorMessage } from '../../lib/format'
import type { TitleRefusal } from './TitleEditor'

/**
 * Why a rename was refused, in words. The store keeps upstream's wording ("Title 'X' is already in use by session
 * <id>"), which names the other session by a raw id: the box names it by its title instead (the same title) and
 * links to it.
 */
export function titleRefusal(err: unknown, profile: string, title: string | null): TitleRefusal {
  const holder = err instanceof CaduceusError ? /is already in use by session (\S+)$/.exec(err.message)?.[1] : undefined
  if (holder && title) {
    return {
      message: `Another session is already called “${title}”; pick another title.`,
      other: { href: sessionHref(profile, holder), title }
    }
  }
  return { message: `Renaming failed: ${errorMessage(err)}` }
}
