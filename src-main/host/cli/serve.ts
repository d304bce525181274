// `caduceus serve`: the headless host (HTTP + WebSocket transport in front of the full service graph).
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { HostArgs } from './args'
import { appDir, createHost } from '../compose'
import { startHeadless, bindHttp, describeListenError } from '../transport'
import { installLastResort } from '../log'
import { loadHeadlessToken } from './headless-token'
import { warnUnreadableConfigs } from './config-warnings'

export async function serve(args: HostArgs): Promise<number> {
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
    token
  })
  // One machine-readable line for scripts and the e2e fixture, then the human one.
  console.log(JSON.stringify({ ready: true, url: server.url, port: server.port, root: host.root, demo: host.demo }))
  console.log(`Caduceus is serving ${host.root} at ${server.url}`)
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
