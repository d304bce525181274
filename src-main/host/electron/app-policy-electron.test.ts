// Issue 24's Electron rules as pure functions, and how src-main/index.ts wires them (no Electron binary runs here).
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import {
  APP_ORIGIN,
  appResponseHeaders,
  devicePermissionAllowed,
  devToolsAllowed,
  frameNavigationAllowed
} from './app-policy'
import { appCsp } from '../transport/static-files'

const entry = readFileSync(new URL('../../index.ts', import.meta.url), 'utf8')

describe('app:// responses', () => {
  it('every response carries the CSP and nosniff, an error page as much as a file', () => {
    expect(appResponseHeaders('text/plain; charset=utf-8')).toEqual({
      'content-type': 'text/plain; charset=utf-8',
      'content-security-policy': appCsp(),
      'x-content-type-options': 'nosniff'
    })
    // The entry builds its 404s and its files from the same headers, and has no other Response.
    expect(entry.match(/new Response\(/g)).toHaveLength(2)
    expect(entry.match(/appResponseHeaders\(/g)).toHaveLength(2)
  })
})

describe('frame navigation', () => {
  it.each([
    [`${APP_ORIGIN}/index.html`, true, true],
    [`${APP_ORIGIN}/index.html`, false, false],
    ['https://example.com/', true, false],
    ['https://example.com/', false, false],
    ['about:blank', false, false],
    ['javascript:alert(1)', true, false]
  ])('%s (main frame %s) → %s', (url, main, allowed) => {
    expect(frameNavigationAllowed(url, main)).toBe(allowed)
  })
})

describe('devices and DevTools', () => {
  it('refuses every device permission and answers every chooser with no device', () => {
    expect(devicePermissionAllowed()).toBe(false)
    for (const chooser of ['select-hid-device', 'select-serial-port', 'select-usb-device', 'select-bluetooth-device'])
      expect(entry).toMatch(
        new RegExp(`on\\('${chooser}', \\(event[^)]*\\) =>\\s*[({]?\\s*event\\.preventDefault\\(\\)`)
      )
    expect(entry).toContain('setDevicePermissionHandler(devicePermissionAllowed)')
    expect(entry).toContain("contents.on('select-bluetooth-device'")
  })

  it('DevTools: on in development, off in a packaged build unless started with the support flag', () => {
    expect(devToolsAllowed(false, [])).toBe(true)
    expect(devToolsAllowed(true, ['/opt/Caduceus/caduceus'])).toBe(false)
    expect(devToolsAllowed(true, ['/opt/Caduceus/caduceus', '--enable-devtools'])).toBe(true)
    expect(entry).toContain('devTools: devToolsAllowed(app.isPackaged, process.argv)')
  })

  it('the sandbox is switched on for the whole app before it is ready', () => {
    const sandbox = entry.indexOf('app.enableSandbox()')
    expect(sandbox).toBeGreaterThan(0)
    expect(sandbox).toBeLessThan(entry.indexOf('app.whenReady()'))
    expect(entry).toContain("contents.on('will-frame-navigate'")
  })
})
