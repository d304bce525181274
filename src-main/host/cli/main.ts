import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { RequestInput, RequestName, RequestOutput } from '@shared/contract'
import { parseArgs, type HostArgs } from './args'
import { appDir, createHost, logPaths, type Host } from '../compose'
import { startHeadless, bindHttp, describeListenError } from '../transport'
import { installLastResort, redact } from '../log'
import { loadHeadlessToken } from './headless-token'
import { formatSessionList, formatSessionShow, formatSearch } from './format'
import { sessionAdminCli } from './sessions-admin'
import { runOneShot } from './run'
import { isOneShot } from './run-args'
import { runApiServer } from './api'
import { cron } from './cron'
import { USAGE, wantsHelp } from './usage'

async function call<K extends RequestName>(host: Host, name: K, input: RequestInput<K>): Promise<RequestOutput<K>> {
  const result = await host.dispatcher.invoke(name, input)
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`)
  return result.output as RequestOutput<K>
}

async function sessions(args: HostArgs): Promise<number> {
  const [, sub, arg] = args.positionals
  const host = await createHost({ home: args.home, demo: false, headless: true, live: false })
  try {
    const out = (v: unknown, text: () => string) => console.log(args.json ? JSON.stringify(v, null, 2) : text())
    if (sub === 'list') {
      const page = await call(host, 'sessions.list', { profile: args.profile ?? 'all', limit: args.limit ?? 50 })
      out(page, () => formatSessionList(page.items))
    } else if (sub === 'show') {
      if (!arg) throw new Error('sessions show needs a session id')
      const profile = args.profile ?? 'default'
      const detail = await call(host, 'sessions.get', { profile, sessionId: arg })
      const messages = await call(host, 'sessions.messages', { profile, sessionId: arg, limit: args.limit ?? 1000 })
      out({ ...detail, messages: messages.items }, () => formatSessionShow(detail, messages.items))
    } else if (sub === 'search') {
      if (!arg) throw new Error('sessions search needs the text to search for')
      const result = await call(host, 'sessions.search', {
        profile: args.profile ?? 'all',
        query: arg,
        limit: args.limit ?? 20
      })
      out(result, () => formatSearch(result.hits))
    } else {
      const code = await sessionAdminCli(host, sub, arg, args)
      if (code !== null) return code
      console.error(USAGE)
      return 2
    }
    return 0
  } finally {
    await host.close()
  }
}

async function serve(args: HostArgs): Promise<number> {
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

function logs(args: HostArgs): number {
  const { errorFile, logFile } = logPaths()
  const file = args.positionals[1] === 'errors' ? errorFile : logFile
  if (!existsSync(file)) {
    console.log(`(no log yet at ${file})`)
    return 0
  }
  const lines = readFileSync(file, 'utf8').trimEnd().split('\n')
  console.log(lines.slice(-(args.limit ?? 100)).join('\n'))
  return 0
}

export async function runCli(argv: string[]): Promise<number> {
  // Asking for help is never an error, whatever else is on the line.
  if (wantsHelp(argv)) {
    console.log(USAGE)
    return 0
  }
  if (isOneShot(argv)) {
    try {
      return await runOneShot(argv)
    } catch (err) {
      console.error(`caduceus run: ${redact((err as Error)?.message ?? String(err))}`)
      return 1
    }
  }
  let args: HostArgs
  try {
    args = parseArgs(argv)
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${USAGE}`)
    return 2
  }
  try {
    switch (args.positionals[0]) {
      case 'serve':
        return await serve(args)
      case 'sessions':
        return await sessions(args)
      case 'api':
        return await runApiServer(args)
      case 'cron':
        return await cron(args)
      case 'logs':
        return logs(args)
      case undefined:
        console.log(USAGE)
        return 0
      default:
        console.error(USAGE)
        return 2
    }
  } catch (err) {
    console.error(`caduceus: ${redact((err as Error)?.message ?? String(err))}`)
    return 1
  }
}
