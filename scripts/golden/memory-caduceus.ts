// Drives Caduceus's memory for scripts/golden/memory_loop.py: desk turns (the host's sessions.start, as the
// composer sends it) whose scripted model calls the memory tools, and the host's memory reads of a home upstream
// wrote.
//   npx tsx memory-caduceus.ts HOME JOBS_JSON   prints {turns: {key: sessionId}, reads: {profile: {...}}}
// JOBS_JSON: {turns: [{key, profile, text, after?}], edits: [memory.edit inputs], reads: [profile]}
// `after`: a file path; before that turn the host (still running) writes `<after>.ready` and waits until the
// caller creates `<after>`, so another program can change the home between two turns of one host.
import type { TurnFinished } from '@shared/contract'
import { existsSync, writeFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { createHost } from '../../src-main/host'
import { createLogger } from '../../src-main/host/log/log'

type Turn = { key: string; profile: string; text: string; after?: string }
type Jobs = { turns?: Turn[]; edits?: unknown[]; reads?: string[] }
const [home, jobsJson] = process.argv.slice(2)
if (!home || !jobsJson) throw new Error('usage: memory-caduceus.ts HOME JOBS_JSON')
const jobs = JSON.parse(jobsJson) as Jobs

const host = await createHost({ home, headless: true, log: createLogger() })
const call = async <T>(name: string, input: unknown): Promise<T> => {
  const r = (await host.dispatcher.invoke(name as never, input as never)) as {
    ok: boolean
    output?: T
    error?: { message: string }
  }
  if (!r.ok) throw new Error(`${name}: ${r.error?.message}`)
  return r.output as T
}
const turns: Record<string, string> = {}
const edits: unknown[] = []
const reads: Record<string, unknown> = {}
try {
  for (const t of jobs.turns ?? []) {
    if (t.after) {
      writeFileSync(`${t.after}.ready`, '')
      while (!existsSync(t.after)) await sleep(50)
    }
    let sessionId = ''
    const done = new Promise<void>((resolve, reject) => {
      const off = host.bus.subscribe((e) => {
        if (e.event !== 'turn.finished') return
        const p = e.payload as TurnFinished
        if (p.sessionId !== sessionId) return
        off()
        if (p.status !== 'completed') reject(new Error(`${t.key}: turn ${p.status}: ${p.error ?? ''}`))
        else resolve()
      })
    })
    sessionId = (await call<{ sessionId: string }>('sessions.start', { profile: t.profile, text: t.text })).sessionId
    await done
    turns[t.key] = sessionId
  }
  for (const e of jobs.edits ?? []) {
    const r = (await host.dispatcher.invoke('memory.edit' as never, e as never)) as unknown
    edits.push(r)
  }
  for (const profile of jobs.reads ?? []) {
    reads[profile] = {
      memory: await call('memory.entries', { profile, target: 'memory' }),
      user: await call('memory.entries', { profile, target: 'user' }),
      health: await call('memory.health', { profile }),
      providers: await call('memory.providers', { profile }),
      events: await call('memory.events', { profile })
    }
  }
} finally {
  await host.close()
}
process.stdout.write(JSON.stringify({ turns, edits, reads }) + '\n')
