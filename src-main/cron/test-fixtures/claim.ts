/** A second process's scheduler tick: claim due jobs of `home` at `now` and print the claimed ids. */
import { claimDueJobs } from '../scheduler'

const [home, now] = process.argv.slice(2)
const claimed = await claimDueJobs(home!, Number(now))
process.stdout.write(JSON.stringify(claimed.map((j) => j.id)))
