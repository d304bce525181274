// `caduceus serve`: the headless host (HTTP + WebSocket transport in front of the full service graph).
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { HostArgs } from './args'
import { appDir, createHost } from '../compose'
import { startHeadless, bindHttp, describeListenError, parseAllowedHosts } from '../transport'
import { installLastResort } from '../log'
import { loadHeadlessToken } from './headless-token'
import { warnUnreadableConfigs } from './config-warnings'
import { errorMessage } from '@shared/contract/errors'

export async function serve(args: HostArgs): Promise<number> {
  // Loopback only, on purpose: the token would cross the network in clear text. `--host` is `api`'s flag; here it
  // used to be taken and ignored, so a user who asked for 0.0.0.0 got a host nobody else could reach, without a word.
  if (args.host !== undefined && !['127.0.0.1', 'localhost'].includes(args.host.toLowerCase())) {
    console.error(
      `caduceus serve: --host ${args.host}: serve listens on 127.0.0.1 only; from another machine use an SSH tunnel ` +
        `(ssh -L 8765:127.0.0.1:PORT SERVER) or a reverse proxy with TLS and --allow-host NAME (see the README)`
    )
    return 2
  }
  let allowHosts: string[]
  try {
    allowHosts = parseAllowedHosts([...(args.allowHosts ?? []), process.env.CADUCEUS_ALLOW_HOSTS ?? ''])
  } catch (err) {
    console.error(`caduceus serve: ${errorMessage(err)}`)
    return 2
  }
  // CADUCEUS_RENDERER_DIR: serve another built UI (tests serve a tiny one without building the app).
  const rendererDir = resolve(process.env.CADUCEUS_RENDERER_DIR || join(appDir(), 'out/renderer'))
  if (!existsSync(join(rendererDir, 'index.html'))) {
    console.error('The UI is not built yet: run `npm run build` (npm start does it for you).')
    return 1
  }
  // The port first: a serve that cannot listen must not open a state.db, a watcher or the cron scheduler.
  let bound
  try {
    bound = await bindHttp(args.port)
  } catch (err) {
    console.error(`caduceus serve: ${describeListenError(err, args.port)}`)
    return 1
  }
  const host = await createHost({ home: args.home, demo: args.demo, headless: true })
  const removeLastResort = installLastResort(host.log)
  const { token, rotated } = loadHeadlessToken({ rotate: args.rotateToken })
  if (rotated && args.rotateToken) host.log.info('host', 'headless token rotated: open tabs must use the new URL')
  const server = await startHeadless({
    dispatcher: host.dispatcher,
    bus: host.bus,
    log: host.log,
    rendererDir,
    bound,
    token,
    allowHosts
  })
  // One machine-readable line for scripts and the e2e fixture, then the human one.
  console.log(JSON.stringify({ ready: true, url: server.url, port: server.port, root: host.root, demo: host.demo }))
  console.log(`Caduceus is serving ${host.root} at ${server.url}`)
  if (allowHosts.length) console.log(`Also answering as ${allowHosts.join(', ')} (behind a reverse proxy)`)
  warnUnreadableConfigs(host)
  await new Promise<void>((done) => {
    const stop = () => done()
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
  })
  await server.close()
  await host.close()
  removeLastResort()
  return 0
}
