import type { SessionPage as ListPage } from '@shared/contract'
import { test, expect } from '../fixtures/host'
import { api } from '../fixtures/external'
import { AppShell } from '../page-models/app-shell'
import { SessionPage } from '../page-models/session-page'

// A draft belongs to its session, not to the page that showed it: a send still in flight when the user goes to
// another session and back must not leave the sent text in the composer (a second Send would send it again), nor
// wipe what was typed there since.
test('a send that lands after its session was left and opened again clears the sent text, and only that', async ({
  page,
  host
}) => {
  // hold the host's answer to a send until the test lets it through
  const held: Array<() => void> = []
  let holding = true
  await page.routeWebSocket(/\/ws/, (ws) => {
    const server = ws.connectToServer()
    ws.onMessage((m) => {
      if (holding && typeof m === 'string' && m.includes('"sessions.resume"')) held.push(() => server.send(m))
      else server.send(m)
    })
  })
  const release = async () => {
    await expect.poll(() => held.length).toBe(1)
    held.shift()!()
  }
  const shell = new AppShell(page)
  const s = new SessionPage(page)
  await shell.open(host.url)
  const list = await api<ListPage>(host.url, 'sessions.list', { profile: 'default', limit: 5 })
  const [a, b] = list.items
  expect(b).toBeTruthy()
  const send = page.getByTestId('composer-send')

  // 1. sent, left, back before the answer: once it is accepted, the composer is empty
  await s.open('default', a!.id)
  await s.composer.fill('say hello')
  await send.click()
  await expect(send).toHaveText(/Sending/)
  await s.open('default', b!.id)
  await s.open('default', a!.id)
  await expect(s.composer).toHaveValue('say hello') // not accepted yet: a failed send keeps it
  await release()
  await expect(s.composer).toHaveValue('')

  // 2. typed on after coming back: what was typed stays, here and after a reload
  await s.composer.fill('say goodbye')
  await send.click()
  await expect(send).toHaveText(/Sending/)
  await s.open('default', b!.id)
  await s.open('default', a!.id)
  await s.composer.fill('say goodbye, and more')
  await release()
  holding = false
  await expect(page.getByTestId('turn-strip').last()).toBeVisible()
  await expect(s.composer).toHaveValue('say goodbye, and more')
  await page.reload()
  await expect(s.composer).toHaveValue('say goodbye, and more')
})
