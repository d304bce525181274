import { vi } from 'vitest'
import {
  type CaduceusApi,
  type CallResult,
  type ContractError,
  type EventEnvelope,
  type EventName,
  type EventPayload,
  type RequestInput,
  type RequestName,
  type RequestOutput,
  type Transport
} from '@shared/contract'
import { connectApi } from '../api'

export type FakeHandlers = {
  [K in RequestName]?: (input: RequestInput<K>) => RequestOutput<K> | Promise<RequestOutput<K>>
}

export interface FakeApi {
  /** The client the stores use (the one `connectApi` installed). */
  api: CaduceusApi
  /** Every call made, in order. */
  calls: Array<{ name: RequestName; input: unknown }>
  callsOf<K extends RequestName>(name: K): Array<RequestInput<K>>
  /** Push an event as the host would. */
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void
  handlers: FakeHandlers
}

/** A thrown handler error travels as the host sends it: a ContractError envelope, rethrown by the client. */
function failure(err: unknown): CallResult {
  const e = err as { code?: unknown; message?: unknown; field?: unknown }
  const code = typeof e?.code === 'string' ? (e.code as ContractError['code']) : 'internal'
  const message = typeof e?.message === 'string' ? e.message : String(err)
  return { ok: false, error: typeof e?.field === 'string' ? { code, message, field: e.field } : { code, message } }
}

/**
 * A host typed from the contract, installed the way the app connects in Electron: `connectApi` finds the
 * preload's `window.caduceus` transport. Unhandled requests fail like the host would (`unavailable`).
 */
export async function installFakeApi(handlers: FakeHandlers = {}): Promise<FakeApi> {
  const calls: FakeApi['calls'] = []
  const listeners = new Set<(e: EventEnvelope) => void>()
  const transport: Transport = {
    async invoke(name, input) {
      calls.push({ name: name as RequestName, input })
      const h = handlers[name as RequestName] as ((i: unknown) => unknown) | undefined
      if (!h) return failure({ code: 'unavailable', message: `no fake handler for ${name}` })
      try {
        return { ok: true, output: await h(input) }
      } catch (err) {
        return failure(err)
      }
    },
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    }
  }
  vi.stubGlobal('window', { caduceus: transport })
  try {
    const { api } = await connectApi(() => {})
    const fake: FakeApi = {
      api,
      calls,
      handlers,
      callsOf: (name) => calls.filter((c) => c.name === name).map((c) => c.input as never),
      emit(event, payload) {
        for (const fn of listeners) fn({ event, payload })
      }
    }
    return fake
  } finally {
    vi.unstubAllGlobals()
  }
}

/** Let queued promise callbacks run (store actions chain a few awaits). */
export async function settle(rounds = 10): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setTimeout(r, 0))
}
