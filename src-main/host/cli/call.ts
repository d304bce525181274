// One contract request from a CLI command, through the same dispatcher the app uses; a failure throws its message.
import type { RequestInput, RequestName, RequestOutput } from '@shared/contract'
import type { Host } from '../compose'

export async function call<K extends RequestName>(
  host: Host,
  name: K,
  input: RequestInput<K>
): Promise<RequestOutput<K>> {
  const result = await host.dispatcher.invoke(name, input)
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`)
  return result.output as RequestOutput<K>
}
