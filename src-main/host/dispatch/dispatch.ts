import { z } from 'zod'
import {
  CaduceusError,
  requests,
  type CallResult,
  type ContractError,
  type RequestName,
  type Requests
} from '@shared/contract'
import { redact, redactDeep, type SecretMask } from '../../secrets'
import { describeError } from '../log'
import type { Logger } from '@shared/contract/log'
import { withBusyRetry, type LockCause, type LockWait } from './busy-retry'
import { parseOnce } from './input-memo'

/**
 * Requests whose input is validated once per distinct value (input-memo.ts): asked over and over with the same few
 * inputs, on the hot path, and their schemas are pure (no transforms, no computed defaults) and read-only to the handler.
 */
const PARSED_ONCE: ReadonlySet<string> = new Set(['sessions.list'])

/** One handler per request name; input is already parsed by the request's schema. */
export type Handler<K extends RequestName> = (
  input: z.output<Requests[K]['input']>
) => Promise<z.input<Requests[K]['output']>> | z.input<Requests[K]['output']>
export type HandlerMap = { [K in RequestName]: Handler<K> }

export interface Dispatcher {
  invoke(name: string, input: unknown): Promise<CallResult>
}

function zodToError(err: z.ZodError): ContractError {
  const issue = err.issues[0]
  const field = issue?.path.map(String).join('.') || undefined
  const message = issue ? `${field ? `${field}: ` : ''}${issue.message}` : 'invalid input'
  return field ? { code: 'invalid_input', message, field } : { code: 'invalid_input', message }
}

/**
 * The single boundary every transport goes through: unknown names, schema failures and handler errors all
 * become a typed `ContractError`; nothing a caller sends can throw past here (invariant 7).
 */
export function createDispatcher(
  handlers: HandlerMap,
  log: Logger,
  opts: {
    validateOutput?: boolean
    /** The host's mask for the errors it answers with; without one (tests), the process's last resort. */
    mask?: SecretMask
    /** A read request began or ended waiting on another program's lock on the profile it names ('all': several). */
    onLock?: (e: { profile: string; request: string; state: LockWait; cause: LockCause }) => void
  } = {}
): Dispatcher {
  const mask: Pick<SecretMask, 'redact' | 'redactDeep'> = opts.mask ?? { redact, redactDeep }
  return {
    async invoke(name, input) {
      // Never String() what a caller sent: `{ toString: 1 }` throws, and this promise must not reject.
      if (typeof name !== 'string')
        return { ok: false, error: { code: 'invalid_input', message: 'name must be a string', field: 'name' } }
      if (!Object.hasOwn(requests, name)) {
        return { ok: false, error: { code: 'unknown_request', message: `Unknown request '${name.slice(0, 80)}'` } }
      }
      const key = name as RequestName
      const spec = requests[key]
      try {
        const parsed = PARSED_ONCE.has(key) ? parseOnce(spec.input, input ?? {}) : spec.input.safeParse(input ?? {})
        if (!parsed.success) return { ok: false, error: zodToError(parsed.error) }
        const handler = handlers[key] as (input: unknown) => unknown
        const scope = (parsed.data as { profile?: unknown } | undefined)?.profile
        const profile = typeof scope === 'string' ? scope : 'all'
        const onLock = opts.onLock
        const output = await withBusyRetry(
          key,
          () => handler(parsed.data),
          undefined,
          onLock && ((state, cause) => onLock({ profile, request: key, state, cause }))
        )
        if (opts.validateOutput) {
          const checked = spec.output.safeParse(output)
          if (!checked.success) {
            log.error(
              'host',
              `output of ${key} does not match the contract: ${checked.error.issues[0]?.path.join('.')} ${checked.error.issues[0]?.message}`
            )
            return {
              ok: false,
              error: { code: 'internal', message: `Internal error in ${key}: output does not match the contract` }
            }
          }
          return { ok: true, output: checked.data }
        }
        return { ok: true, output }
      } catch (err) {
        if (err instanceof CaduceusError) return { ok: false, error: mask.redactDeep(err.toJSON()) }
        if (err instanceof z.ZodError) return { ok: false, error: zodToError(err) }
        log.error('host', `request ${key} failed: ${describeError(err)}`)
        return {
          ok: false,
          error: {
            code: 'internal',
            message: `${key} failed: ${mask.redact(err instanceof Error ? err.message : describeError(err))}`
          }
        }
      }
    }
  }
}
