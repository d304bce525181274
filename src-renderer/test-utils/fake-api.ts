import {
  CaduceusError,
  type CaduceusApi,
  type EventName,
  type EventPayload,
  type RequestInput,
  type RequestName,
  type RequestOutput
} from '@shared/contract'

export type FakeHandlers = {
  [K in RequestName]?: (input: RequestInput<K>) => RequestOutput<K> | Promise<RequestOutput<K>>
}

export interface FakeApi {
  api: CaduceusApi
  /** Every call made, in order. */
  calls: Array<{ name: RequestName; input: unknown }>
  callsOf<K extends RequestName>(name: K): Array<RequestInput<K>>
  /** Push an event as the host would. */
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void
  handlers: FakeHandlers
}

/** A CaduceusApi typed from the contract: unhandled requests fail like the host would (`unavailable`). */
export function createFakeApi(handlers: FakeHandlers = {}): FakeApi {
  const calls: FakeApi['calls'] = []
  const listeners = new Map<string, Set<(p: never) => void>>()
  const api: CaduceusApi = {
    async call(name, ...rest) {
      const input = rest[0] ?? {}
      calls.push({ name, input })
      const h = fake.handlers[name] as ((i: unknown) => unknown) | undefined
      if (!h) throw new CaduceusError('unavailable', `no fake handler for ${name}`)
      return (await h(input)) as never
    },
    on(event, listener) {
      const set = listeners.get(event) ?? new Set()
      listeners.set(event, set)
      set.add(listener as (p: never) => void)
      return () => set.delete(listener as (p: never) => void)
    }
  }
  const fake: FakeApi = {
    api,
    calls,
    handlers,
    callsOf: (name) => calls.filter((c) => c.name === name).map((c) => c.input as never),
    emit(event, payload) {
      for (const fn of listeners.get(event) ?? []) fn(payload as never)
    }
  }
  return fake
}

/** Let queued promise callbacks run (store actions chain a few awaits). */
export async function settle(rounds = 10): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setTimeout(r, 0))
}
