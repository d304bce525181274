/**
 * A second process's scheduler over `home` at `now` (the jobs it claims "run" by doing nothing): one real tick per
 * `tick` line on stdin, each answered with a line of the ids it ran. A tick runs at most three jobs at once, so three
 * processes cover six. Kept alive between ticks, so a test's rounds of racing ticks cost one process start each.
 */
import { createInterface } from 'node:readline'
import { CronScheduler } from '../scheduler'

const [home, now] = process.argv.slice(2)
const scheduler = new CronScheduler({
  profiles: () => [{ name: 'default', home: home! }],
  run: async () => undefined,
  upstreamLive: () => false,
  clock: () => Number(now)
})
process.stdout.write('ready\n')
for await (const line of createInterface({ input: process.stdin })) {
  if (line !== 'tick') continue
  const { ran } = await scheduler.tick()
  process.stdout.write(`${JSON.stringify(ran)}\n`)
}
