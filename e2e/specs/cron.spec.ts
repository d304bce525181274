import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test, expect } from '../fixtures/host'
import { AppShell } from '../page-models/app-shell'
import { CronPage } from '../page-models/cron-page'
import { SessionPage } from '../page-models/session-page'

test('create a cron job on the Cron page, run it now, open its session', async ({ page, host }) => {
  const shell = new AppShell(page)
  const cron = new CronPage(page)
  await shell.open(host.url)
  await cron.open()

  // A bad schedule is refused as you type, listing the accepted forms.
  await page.getByTestId('cron-new').click()
  await page.getByTestId('cron-schedule').fill('whenever')
  await expect(page.getByTestId('cron-preview-error')).toContainText('every 30m')
  await page.getByRole('button', { name: 'Cancel' }).click()

  await cron.create('every 2h', 'Summarise the state of the parser project', 'Parser digest')
  const row = cron.job('Parser digest')
  await expect(row).toContainText('every 120m')
  // A toolset upstream's cron tool may have named (jobs.json is shared): the run says it had none of it.
  const id = await row.getAttribute('data-id')
  const jobsPath = join(host.root, 'cron', 'jobs.json')
  const file = JSON.parse(readFileSync(jobsPath, 'utf8'))
  file.jobs.find((j: { id: string }) => j.id === id).enabled_toolsets = ['web']
  writeFileSync(jobsPath, JSON.stringify(file))
  await cron.runNow(row)
  await expect(page.getByTestId('cron-output')).toContainText('Summarise the state of the parser project')
  await expect(row.getByTestId('cron-last-warning')).toHaveText(
    'enabled_toolsets names web: no such tools on this host; the job ran without them'
  )

  const outputs = join(host.root, 'cron', 'output', id!)
  expect(existsSync(outputs) && readdirSync(outputs).some((f) => f.endsWith('.md'))).toBe(true)

  await row.getByTestId('cron-open-session').click()
  const session = new SessionPage(page)
  await expect(session.transcript).toBeVisible()
  await expect(session.messagesByRole('user').first()).toContainText('Summarise the state of the parser project')
  await expect(page).toHaveURL(new RegExp(`#/session/default/cron_${id}_`))
})

test('the Gateway page lists the channels with their async-delivery capability', async ({ page, host }) => {
  await new AppShell(page).open(host.url, '#/gateway')
  const channels = page.getByTestId('gateway-channels')
  await expect(channels.getByTestId('channel-desk')).toContainText('async delivery')
  await expect(channels.getByTestId('channel-api')).toContainText('stateless')
  await expect(channels.getByTestId('channel-api')).toContainText('off')
  await expect(channels.getByTestId('channel-cron')).toContainText('stateless')
  await expect(channels.getByTestId('channel-cron')).toContainText('running')
})
