/**
 * A fresh process running one turn through the real host and exiting (what a one-shot `run -z` does):
 * `tsx one-shot-turn.ts <root> <profile> <text>` prints `{"status": …}` when the turn has finished.
 */
import { createHost, createLogger } from '..'

const [root, profile, text] = process.argv.slice(2)
const host = await createHost({ home: root!, headless: true, log: createLogger() })
let turnId = ''
const done = new Promise<string>((resolve) => {
  host.bus.subscribe((e) => {
    const p = e.payload as { turnId?: string; status?: string }
    if (e.event === 'turn.finished' && p.turnId === turnId) resolve(String(p.status))
  })
})
const res = await host.dispatcher.invoke('sessions.start', { profile, text })
if (!res.ok) {
  process.stderr.write(JSON.stringify(res))
  process.exit(2)
}
turnId = (res.output as { turnId: string }).turnId
const status = await done
await host.close()
process.stdout.write(`${JSON.stringify({ status })}\n`)
