// Issue 10 item 6: the headless host sends the app's CSP as a response header (the same policy Electron sends
// for app://), and the real UI runs under it — WebSocket included — without a single violation.
import { createServer as createHttpServer, request, type IncomingHttpHeaders } from 'node:http'
import { connect, createServer, type AddressInfo, type Server } from 'node:net'
import { test, expect, startHost } from '../fixtures/host'
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

const listen = async <T extends Server>(server: T): Promise<number> => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return (server.address() as AddressInfo).port
}

test('the UI works through an SSH-style tunnel on another port and behind a named proxy under a sub-path', async ({
  page
}) => {
  const host = await startHost({ args: ['--allow-host', 'proxy.example'] })
  // `ssh -L <other>:127.0.0.1:<port>`: bytes forwarded as they are, so the browser's Host and Origin name its port.
  const tunnel = createServer((client) => {
    const upstream = connect(host.port, '127.0.0.1')
    client.pipe(upstream).pipe(client)
    client.on('error', () => upstream.destroy())
    upstream.on('error', () => client.destroy())
  })
  // A reverse proxy serving the app under /caduceus/ (nginx `location /caduceus/ { proxy_pass http://127.0.0.1:P/; }`)
  // as https://proxy.example: the Host and Origin the host sees are that name's, which --allow-host lets in.
  // Only that prefix is proxied: the page asking for anything outside it (an absolute `/ws`) gets the proxy's 404.
  const outside: string[] = []
  const strip = (url = '/') => {
    if (url.startsWith('/caduceus/')) return url.slice('/caduceus'.length)
    outside.push(url)
    return null
  }
  const asProxy = (headers: IncomingHttpHeaders) => ({
    ...headers,
    host: 'proxy.example',
    ...(headers.origin ? { origin: 'https://proxy.example' } : {})
  })
  const proxy = createHttpServer((req, res) => {
    const path = strip(req.url)
    if (path === null) return void res.writeHead(404).end()
    const up = request({ host: '127.0.0.1', port: host.port, path, method: req.method, headers: asProxy(req.headers) })
    up.on('response', (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers)
      r.pipe(res)
    })
    up.on('error', () => res.destroy())
    req.pipe(up)
  })
  proxy.on('upgrade', (req, socket, head) => {
    const path = strip(req.url)
    if (path === null) return void socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n')
    const upstream = connect(host.port, '127.0.0.1', () => {
      const lines = Object.entries(asProxy(req.headers)).map(([k, v]) => `${k}: ${String(v)}`)
      upstream.write(`GET ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`)
      upstream.write(head)
      socket.pipe(upstream).pipe(socket)
    })
    socket.on('error', () => upstream.destroy())
    upstream.on('error', () => socket.destroy())
  })
  const tunnelPort = await listen(tunnel)
  const proxyPort = await listen(proxy)
  try {
    const token = new URL(host.url).search
    const shell = new AppShell(page)
    await shell.open(`http://localhost:${tunnelPort}/${token}`)
    await expect(new SessionsPage(page).rows.first()).toBeVisible()

    await shell.open(`http://localhost:${proxyPort}/caduceus/${token}`)
    await expect(new SessionsPage(page).rows.first()).toBeVisible()
    expect(outside).toEqual([])
  } finally {
    tunnel.close()
    proxy.close()
    proxy.closeAllConnections()
    await host.close()
  }
})
