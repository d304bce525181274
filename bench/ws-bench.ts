/**
 * WebSocket bench (issue 24): a real host process gets 1,500 `sessions.list` calls (≈ 110 KB answers) from a client
 * that reads (the control), then from one that never reads a byte. Host RSS after each, its peak in the unread run,
 * and how many answers the unread client got before the host dropped it (outbound budget: 16 MB).
 * "Back to baseline": the host's heap after a full GC (NODE_OPTIONS=--expose-gc) is back where it started.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Socket } from 'node:net'
import WebSocket from 'ws'
import { demoConfigHome, serveHost, type ServedHost } from '../test/fixtures/serve-host'

const MB = 1 << 20
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const rssMb = (pid: number) => {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0)
  return Math.round((kb / 1024) * 10) / 10
}
const INPUT = { profile: 'all', limit: 200 }

/** The host's memory after a full GC (host-main.ts answers SIGUSR2 with it when gc is exposed). */
function heldMb(host: ServedHost): Promise<{ rssMb: number; heapUsedMb: number }> {
  return new Promise((ok) => {
    const rl = createInterface({ input: host.child.stdout! })
    rl.on('line', (l) => {
      try {
        const m = JSON.parse(l)
        if (m.mem) {
          rl.close()
          ok({ rssMb: Math.round(m.mem.rssMb * 10) / 10, heapUsedMb: Math.round(m.mem.heapUsedMb * 10) / 10 })
        }
      } catch {
        /* other output */
      }
    })
    host.child.kill('SIGUSR2')
  })
}

/** Sends `calls` calls, 50 every 20 ms (few in flight: the byte budget is what counts); samples the peak RSS. */
async function flood(host: ServedHost, calls: number, read: boolean) {
  const pid = host.child.pid!
  const ws = new WebSocket(`ws://127.0.0.1:${host.port}/ws?token=${host.token}`)
  await new Promise((ok) => ws.once('open', ok))
  const socket = (ws as unknown as { _socket: Socket })._socket
  if (!read) socket.pause()
  let answers = 0
  let closeCode: number | null = null
  ws.on('message', () => answers++)
  ws.on('close', (code) => (closeCode = code))
  ws.on('error', () => undefined) // a reset is how a dropped client may learn of it
  let peak = rssMb(pid)
  for (let i = 0; i < calls; i += 50) {
    for (let j = i; j < i + 50; j++) ws.send(JSON.stringify({ t: 'call', id: j, name: 'sessions.list', input: INPUT }))
    peak = Math.max(peak, rssMb(pid))
    // The reading client paces itself on its answers, as the UI does; the other one just keeps asking.
    for (let k = 0; read && answers < i + 50 && closeCode === null && k < 400; k++) await sleep(5)
    if (!read) await sleep(20)
  }
  for (let i = 0; i < 100 && !read; i++) {
    peak = Math.max(peak, rssMb(pid))
    await sleep(25)
  }
  socket.resume() // the unread client sees its close only when it reads again
  for (let i = 0; i < 200 && closeCode === null && !read; i++) await sleep(50)
  if (closeCode === null) ws.close()
  await sleep(500)
  return { answers, closeCode, peakRssMb: peak, afterGc: await heldMb(host) }
}

export async function runWsBench(calls = 1500) {
  const root = mkdtempSync(join(tmpdir(), 'cad-wsbench-'))
  demoConfigHome(root)
  const host = await serveHost(root, { probes: true, logDir: join(root, 'logs'), env: { NODE_OPTIONS: '--expose-gc' } })
  try {
    let answerBytes = 0
    for (let i = 0; i < 20; i++) answerBytes = JSON.stringify(await host.call('sessions.list', INPUT)).length
    const baseline = await heldMb(host)
    const control = await flood(host, calls, true)
    const unread = await flood(host, calls, false)
    return {
      calls,
      answerKb: Math.round(answerBytes / 1024),
      askedForMb: Math.round((calls * answerBytes) / MB),
      baseline,
      control,
      unread,
      unreadPeakGrowthMb: Math.round((unread.peakRssMb - baseline.rssMb) * 10) / 10,
      heapAfterOverBaseline: Math.round((unread.afterGc.heapUsedMb / baseline.heapUsedMb) * 100) / 100
    }
  } finally {
    await host.stop()
    rmSync(root, { recursive: true, force: true })
  }
}
