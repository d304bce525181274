import { CaduceusError, ContractError } from './common'
import { eventNames, type EventName, type EventPayload } from './events'
import { requestNames, type RequestInput, type RequestName, type RequestOutput } from './requests'

/** Wire envelopes shared by Electron IPC and the headless WebSocket transport. */
export type CallResult = { ok: true; output: unknown } | { ok: false; error: ContractError }
export type EventEnvelope = { event: EventName; payload: unknown }

/** What a transport must provide; the preload bridge and the WebSocket client both implement it. */
export interface Transport {
  invoke(name: string, input: unknown): Promise<CallResult>
  subscribe(listener: (envelope: EventEnvelope) => void): () => void
}

/** The typed API the renderer uses. Derived from the contract maps, never written twice. */
export interface CaduceusApi {
  call<K extends RequestName>(
    name: K,
    ...input: {} extends RequestInput<K> ? [RequestInput<K>?] : [RequestInput<K>]
  ): Promise<RequestOutput<K>>
  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void
}

const knownRequests = new Set<string>(requestNames)
const knownEvents = new Set<string>(eventNames)

export function createClient(transport: Transport): CaduceusApi {
  const listeners = new Map<string, Set<(payload: never) => void>>()
  transport.subscribe(({ event, payload }) => {
    if (!knownEvents.has(event)) return
    for (const fn of listeners.get(event) ?? []) fn(payload as never)
  })
  return {
    async call(name, ...rest) {
      if (!knownRequests.has(name)) throw new CaduceusError('unknown_request', `Unknown request '${String(name)}'`)
      const result = await transport.invoke(name, rest[0] ?? {})
      if (!result.ok) throw new CaduceusError(result.error.code, result.error.message, result.error.field)
      return result.output as never
    },
    on(event, listener) {
      const set = listeners.get(event) ?? new Set()
      listeners.set(event, set)
      set.add(listener as (payload: never) => void)
      return () => set.delete(listener as (payload: never) => void)
    }
  }
}
