import type { SubagentState } from '@shared/contract'

const TONE: Record<SubagentState, string> = {
  running: 'badge-accent',
  retained: 'badge-ok',
  completed: 'badge-ok',
  tombstoned: 'badge-neutral',
  expired: 'badge-warn',
  failed: 'badge-err',
  unknown: 'badge-neutral'
}

export function StateBadge({ state, raw }: { state: SubagentState; raw?: string }) {
  return (
    <span
      className={`badge ${TONE[state]}`}
      data-testid="subagent-state"
      data-state={state}
      title={raw ? `durable state: ${raw}` : undefined}
    >
      {state === 'running' && <span className="pulse" aria-hidden />}
      {state}
    </span>
  )
}
