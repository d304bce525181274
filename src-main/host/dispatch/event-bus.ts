import type { EventEnvelope, EventName, EventPayload } from '@shared/contract'
import { redactDeep, type SecretMask } from '../../secrets'

/** Fan-out of host events to every transport (IPC windows, WebSocket clients, tests). */
export class EventBus {
  private readonly listeners = new Set<(envelope: EventEnvelope) => void>()
  /** The host's mask; a bus built without one (tests) masks with the process's last resort. */
  constructor(private readonly mask?: SecretMask) {}

  emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
    // No event leaves the host with a known secret value in it (a provider echoing the key, a tool printing .env).
    payload = this.mask ? this.mask.redactDeep(payload) : redactDeep(payload)
    for (const listener of [...this.listeners]) {
      try {
        listener({ event, payload })
      } catch {
        // One broken subscriber must not starve the others.
      }
    }
  }

  subscribe(listener: (envelope: EventEnvelope) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }
}
