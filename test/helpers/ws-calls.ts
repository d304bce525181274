import WebSocket from 'ws'

type Frame = Record<string, unknown>
type Answer = { ok: boolean; output?: any; error?: any }

/** A test's WebSocket client of a headless host: every frame kept, calls answered by id, a desk turn run to its end. */
export interface WsCalls {
  /** Every frame the host sent, parsed and as it came (a secret must be in neither). */
  frames: Frame[]
  rawFrames: string[]
  /** A request's whole answer, failed ones included. */
  send(name: string, input: unknown): Promise<Answer>
  /** A request's output; a failed one throws its error. */
  call(name: string, input: unknown): Promise<any>
  /** Starts a desk turn in the default profile and waits for its `turn.finished`. */
  turn(text: string): Promise<{ finished: any; sessionId: string }>
  close(): void
}

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms))

export async function connectCalls(host: { port: number; token: string }): Promise<WsCalls> {
  const ws = new WebSocket(`ws://127.0.0.1:${host.port}/ws?token=${host.token}`)
  const frames: Frame[] = []
  const rawFrames: string[] = []
  ws.on('message', (d) => {
    rawFrames.push(d.toString())
    frames.push(JSON.parse(d.toString()))
  })
  await new Promise((r, j) => {
    ws.once('open', r)
    ws.once('error', j)
  })
  let nextId = 1
  const send = async (name: string, input: unknown): Promise<Answer> => {
    const id = nextId++
    ws.send(JSON.stringify({ t: 'call', id, name, input }))
    for (;;) {
      const hit = frames.find((f) => f.t === 'result' && f.id === id)
      if (hit) return hit as Answer
      await tick(20)
    }
  }
  const call = async (name: string, input: unknown): Promise<any> => {
    const r = await send(name, input)
    if (!r.ok) throw new Error(JSON.stringify(r.error))
    return r.output
  }
  const turn = async (text: string) => {
    const handle = await call('sessions.start', { profile: 'default', text })
    for (;;) {
      const f = frames.find(
        (x) => x.t === 'event' && x.event === 'turn.finished' && (x.payload as any).turnId === handle.turnId
      )
      if (f) return { finished: f.payload as any, sessionId: handle.sessionId as string }
      await tick(50)
    }
  }
  return { frames, rawFrames, send, call, turn, close: () => ws.close() }
}
