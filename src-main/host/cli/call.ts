// One contract request from a CLI command, through the same dispatcher the app uses; a failure throws its message.
import { CaduceusError, type RequestInput, type RequestName, type RequestOutput } from '@shared/contract'
import type { Host } from '../compose'
import { UsageError } from './run-args'

/** Request fields a command fills from one of its flags as given: a value the contract refuses is a usage error. */
const FROM_FLAG: Record<string, string> = { limit: '--limit', profile: '--profile' }
/** How long a write may wait on another program's lock before a person at the terminal is told why nothing happens. */
const LOCK_NOTICE_MS = 500

export async function call<K extends RequestName>(
  host: Host,
  name: K,
  input: RequestInput<K>
): Promise<RequestOutput<K>> {
  const stopNotice = lockNotice(host, (input as { profile?: unknown }).profile)
  const result = await host.dispatcher.invoke(name, input).finally(stopNotice)
  if (!result.ok) {
    const { code, message, field } = result.error
    const flag = code === 'invalid_input' && field ? FROM_FLAG[field] : undefined
    // `--limit 500` on a search: exit 2 naming the flag, as argparse refuses a value out of its range
    if (flag) throw new UsageError(`${flag}: ${message.slice(field!.length + 2)}`)
    // The message alone, as every refusal the CLI words itself is printed; the code stays on the error for callers.
    throw new CaduceusError(code, message, field)
  }
  return result.output as RequestOutput<K>
}

/**
 * At a terminal, a write still waiting on another program's lock on state.db after LOCK_NOTICE_MS says so once on
 * stderr (the store retries for up to its budget, 60 s by default, before the one-line error): a silent minute looks
 * like a hang. Only this process writes here, so a write queued in the store is one that met a foreign lock. Scripts
 * (stderr not a terminal) get the error line alone. Returns the watch's stop.
 */
function lockNotice(host: Host, profile: unknown): () => void {
  if (!process.stderr.isTTY || typeof profile !== 'string' || !host.stores.has(profile)) return () => {}
  const store = host.stores.get(profile)
  const timer = setInterval(() => {
    if (store.pendingWrites === 0) return
    clearInterval(timer)
    console.error(
      `caduceus: state.db of profile '${profile}' is locked by another program; waiting for it (up to ${Math.round(store.writeRetryMs / 1000)} s)…`
    )
  }, LOCK_NOTICE_MS)
  return () => clearInterval(timer)
}
