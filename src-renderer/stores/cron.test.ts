import { beforeEach, describe, expect, it } from 'vitest'
import type { CronJob } from '@shared/contract'
import { installFakeApi, type FakeApi } from '../test-utils/fake-api'
import { resetStores } from '../test-utils/reset-stores'
import { saveCronJob } from './cron'

let fake: FakeApi
beforeEach(async () => {
  resetStores()
  fake = await installFakeApi({
    'cron.update': (i) => ({ id: i.id }) as unknown as CronJob,
    'cron.list': () => ({ jobs: [], clock: { zone: 'UTC', source: 'machine' as const } })
  })
})

// The form opens an upstream one-shot made as "2027-01-10T09:00+09:00": its display is "once at 2027-01-10 09:00",
// so the schedule field reads "2027-01-10 09:00" — in the profile's zone a different instant from the job's own.
const opened = { schedule: '2027-01-10 09:00', prompt: 'call', name: 'once-zoned', model: '' }

describe('saving an edited cron job', () => {
  it('sends only what was changed: an untouched schedule is not re-read (it would move the job)', async () => {
    expect(await saveCronJob({ id: 'a1b2c3d4e5f6', ...opened, prompt: 'call the bank' }, opened)).toBeNull()
    expect(fake.callsOf('cron.update')).toEqual([{ profile: 'default', id: 'a1b2c3d4e5f6', prompt: 'call the bank' }])
  })

  it('sends a schedule the user changed', async () => {
    expect(await saveCronJob({ id: 'a1b2c3d4e5f6', ...opened, schedule: 'every 2h' }, opened)).toBeNull()
    expect(fake.callsOf('cron.update')).toEqual([{ profile: 'default', id: 'a1b2c3d4e5f6', schedule: 'every 2h' }])
  })

  it("sends a model the user gave (trimmed), and '' to follow the profile's model again", async () => {
    expect(await saveCronJob({ id: 'a1b2c3d4e5f6', ...opened, model: ' gpt-x ' }, opened)).toBeNull()
    const pinned = { ...opened, model: 'gpt-x' }
    expect(await saveCronJob({ id: 'a1b2c3d4e5f6', ...pinned, model: '' }, pinned)).toBeNull()
    expect(fake.callsOf('cron.update')).toEqual([
      { profile: 'default', id: 'a1b2c3d4e5f6', model: 'gpt-x' },
      { profile: 'default', id: 'a1b2c3d4e5f6', model: '' }
    ])
  })
})
