import { useState } from 'react'
import { MoneyText } from '../../components/MoneyText'
import { ChevronIcon } from '../../components/icons'
import { useTranscript } from '../../stores/transcript'
import { useSessionChildren } from '../../stores/transcript-meta'
import { StateBadge } from '../subagents/StateBadge'
import { SubagentActions } from '../subagents/SubagentActions'

const DELEGATION_ID = /^\[Background delegation (\S+) finished/

/** The delegation a notice row of a delegation display kind names, when its text did not read as a whole notice. */
export const delegationIdOf = (content: string | null) => (content ? (DELEGATION_ID.exec(content)?.[1] ?? null) : null)

/** A delegation's children inline in the transcript, under its notice: goal, state, cost; open or follow up. */
export function DelegationCards({ delegationId }: { delegationId: string }) {
  const profile = useTranscript((s) => s.profile)
  const sessionId = useTranscript((s) => s.sessionId)
  const kids = useSessionChildren(profile, sessionId).filter((c) => c.delegationId === delegationId)
  const [open, setOpen] = useState<string | null>(null)
  if (!kids.length) return null
  return (
    <div className="child-cards" data-testid="child-cards">
      {kids.map((c) => (
        <div key={c.childId} className="child-card" data-testid="child-card" data-child-id={c.childId}>
          <button
            className="fold-head child-card-head"
            aria-expanded={open === c.childId}
            onClick={() => setOpen(open === c.childId ? null : c.childId)}
          >
            <ChevronIcon open={open === c.childId} />
            <span className="child-goal">{c.goal || 'Subagent'}</span>
          </button>
          <StateBadge state={c.state} raw={c.rawState} />
          <MoneyText money={c.cost} />
          {open === c.childId && (
            <div className="child-card-body">
              <span className="muted small">
                {c.model ?? 'model unknown'} · {c.transcriptMessages} messages
              </span>
              <SubagentActions s={c} />
            </div>
          )}
        </div>
      ))}
    </div>
  )
}
