/**
 * Adapts an Agent (anything with `runTurn`/`steer`/`interrupt`, structurally) into a child handle:
 * the turn's final text is the child's summary, its priced cost (or null) the child's cost.
 */
import type { ChildAgentHandle, ChildRunOutcome } from './children'

export interface TurnRunnerLike {
  sessionId: string
  runTurn(
    text: string,
    opts?: { signal?: AbortSignal; onDelta?: (d: { kind: string; text?: string }) => void }
  ): Promise<{
    status: string
    exitReason?: string
    error?: string
    finalText: string
    tokens: { input: number; output: number }
    costUsd: number | null
    apiCalls: number
    sessionId?: string
  }>
  steer(text: string): boolean
  interrupt(reason?: string): void
  sessionModelConfig?(): Record<string, unknown>
}

export function childHandleFromAgent(agent: TurnRunnerLike, model: string | null = null): ChildAgentHandle {
  return {
    get sessionId() {
      return agent.sessionId
    },
    model,
    steer: (text) => agent.steer(text),
    ...(agent.sessionModelConfig ? { modelConfig: () => agent.sessionModelConfig!() } : {}),
    interrupt: (reason) => agent.interrupt(reason),
    async run(goal, opts): Promise<ChildRunOutcome> {
      const onAbort = () => agent.interrupt('parent interrupted')
      opts.signal?.addEventListener('abort', onAbort, { once: true })
      try {
        const r = await agent.runTurn(
          goal,
          opts.onText
            ? {
                onDelta: (d) => {
                  if (d.kind === 'text' && d.text) opts.onText!(d.text)
                }
              }
            : {}
        )
        return {
          status: r.status,
          summary: r.finalText?.trim() ? r.finalText : null,
          error: r.error ?? null,
          apiCalls: r.apiCalls,
          tokens: { input: r.tokens?.input ?? 0, output: r.tokens?.output ?? 0 },
          costUsd: r.costUsd,
          model,
          exitReason: r.exitReason ?? r.status
        }
      } finally {
        opts.signal?.removeEventListener('abort', onAbort)
      }
    }
  }
}
