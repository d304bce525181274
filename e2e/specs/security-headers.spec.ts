// Issue 10 item 6: the headless host sends the app's CSP as a response header (the same policy Electron sends
// for app://), and the real UI runs under it — WebSocket included — without a single violation.
import { test, expect } from '../fixtures/host'
import { AppShell } from '../page-models/app-shell'
import { SessionsPage } from '../page-models/sessions-page'

test('the UI is served with the CSP header and works under it', async ({ page, host }) => {
  const violations: string[] = []
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text())
  })
  const response = await page.goto(host.url)
  const csp = response!.headers()['content-security-policy'] ?? ''
  expect(csp).toContain("object-src 'none'")
  expect(csp).toContain("base-uri 'none'")
  expect(csp).toContain("frame-ancestors 'none'")
  expect(csp).toMatch(/connect-src 'self'(;|$)/)
  expect(csp).not.toMatch(/\b(ws|wss|https?):(\s|;|$)|\*/)

  // The page still reaches its host over the WebSocket ('self' covers ws:// on the same origin).
  await new AppShell(page).open(host.url)
  await expect(new SessionsPage(page).rows.first()).toBeVisible()
  expect(violations).toEqual([])

  // A hostile path from the browser (an <img src="/%"> on any page) answers 400 and the host keeps serving.
  const bad = await page.request.get(`http://127.0.0.1:${host.port}/%`)
  expect(bad.status()).toBe(400)
  expect((await page.request.get(`http://127.0.0.1:${host.port}/api/health`)).status()).toBe(200)
})
