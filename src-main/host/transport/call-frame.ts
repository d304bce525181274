import { requests, type ContractError, type RequestName } from '@shared/contract'

export type CallFrame = { ok: true; name: RequestName; input: unknown } | { ok: false; error: ContractError }

/**
 * Check a `{ name, input }` call (HTTP body or WS frame) before dispatch: `name` must be a string naming a known
 * request. Never stringifies what it was given — `{"name":{"toString":1}}` is refused, not coerced.
 */
export function parseCallFrame(body: Record<string, unknown> | null): CallFrame {
  if (!body) return { ok: false, error: { code: 'invalid_input', message: 'body must be a JSON object {name, input}' } }
  const { name } = body
  if (typeof name !== 'string')
    return { ok: false, error: { code: 'invalid_input', message: 'name must be a string', field: 'name' } }
  if (!Object.hasOwn(requests, name))
    return { ok: false, error: { code: 'unknown_request', message: `Unknown request '${name.slice(0, 80)}'` } }
  return { ok: true, name: name as RequestName, input: body.input }
}
