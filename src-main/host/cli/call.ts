// One contract request from a CLI command, through the same dispatcher the app uses; a failure throws its message.
import type { RequestInput, RequestName, RequestOutput } from '@shared/contract'
import type { Host } from '../compose'
import { UsageError } from './run-args'

/** Request fields a command fills from one of its flags as given: a value the contract refuses is a usage error. */
const FROM_FLAG: Record<string, string> = { limit: '--limit', profile: '--profile' }

export async function call<K extends RequestName>(
  host: Host,
  name: K,
  input: RequestInput<K>
): Promise<RequestOutput<K>> {
  const result = await host.dispatcher.invoke(name, input)
  if (!result.ok) {
    const { code, message, field } = result.error
    const flag = code === 'invalid_input' && field ? FROM_FLAG[field] : undefined
    // `--limit 500` on a search: exit 2 naming the flag, as argparse refuses a value out of its range
    if (flag) throw new UsageError(`${flag}: ${message.slice(field!.length + 2)}`)
    throw new Error(`${code}: ${message}`)
  }
  return result.output as RequestOutput<K>
}
