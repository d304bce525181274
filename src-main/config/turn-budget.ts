/**
 * How many model calls a turn may make (upstream's max_iterations), read as each of upstream's programs reads it
 * (test/fixtures/upstream/max-turns, recorded by scripts/golden/max_turns.py from upstream's own readers):
 * - `chat` (its interactive CLI; here the Session page and `caduceus run -z`): `agent.max_turns` when truthy, else a
 *   root-level `max_turns` when truthy, else — only when the file set one of them — `HERMES_MAX_ITERATIONS`, else 90.
 *   The value is used as it is: a fraction bounds the calls (12.5: 13), `.inf` is no limit at all.
 * - `cron` (its scheduler): the same without the variable.
 * - `gateway` (its API server): `agent.max_turns` whenever the file has the key, else `HERMES_MAX_ITERATIONS`, read
 *   as Python's int() reads its text, else 90 — so `.inf`, `12.5` or `12.0` are 90 there, `"60"` is 60.
 * Where upstream would fail the turn (a word, a list, a bool compared with a count) or run no model call at all
 * (zero, a negative number, NaN), 90 is used and `warning` says why; so it is where upstream silently falls back.
 */
import { maxTurnsAsWritten, type RawConfig } from './load-config'
import { pyStr, pyTruthy, pythonInt } from '@shared/contract/py-text'

/** Upstream's DEFAULT_MAX_ITERATIONS. */
const DEFAULT_MAX_ITERATIONS = 90

interface TurnBudget {
  /** Model calls a turn may make: a positive number, Infinity for none. */
  max: number
  warning: string | null
}
type TurnBudgets = Record<'chat' | 'cron' | 'gateway', TurnBudget>

const shown = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v) : pyStr(v))
const fallback = (why: string): TurnBudget => ({
  max: DEFAULT_MAX_ITERATIONS,
  warning: `${why}, so a turn may make ${DEFAULT_MAX_ITERATIONS} model calls.`
})

export function turnBudgets(raw: RawConfig, env: Readonly<Record<string, string | undefined>>): TurnBudgets {
  const { agent, root } = maxTurnsAsWritten(raw)
  const variable = env.HERMES_MAX_ITERATIONS
  const count = (v: unknown, where: string): TurnBudget =>
    typeof v === 'number' && v > 0
      ? { max: v, warning: null }
      : fallback(`${where} is ${shown(v)}, which is no number of model calls above 0`)
  const fromVariable = (): TurnBudget => {
    if (variable === undefined) return { max: DEFAULT_MAX_ITERATIONS, warning: null }
    const n = pythonInt(variable)
    return n === null
      ? fallback(`HERMES_MAX_ITERATIONS=${variable.trim()} is no whole number`)
      : count(n, 'HERMES_MAX_ITERATIONS')
  }
  const chat = (withVariable: boolean): TurnBudget => {
    if (agent && pyTruthy(agent.value)) return count(agent.value, 'config.yaml agent.max_turns')
    if (root && pyTruthy(root.value)) return count(root.value, 'config.yaml max_turns')
    return (agent || root) && withVariable ? fromVariable() : { max: DEFAULT_MAX_ITERATIONS, warning: null }
  }
  const gateway = (): TurnBudget => {
    if (!agent) return fromVariable()
    // Python's str() of the value, then int(): a float keeps its point ("12.0"), None / True stay words
    const v = agent.value
    const whole = typeof v === 'number' && Number.isInteger(v)
    const text = whole ? (agent.float ? `${v}.0` : BigInt(v).toString()) : pyStr(v)
    const n = pythonInt(text)
    return n === null
      ? fallback(
          `config.yaml agent.max_turns is ${shown(agent.value)}, which the API server (as upstream's) reads only as a whole number`
        )
      : count(n, 'config.yaml agent.max_turns')
  }
  return { chat: chat(true), cron: chat(false), gateway: gateway() }
}
