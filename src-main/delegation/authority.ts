/**
 * Who may message a retained child (hermes-spec §2.5). Fail-closed: a lineage we cannot resolve denies.
 * Checks run in a fixed order so the error names the first reason, with upstream's exact wording.
 */
import type { RetainedChild } from './types'

const FOLLOW_UP_SELF_ERROR = 'follow_up rejected: a subagent cannot follow up on itself.'
const FOLLOW_UP_LINEAGE_ERROR =
  'follow_up rejected: only the session lineage that spawned this subagent may message it ' +
  '(compression-rotation continuations included; branches, siblings, and foreign sessions are not owners).'
const followUpProfileError = (owner: string, current: string) =>
  `follow_up rejected: retained subagent belongs to profile '${owner}', not '${current}'.`

export interface AuthorityDeps {
  /** Profile of the calling scope; `''` when unknown (then the profile check is skipped, as upstream). */
  currentProfile: string
  /** Compression-lineage root (§1.7); null for branches, delegates, unknown ids or any doubt. */
  lineageRoot(sessionId: string): string | null
}

type Entry = Pick<RetainedChild, 'ownerProfile' | 'childSessionId' | 'parentSessionId'>

/** Returns null when allowed, else the rejection text. */
export function checkFollowUpAuthority(entry: Entry, requesterSessionId: unknown, deps: AuthorityDeps): string | null {
  const owner = (entry.ownerProfile ?? '').trim()
  const current = (deps.currentProfile ?? '').trim()
  if (owner && current && owner !== current) return followUpProfileError(owner, current)

  const requester = typeof requesterSessionId === 'string' ? requesterSessionId.trim() : ''
  if (requester && entry.childSessionId && requester === entry.childSessionId) return FOLLOW_UP_SELF_ERROR

  const root = (sid: string | null | undefined): string | null => {
    if (typeof sid !== 'string' || !sid.trim()) return null
    try {
      return deps.lineageRoot(sid.trim()) ?? null
    } catch {
      return null // none on doubt, as lineageRoot itself: no authority from a read that failed
    }
  }
  const ownerRoot = root(entry.parentSessionId)
  const requesterRoot = root(requester)
  if (ownerRoot === null || requesterRoot === null || ownerRoot !== requesterRoot) return FOLLOW_UP_LINEAGE_ERROR
  return null
}
