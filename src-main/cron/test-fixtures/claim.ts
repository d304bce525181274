/**
 * A second process's scheduler: one real tick over `home` at `now` (the jobs it claims "run" by doing nothing),
 * printing the ids it ran. A tick runs at most three jobs at once, so three processes cover six.
 */
import { CronScheduler } from '../scheduler'

const [home, now] = process.argv.slice(2)
const scheduler = new CronScheduler({
  profiles: () => [{ name: 'default', home: home! }],
  run: async () => undefined,
  upstreamLive: () => false,
  clock: () => Number(now)
})
const { ran } = await scheduler.tick()
process.stdout.write(JSON.stringify(ran))
