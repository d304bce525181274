// Writes sessions through Caduceus's desk chat (the host's sessions.start, as the app's composer sends it), for
// scripts/golden/resume_loop.py to resume with upstream's own agent loop.
//   npx tsx resume-caduceus.ts HOME CASES_JSON   prints {key: sessionId}
// CASES_JSON: [{key, text, title?, turns?}]: `turns` is how many turns end in the session (a background delegation's
// completion is delivered as a second turn); `title` is set afterwards as the app's rename does.
import type { TurnFinished } from '@shared/contract'
import { createHost } from '../../src-main/host'
import { createLogger } from '../../src-main/host/log/log'

type Case = { key: string; text: string; title?: string; turns?: number }
const [home, casesJson] = process.argv.slice(2)
if (!home || !casesJson) throw new Error('usage: resume-caduceus.ts HOME CASES_JSON')
const cases = JSON.parse(casesJson) as Case[]
const profile = 'default'

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
const ids: Record<string, string> = {}
try {
  for (const c of cases) {
    let sessionId = ''
    let ended = 0
    const done = new Promise<void>((resolve, reject) => {
      const off = host.bus.subscribe((e) => {
        if (e.event !== 'turn.finished') return
        const p = e.payload as TurnFinished
        if (p.sessionId !== sessionId) return
        if (p.status !== 'completed') reject(new Error(`${c.key}: turn ${p.status}: ${p.error ?? ''}`))
        if (++ended >= (c.turns ?? 1)) {
          off()
          resolve()
        }
      })
    })
    sessionId = (await call<{ sessionId: string }>('sessions.start', { profile, text: c.text })).sessionId
    await done
    if (c.title) await call('sessions.update', { profile, sessionId, title: c.title })
    ids[c.key] = sessionId
  }
} finally {
  await host.close()
}
process.stdout.write(JSON.stringify(ids) + '\n')
