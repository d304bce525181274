/**
 * Window security policy as pure functions (no `electron` import), so every rule runs under Node in tests and
 * src-main/index.ts only wires them: the Content-Security-Policy sent as a response header (app protocol and the
 * headless host alike), which URLs a window may navigate to or open, which permissions a page gets, and which
 * command-line arguments are ours (Chromium's own switches are ignored, not fatal).
 */
import { appCsp, safeDecodePath } from '../transport'
import { parseUrl } from '@shared/contract/errors'

/** The renderer's origin in Electron: a custom privileged scheme served with headers (file:// cannot carry a CSP). */
export const APP_SCHEME = 'app'
export const APP_HOST = 'caduceus'
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`

/**
 * Headers for every app:// response, errors included: a 404 page is a page too, and without the CSP it would be the
 * one place a script could run.
 */
export function appResponseHeaders(type: string): Record<string, string> {
  return { 'content-type': type, 'content-security-policy': appCsp(), 'x-content-type-options': 'nosniff' }
}

/** A window may navigate (or be redirected) only within the app's own origin. */
export function isAppUrl(url: string): boolean {
  const u = parseUrl(url)
  return !!u && u.protocol === `${APP_SCHEME}:` && u.host === APP_HOST && !u.username && !u.password
}

/**
 * Whether an IPC call may reach the host: only from the app's own page. `frameUrl` is the sending frame's URL, null
 * when that frame navigated or closed after it sent (the delete a page sends on pagehide as it reloads or its window
 * closes). Such a call is taken when it came from the app's own window (`fromAppWindow`): the preload runs in its main
 * frame only, so no other frame of it holds the bridge, and the window never navigates off the app's origin.
 */
export function ipcSenderAllowed(frameUrl: string | null, fromAppWindow: boolean): boolean {
  return frameUrl === null ? fromAppWindow : isAppUrl(frameUrl)
}

/** A link the user clicked may open in the system browser only if it is plain https without credentials. */
export function externalUrlToOpen(url: string): string | null {
  const u = parseUrl(url)
  if (!u || u.protocol !== 'https:' || u.username || u.password || !u.hostname) return null
  return u.href
}

// Everything else (camera, microphone, geolocation, notifications, midi, hid, serial, usb, fullscreen…) is refused.
const ALLOWED_PERMISSIONS = new Set(['clipboard-sanitized-write'])

/** Permission check and request policy: only the app's own page, only the few harmless permissions above. */
export function permissionAllowed(permission: string, requestingUrl: string | null | undefined): boolean {
  return ALLOWED_PERMISSIONS.has(permission) && typeof requestingUrl === 'string' && isAppUrl(requestingUrl)
}

/**
 * Any frame's navigation (`will-frame-navigate`): the main frame only within the app; a subframe never (the CSP has
 * frame-src 'none', so a subframe navigating is already something going wrong).
 */
export function frameNavigationAllowed(url: string, isMainFrame: boolean): boolean {
  return isMainFrame && isAppUrl(url)
}

/**
 * WebHID, Web Serial, WebUSB and Web Bluetooth: the app uses none. Device permission is refused, and the entry
 * answers every device chooser (`select-hid-device`, `-serial-port`, `-usb-device`, `-bluetooth-device`) with none.
 */
export const devicePermissionAllowed = (): boolean => false

/** The flag that turns DevTools on in a packaged build, for support sessions. */
const DEVTOOLS_FLAG = '--enable-devtools'

/** DevTools: always in development; in a packaged build only when started with DEVTOOLS_FLAG. */
export function devToolsAllowed(packaged: boolean, argv: readonly string[]): boolean {
  return !packaged || argv.includes(DEVTOOLS_FLAG)
}

/**
 * Map an app-protocol request to a file under the renderer folder: `null` for anything that is not a clean path
 * inside it (malformed escapes, `..`, NUL, another host). `/` is index.html.
 */
export function appRequestPath(url: string): string | null {
  const u = parseUrl(url)
  if (!u || u.protocol !== `${APP_SCHEME}:` || u.host !== APP_HOST) return null
  const target = safeDecodePath(u.pathname || '/')
  if (!target.ok) return null
  return target.pathname === '/' ? '/index.html' : target.pathname
}

// Our flags and whether each takes a value (host/cli/args.ts parses them; keep the two in step).
const APP_FLAGS: Record<string, boolean> = {
  '--home': true,
  '--port': true,
  '--profile': true,
  '--limit': true,
  '--query': true,
  '--demo': false,
  '--open': false,
  '--json': false
}

/**
 * Keep only Caduceus's own flags from an Electron argv (already sliced past the executable/app path). Chromium and
 * Electron switches (`--no-sandbox`, `--enable-logging`, macOS `-psn_…`) and stray positionals are dropped so the
 * strict parser never aborts the app on them; `ignored` lists them for the log.
 */
export function filterAppArgs(argv: string[]): { args: string[]; ignored: string[] } {
  const args: string[] = []
  const ignored: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    const flag = arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg
    const takesValue = APP_FLAGS[flag]
    if (takesValue === undefined) {
      ignored.push(arg)
      continue
    }
    args.push(arg)
    if (takesValue && !arg.includes('=') && i + 1 < argv.length) args.push(argv[++i]!)
  }
  return { args, ignored }
}

/**
 * Wait for `close()` but never past `ms`: quitting must not hang on a stuck host, nor cut a closing one short.
 */
export async function closeWithDeadline(
  close: () => Promise<void>,
  ms: number
): Promise<'closed' | 'timeout' | 'failed'> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const deadline = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), ms)))
  try {
    return await Promise.race([
      close().then(
        () => 'closed' as const,
        () => 'failed' as const
      ),
      deadline
    ])
  } finally {
    clearTimeout(timer)
  }
}
