/**
 * Electron entry: window, preload and the IPC transport. Everything else is the same host the headless
 * `caduceus serve` runs (src-main/host), so this file stays thin: every security rule it applies is a pure
 * function in host/electron/ (app-policy.ts) (tested under Node); this file only wires them to Electron's hooks.
 */
import { app, BrowserWindow, ipcMain, protocol, safeStorage, session, shell, type WebContents } from 'electron'
import { readFile } from 'node:fs/promises'
import { join, resolve, sep } from 'node:path'
import { createHost, installLastResort, parseArgs, redact, type Host } from './host'
import {
  contentType,
  APP_ORIGIN,
  APP_SCHEME,
  appRequestPath,
  appResponseHeaders,
  closeWithDeadline,
  devicePermissionAllowed,
  devToolsAllowed,
  externalUrlToOpen,
  filterAppArgs,
  frameNavigationAllowed,
  ipcSenderAllowed,
  isAppUrl,
  permissionAllowed
} from './host/electron'

let host: Host | null = null
let win: BrowserWindow | null = null
const rendererDir = resolve(import.meta.dirname, '../renderer')

// Every renderer sandboxed, whatever a window's own options say (must run before ready).
app.enableSandbox()

// The renderer is served from app://caduceus/ (not file://) so every response can carry the CSP as a header.
protocol.registerSchemesAsPrivileged([
  { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }
])

// Every webContents (windows, and anything one tries to open) stays on the app's own origin.
app.on('web-contents-created', (_event, contents) => {
  contents.on('will-navigate', (event, url) => {
    if (!isAppUrl(url)) event.preventDefault()
  })
  contents.on('will-redirect', (event, url) => {
    if (!isAppUrl(url)) event.preventDefault()
  })
  // Subframes too (will-navigate sees only the main frame).
  contents.on('will-frame-navigate', (event) => {
    if (!frameNavigationAllowed(event.url, event.isMainFrame)) event.preventDefault()
  })
  contents.on('select-bluetooth-device', (event, _devices, callback) => {
    event.preventDefault()
    callback('')
  })
  contents.on('will-attach-webview', (event) => event.preventDefault())
  contents.setWindowOpenHandler(({ url }) => {
    const external = externalUrlToOpen(url)
    if (external) void shell.openExternal(external)
    return { action: 'deny' }
  })
})

// Every response, the 404s too, carries the CSP (appResponseHeaders).
const notFound = () =>
  new Response('not found', { status: 404, headers: appResponseHeaders('text/plain; charset=utf-8') })

async function serveApp(request: Request): Promise<Response> {
  const rel = appRequestPath(request.url)
  const file = rel ? join(rendererDir, rel) : null
  if (!file || !file.startsWith(rendererDir + sep)) return notFound()
  try {
    return new Response(await readFile(file), { headers: appResponseHeaders(contentType(file)) })
  } catch {
    return notFound() // not there or not readable: a 404 either way, saying nothing about the disk
  }
}

function focusWindow(): void {
  if (!win || win.isDestroyed()) return
  if (win.isMinimized()) win.restore()
  win.focus()
}

async function main(): Promise<void> {
  await app.whenReady()
  // Chromium's own switches (and macOS -psn_…) are not ours: ignored, never fatal.
  const { args: ours, ignored } = filterAppArgs(process.argv.slice(app.isPackaged ? 1 : 2))
  const args = parseArgs(ours)
  host = await createHost({
    home: args.home,
    demo: args.demo,
    headless: false,
    nativeBinding: process.env.CADUCEUS_SQLITE_BINDING || undefined,
    secretCipher: safeStorage.isEncryptionAvailable()
      ? {
          encrypt: (s) => safeStorage.encryptString(s).toString('base64'),
          decrypt: (s) => safeStorage.decryptString(Buffer.from(s, 'base64'))
        }
      : undefined
  })
  installLastResort(host.log)
  if (ignored.length)
    host.log.info('host', `ignored command-line arguments that are not Caduceus's: ${ignored.join(' ')}`)

  protocol.handle(APP_SCHEME, serveApp)
  session.defaultSession.setPermissionCheckHandler((_wc, permission, requestingOrigin) =>
    permissionAllowed(permission, requestingOrigin)
  )
  session.defaultSession.setPermissionRequestHandler((wc, permission, callback, details) =>
    callback(permissionAllowed(permission, (details as { requestingUrl?: string }).requestingUrl ?? wc?.getURL()))
  )
  session.defaultSession.setDevicePermissionHandler(devicePermissionAllowed)
  // A chooser answered with no device cancels the page's request (each event has its own callback shape).
  const ses = session.defaultSession
  ses.on('select-hid-device', (event, _details, callback) => (event.preventDefault(), callback()))
  ses.on('select-usb-device', (event, _details, callback) => (event.preventDefault(), callback()))
  ses.on('select-serial-port', (event, _ports, _wc, callback) => (event.preventDefault(), callback('')))

  // Only our own page may call the host; a navigated-away or injected frame gets nothing. A call whose frame is
  // gone by now (a pending delete sent on pagehide) is taken from the app's own window only.
  let appContentsId: number | null = null
  const fromAppWindow = (sender: WebContents) => {
    try {
      return appContentsId !== null && sender.id === appContentsId
    } catch {
      return false // destroyed meanwhile
    }
  }
  ipcMain.handle('caduceus:invoke', (event, name: unknown, input: unknown) => {
    if (!ipcSenderAllowed(event.senderFrame?.url ?? null, fromAppWindow(event.sender))) {
      return { ok: false, error: { code: 'unauthorized', message: 'sender not allowed' } }
    }
    return host!.dispatcher.invoke(name as string, input)
  })

  const icon = join(import.meta.dirname, '../../resources/icon.png')
  win = new BrowserWindow({
    width: 1320,
    height: 860,
    minWidth: 900,
    minHeight: 560,
    title: 'Caduceus',
    backgroundColor: '#0f1115',
    icon,
    webPreferences: {
      preload: join(import.meta.dirname, '../preload/index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false,
      // Packaged builds: no DevTools unless started with --enable-devtools (support sessions).
      devTools: devToolsAllowed(app.isPackaged, process.argv)
    }
  })
  appContentsId = win.webContents.id
  const unsubscribe = host.bus.subscribe((envelope) => {
    if (win && !win.isDestroyed()) win.webContents.send('caduceus:event', envelope)
  })
  win.on('closed', () => {
    unsubscribe()
    win = null
  })
  await win.loadURL(`${APP_ORIGIN}/index.html`)
}

// One window per user: a second launch focuses the first. Only the window is single-instance — `caduceus serve`,
// the API server and CLI commands do not take this lock and may run against the same root meanwhile.
if (!app.requestSingleInstanceLock()) {
  app.quit()
} else {
  app.on('second-instance', focusWindow)
  app.on('window-all-closed', () => app.quit())
  // Quit waits for the host to close (agents stopped, stores flushed) — but never longer than the deadline.
  let closing = false
  app.on('before-quit', (event) => {
    if (closing || !host) return
    closing = true
    event.preventDefault()
    void closeWithDeadline(() => host!.close(), 8000).then((outcome) => {
      if (outcome !== 'closed')
        console.error(
          `Caduceus: host close ${outcome === 'timeout' ? 'took longer than 8 s' : 'failed'}; quitting anyway`
        )
      app.quit()
    })
  })
  main().catch((err) => {
    console.error(`Caduceus failed to start: ${redact(err instanceof Error ? err.message : String(err))}`)
    app.exit(1)
  })
}
