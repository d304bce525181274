/**
 * `caduceus api`: the OpenAI-compatible API server for one profile (hermes-channels §1), default
 * 127.0.0.1:8642. A keyless non-loopback --host exits non-zero with one line before anything listens.
 */
import { namedLog } from '@shared/contract/log'
import { startApiServer } from '../../channels'
import type { HostArgs } from './args'
import { apiConversations, apiServerGuards } from '../app-channels'
import { appVersion, createTurnHost } from '../compose'
import { describeListenError } from '../transport'
import { profileOf } from './profile'
import { warnUnreadableConfigs } from './config-warnings'

export async function runApiServer(args: HostArgs): Promise<number> {
  const profile = profileOf(args, 'default')
  const host = await createTurnHost({ home: args.home })
  let server
  try {
    server = await startApiServer({
      gateway: host.gateway,
      profile,
      home: host.homeOf(profile),
      vault: host.vault,
      host: args.host,
      port: args.port,
      version: appVersion(),
      log: namedLog(host.log, 'api_server'),
      guards: apiServerGuards(host.log),
      sessions: apiConversations(host.stores, profile)
    })
  } catch (err) {
    console.error(`caduceus api: ${describeListenError(err, args.port)}`)
    await host.close()
    return 1
  }
  // One machine-readable line for scripts and tests, then the human ones; the key is printed only when generated.
  console.log(
    JSON.stringify({
      ready: true,
      url: server.url,
      port: server.port,
      profile,
      model: server.modelName,
      key_generated: server.generatedKey !== null
    })
  )
  warnUnreadableConfigs(host, profile)
  if (server.generatedKey)
    console.log(`Generated API_SERVER_KEY=${server.generatedKey} (saved to the profile .env; shown once)`)
  console.log(
    `OpenAI-compatible API for profile ${profile} at ${server.url}/v1 (Authorization: Bearer $API_SERVER_KEY)`
  )
  await new Promise<void>((done) => {
    process.once('SIGINT', () => done())
    process.once('SIGTERM', () => done())
  })
  await server.close()
  await host.close()
  return 0
}
