import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SessionStore } from './src-main/store'
import { demoConfigHome, serveHost } from './test/fixtures/serve-host'
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const ticks = (pid: number) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return Number(f[11]) + Number(f[12]) }
const probes = process.argv[2] === 'probes'
const root = mkdtempSync(join(tmpdir(), 'zz-idle-'))
const logDir = mkdtempSync(join(tmpdir(), 'zz-idle-logs-'))
for (const home of [root, join(root, 'profiles', 'work'), join(root, 'profiles', 'research')]) {
  mkdirSync(home, { recursive: true }); demoConfigHome(home)
  const store = new SessionStore(join(home, 'state.db'))
  await store.createSession('bench', 'desktop', { model: 'demo-model' })
  await store.appendMessage('bench', { role: 'user', content: 'hello' }); store.close()
}
const host = await serveHost(root, { probes, logDir })
await host.call('sessions.get', { profile: 'default', sessionId: 'bench' })
if (process.argv[3] === 'turn') await host.call('sessions.resume', { profile: 'default', sessionId: 'bench', text: 'hi there' })
const pid = host.child.pid!
const out: number[] = []
for (let i = 0; i < 12; i++) { const t = ticks(pid); await sleep(5000); out.push(ticks(pid) - t) }
console.log(probes ? 'tsx' : 'built', process.argv[3] ?? '', 'ticks per 5 s:', out.join(' '), ' => % after 15 s:', (out.slice(3).reduce((a, b) => a + b, 0) / (9 * 5) ).toFixed(2))
await host.stop()
