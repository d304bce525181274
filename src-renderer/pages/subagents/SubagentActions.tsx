import { useId, useState } from 'react'
import type { Subagent } from '@shared/contract'
import { sessionHref } from '../../app/routes'
import { FollowUpDialog } from './FollowUpDialog'
import { TombstoneDialog } from './TombstoneDialog'

/**
 * Why an upstream-dispatched child offers no follow-up or tombstone: a follow-up resumes an agent this app holds as
 * a retained child, and upstream keeps none (its row names no child); a tombstone removes exactly that
 * addressability and would mean rewriting upstream's own row.
 */
const FOREIGN_FOLLOW_UP =
  'Dispatched by upstream Hermes: Caduceus holds no agent for it, so it cannot be messaged from here (continue in upstream Hermes).'
const FOREIGN_TOMBSTONE =
  "Dispatched by upstream Hermes: it is not in Caduceus's follow-up registry, so there is nothing to retire (its row stays upstream's)."
/** A delegate child session no delegation row names (a synchronous run, upstream's or Caduceus's own). */
const SESSION_ONLY =
  'A synchronous delegate run, shown from its child session: it was never retained, so no agent is kept to message or retire.'
const NO_CHILD_SESSION = 'No child session could be matched to this delegation with certainty.'

/** Why a child Caduceus dispatched takes no follow-up in this state (only a running or retained one keeps an agent). */
const NOT_ADDRESSABLE: Record<string, string> = {
  completed: 'It completed without being retained, so no agent is kept to message.',
  failed: 'It failed: no agent is kept to message.',
  tombstoned: 'It was tombstoned: its agent was retired and can no longer be messaged.',
  expired: 'Its retention ran out: the agent is gone.',
  unknown: 'Its state is unknown, so it is not addressable.'
}

export interface ActionReasons {
  open: string | null
  followUp: string | null
  tombstone: string | null
}

/** For each action, why it is unavailable for this child (null: available). */
export function actionReasons(s: Subagent): ActionReasons {
  const readOnly = (other: string) => (s.delegationId === '' ? SESSION_ONLY : other)
  const canFollow = !s.foreign && (s.state === 'retained' || s.state === 'running')
  const canTombstone = !s.foreign && s.state === 'retained'
  return {
    open: s.childSessionId ? null : NO_CHILD_SESSION,
    followUp: canFollow
      ? null
      : s.foreign
        ? readOnly(FOREIGN_FOLLOW_UP)
        : (NOT_ADDRESSABLE[s.state] ?? `Not addressable (${s.state}).`),
    tombstone: canTombstone
      ? null
      : s.foreign
        ? readOnly(FOREIGN_TOMBSTONE)
        : s.state === 'running'
          ? 'Still running: only a retained child can be tombstoned.'
          : `Only a retained child can be tombstoned; this one is ${s.state}.`
  }
}

const LABELS: Record<keyof ActionReasons, string> = { open: 'Open', followUp: 'Follow up', tombstone: 'Tombstone' }
const whyItemId = (base: string, k: keyof ActionReasons) => `${base}-${k}`

/**
 * The reasons, as visible text: each disabled button names its own line with aria-describedby, so a screen reader
 * reads the reason with the button and a keyboard user opens this list with "Why?" (a disabled button takes no
 * focus, and a `title` tooltip shows only to a mouse).
 */
export function WhyUnavailable({ id, reasons, hidden }: { id: string; reasons: ActionReasons; hidden: boolean }) {
  const keys = (Object.keys(LABELS) as Array<keyof ActionReasons>).filter((k) => reasons[k])
  // the same sentence for two actions is said once, under both names
  const lines: Array<{ keys: Array<keyof ActionReasons>; text: string }> = []
  for (const k of keys) {
    const same = lines.find((l) => l.text === reasons[k])
    if (same) same.keys.push(k)
    else lines.push({ keys: [k], text: reasons[k]! })
  }
  return (
    <ul className="why-unavailable" id={id} hidden={hidden} data-testid="subagent-why">
      {lines.map((l) => (
        <li key={l.keys.join()} id={whyItemId(id, l.keys[0]!)}>
          <strong>{l.keys.map((k) => LABELS[k]).join(' / ')}:</strong> {l.text}
        </li>
      ))}
    </ul>
  )
}

/** The line that describes action `k` (shared lines are named by their first action). */
function describedBy(id: string, reasons: ActionReasons, k: keyof ActionReasons): string | undefined {
  const text = reasons[k]
  if (!text) return undefined
  const first = (Object.keys(LABELS) as Array<keyof ActionReasons>).find((j) => reasons[j] === text)!
  return whyItemId(id, first)
}

/**
 * Open / Follow up / Tombstone for one child; follow-up needs a live or retained child Caduceus dispatched. With
 * `why` the caller shows the reasons elsewhere (the Subagents table, in a row of their own under the child's);
 * without it they open below the buttons.
 */
export function SubagentActions({ s, why }: { s: Subagent; why?: { id: string; open: boolean; toggle: () => void } }) {
  const [dialog, setDialog] = useState<'followup' | 'tombstone' | null>(null)
  const ownId = useId()
  const [ownOpen, setOwnOpen] = useState(false)
  const reasons = actionReasons(s)
  const whyId = why?.id ?? `why${ownId}`
  const whyOpen = why?.open ?? ownOpen
  const anyDisabled = Boolean(reasons.open || reasons.followUp || reasons.tombstone)
  return (
    <span className="actions">
      {s.childSessionId ? (
        <a className="btn small" href={sessionHref(s.profile, s.childSessionId)} data-testid="subagent-open">
          Open
        </a>
      ) : (
        <button
          className="small"
          disabled
          data-testid="subagent-open"
          aria-describedby={describedBy(whyId, reasons, 'open')}
        >
          Open
        </button>
      )}
      <button
        className="small"
        disabled={Boolean(reasons.followUp)}
        onClick={() => setDialog('followup')}
        data-testid="followup-open"
        aria-describedby={describedBy(whyId, reasons, 'followUp')}
      >
        Follow up
      </button>
      <button
        className="small danger"
        disabled={Boolean(reasons.tombstone)}
        onClick={() => setDialog('tombstone')}
        data-testid="tombstone-open"
        aria-describedby={describedBy(whyId, reasons, 'tombstone')}
      >
        Tombstone
      </button>
      {anyDisabled && (
        <button
          className="link small why-toggle"
          aria-expanded={whyOpen}
          aria-controls={whyId}
          aria-label="Why? (unavailable actions)"
          onClick={() => (why ? why.toggle() : setOwnOpen(!ownOpen))}
          data-testid="subagent-why-toggle"
        >
          Why?
        </button>
      )}
      {/* rendered while closed too: the disabled buttons' descriptions point into it */}
      {anyDisabled && !why && <WhyUnavailable id={whyId} reasons={reasons} hidden={!whyOpen} />}
      {dialog === 'followup' && <FollowUpDialog child={s} onClose={() => setDialog(null)} />}
      {dialog === 'tombstone' && <TombstoneDialog child={s} onClose={() => setDialog(null)} />}
    </span>
  )
}
