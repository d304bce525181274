/**
 * Electron entry: window, preload and the IPC transport. Everything else is the same host the headless
 * `caduceus serve` runs (src-main/host), so this file stays thin.
 */
import { app, BrowserWindow, ipcMain, safeStorage, session, shell } from 'electron'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { createHost, type Host } from './host'
import { parseArgs } from './host/args'

let host: Host | null = null

async function main(): Promise<void> {
  await app.whenReady()
  const args = parseArgs(process.argv.slice(app.isPackaged ? 1 : 2))
  host = await createHost({
    home: args.home,
    demo: args.demo,
    headless: false,
    nativeBinding: process.env.CADUCEUS_SQLITE_BINDING || undefined,
    secretCipher: safeStorage.isEncryptionAvailable()
      ? { encrypt: (s) => safeStorage.encryptString(s).toString('base64'), decrypt: (s) => safeStorage.decryptString(Buffer.from(s, 'base64')) }
      : undefined
  })
  const rendererIndex = join(import.meta.dirname, '../renderer/index.html')
  const rendererUrl = pathToFileURL(rendererIndex).href

  // Only our own page may call the host; a navigated-away or injected frame gets nothing.
  ipcMain.handle('caduceus:invoke', (event, name: unknown, input: unknown) => {
    if (!event.senderFrame || !event.senderFrame.url.startsWith(rendererUrl.split('#')[0]!)) {
      return { ok: false, error: { code: 'unauthorized', message: 'sender not allowed' } }
    }
    return host!.dispatcher.invoke(String(name), input)
  })

  session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false))

  const win = new BrowserWindow({
    width: 1320,
    height: 860,
    minWidth: 900,
    minHeight: 560,
    title: 'Caduceus',
    backgroundColor: '#0f1115',
    icon: join(import.meta.dirname, '../../resources/icon.png'),
    webPreferences: {
      preload: join(import.meta.dirname, '../preload/index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false
    }
  })
  const unsubscribe = host.bus.subscribe((envelope) => {
    if (!win.isDestroyed()) win.webContents.send('caduceus:event', envelope)
  })
  win.on('closed', unsubscribe)
  win.webContents.setWindowOpenHandler(({ url }) => {
    if (url.startsWith('https://')) void shell.openExternal(url)
    return { action: 'deny' }
  })
  win.webContents.on('will-navigate', (event, url) => {
    if (!url.startsWith(rendererUrl.split('#')[0]!)) event.preventDefault()
  })
  await win.loadFile(rendererIndex)
}

app.on('window-all-closed', () => app.quit())
app.on('before-quit', () => {
  void host?.close()
})

main().catch((err) => {
  console.error('Caduceus failed to start:', err)
  app.exit(1)
})
