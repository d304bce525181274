// The Electron window's security rules as pure functions (src-main/index.ts only wires them; no Electron here).
import { describe, expect, it } from 'vitest'
import {
  APP_ORIGIN,
  appRequestPath,
  closeWithDeadline,
  externalUrlToOpen,
  filterAppArgs,
  ipcSenderAllowed,
  isAppUrl,
  permissionAllowed
} from './app-policy'
import { appCsp } from '../transport/static-files'
import { parseArgs } from '../cli/args'

describe('CSP', () => {
  const csp = appCsp()
  const directive = (name: string) => csp.split('; ').find((d) => d.startsWith(`${name} `))
  it('forbids plugins, <base>, framing and form posts', () => {
    expect(directive('object-src')).toBe("object-src 'none'")
    expect(directive('base-uri')).toBe("base-uri 'none'")
    expect(directive('frame-ancestors')).toBe("frame-ancestors 'none'")
    expect(directive('form-action')).toBe("form-action 'none'")
  })
  it('connects to its own origin only: no remote, no bare ws:/wss:/https: scheme', () => {
    expect(directive('connect-src')).toBe("connect-src 'self'")
    expect(csp).not.toMatch(/\b(ws|wss|https?):(\s|;|$)|\*/)
    expect(directive('script-src')).toBe("script-src 'self'")
  })
})

describe('navigation allow-list', () => {
  it.each([
    [`${APP_ORIGIN}/index.html`, true],
    [`${APP_ORIGIN}/#/sessions`, true],
    ['app://caduceus', true],
    ['app://evil/index.html', false],
    ['app://user:pw@caduceus/', false],
    ['file:///etc/passwd', false],
    ['https://example.com/', false],
    ['http://127.0.0.1:5173/', false],
    ['javascript:alert(1)', false],
    ['data:text/html,<script>x</script>', false],
    ['not a url', false],
    ['', false]
  ])('%s → %s', (url, ok) => {
    expect(isAppUrl(url)).toBe(ok)
  })

  it('only plain https links open outside, never with credentials', () => {
    expect(externalUrlToOpen('https://docs.example.com/a?b=1')).toBe('https://docs.example.com/a?b=1')
    for (const bad of [
      'http://example.com',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'https://u:p@example.com/',
      'smb://host/share',
      'nope'
    ]) {
      expect(externalUrlToOpen(bad)).toBeNull()
    }
  })
})

describe('IPC sender', () => {
  it("takes the app's page, and a call whose frame is gone only from the app's own window", () => {
    expect(ipcSenderAllowed(`${APP_ORIGIN}/index.html`, false)).toBe(true)
    expect(ipcSenderAllowed('https://example.com/', true)).toBe(false)
    // a pending delete sent on pagehide: the frame reloaded or closed before main read it
    expect(ipcSenderAllowed(null, true)).toBe(true)
    expect(ipcSenderAllowed(null, false)).toBe(false)
  })
})

describe('permission policy', () => {
  it('refuses everything except a sanitized clipboard write from the app itself', () => {
    expect(permissionAllowed('clipboard-sanitized-write', `${APP_ORIGIN}/index.html`)).toBe(true)
    expect(permissionAllowed('clipboard-sanitized-write', 'https://example.com')).toBe(false)
    for (const p of [
      'media',
      'geolocation',
      'notifications',
      'midi',
      'hid',
      'serial',
      'usb',
      'openExternal',
      'fullscreen',
      'clipboard-read',
      'unknown'
    ]) {
      expect(permissionAllowed(p, APP_ORIGIN)).toBe(false)
    }
    expect(permissionAllowed('clipboard-sanitized-write', null)).toBe(false)
  })
})

describe('app protocol paths', () => {
  it.each([
    [`${APP_ORIGIN}/`, '/index.html'],
    [`${APP_ORIGIN}/assets/a.js`, '/assets/a.js'],
    [`${APP_ORIGIN}/a%20b.css`, '/a b.css'],
    [`${APP_ORIGIN}/%`, null],
    [`${APP_ORIGIN}/%c0%ae%c0%ae/x`, null],
    [`${APP_ORIGIN}/x%00.js`, null],
    [`${APP_ORIGIN}/..%2f..%2fsecret`, null],
    ['app://other/index.html', null],
    ['https://caduceus/index.html', null]
  ])('%s → %s', (url, path) => {
    expect(appRequestPath(url)).toBe(path)
  })
})

describe('argv filter', () => {
  it('keeps our flags and drops Chromium switches, so the strict parser never aborts the app', () => {
    const argv = [
      '--no-sandbox',
      '--home',
      '/h',
      '--enable-logging=stderr',
      '-psn_0_12345',
      '--demo',
      '--remote-debugging-port=9222',
      '--profile=work',
      'stray'
    ]
    const { args, ignored } = filterAppArgs(argv)
    expect(args).toEqual(['--home', '/h', '--demo', '--profile=work'])
    expect(ignored).toEqual([
      '--no-sandbox',
      '--enable-logging=stderr',
      '-psn_0_12345',
      '--remote-debugging-port=9222',
      'stray'
    ])
    expect(() => parseArgs(argv)).toThrow(/unknown flag/)
    expect(parseArgs(args)).toMatchObject({ home: '/h', demo: true, profile: 'work' })
  })
})

describe('before-quit deadline', () => {
  it('waits for a closing host, but not past the deadline', async () => {
    expect(await closeWithDeadline(() => new Promise((r) => setTimeout(r, 10)), 2000)).toBe('closed')
    expect(await closeWithDeadline(() => new Promise(() => undefined), 50)).toBe('timeout')
    expect(await closeWithDeadline(() => Promise.reject(new Error('x')), 2000)).toBe('failed')
  })
})

describe('the page’s own <meta> CSP', () => {
  it('is the header policy (minus frame-ancestors, which a meta tag cannot carry)', async () => {
    const { readFileSync } = await import('node:fs')
    const html = readFileSync(new URL('../../../src-renderer/index.html', import.meta.url), 'utf8')
    const meta = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html)![1]
    expect(meta).toBe(
      appCsp()
        .split('; ')
        .filter((d) => !d.startsWith('frame-ancestors'))
        .join('; ')
    )
  })
})
