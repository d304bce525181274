// The terminal tool's foreground path and the process tool, with real child processes.
import { mkdirSync, realpathSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createProcessTool, createTerminalTool, ProcessRegistry } from './index'
import { SessionStore } from '../store'
import { cleanupDirs, ctxFor, isAlive, nodeCmd, tempDir, waitUntil } from './test-fixtures/helpers'

let registry: ProcessRegistry
let home: string

beforeEach(() => {
  registry = new ProcessRegistry()
  home = tempDir()
})

afterEach(async () => {
  await registry.killAll()
  cleanupDirs()
})

const run = async (args: Record<string, unknown>, ctx = ctxFor()) =>
  JSON.parse(await createTerminalTool({ registry, cwd: home }).execute(args, ctx)) as Record<string, unknown>
const proc = async (args: Record<string, unknown>, ctx = ctxFor()) =>
  JSON.parse(await createProcessTool({ registry }).execute(args, ctx)) as Record<string, unknown>

describe('terminal (foreground)', () => {
  it('returns exit code and combined output, running in the default cwd', async () => {
    const r = await run({ command: `${nodeCmd('console.log(process.cwd()); console.error("oops"); process.exit(4)')}` })
    expect(r.exit_code).toBe(4)
    expect(r.truncated).toBe(false)
    expect(realpathSync(String(r.output).split('\n')[0]!.trim())).toBe(realpathSync(home))
    expect(r.output).toContain('oops')
    expect(r.error).toBeUndefined()
  })

  it('honours a relative cwd and rejects a missing one', async () => {
    mkdirSync(join(home, 'sub'))
    const ok = await run({ command: nodeCmd('console.log(process.cwd())'), cwd: 'sub' })
    expect(String(ok.output).trim().endsWith('sub')).toBe(true)
    const bad = await run({ command: 'true', cwd: 'nope' })
    expect(bad.error).toMatch(/not an existing directory/)
    // A cwd that is there but cannot be used says why, instead of claiming it does not exist.
    symlinkSync(join(home, 'loop'), join(home, 'loop'))
    expect((await run({ command: 'true', cwd: 'loop' })).error).toMatch(/cwd cannot be used: loop \(ELOOP/)
  })

  it('truncates huge output, keeping head and tail', async () => {
    const r = await run({ command: nodeCmd('for (let i = 0; i < 20000; i++) console.log("row " + i)') })
    expect(r.truncated).toBe(true)
    expect(r.output).toContain('row 0\n')
    expect(r.output).toContain('row 19999')
    expect(r.output).toMatch(/chars omitted/)
    expect(String(r.output).length).toBeLessThan(31_000)
  })

  it('a timeout kills the command tree', async () => {
    const dir = tempDir()
    const pidFile = join(dir, 'pid')
    const r = await run({
      command: `${nodeCmd(`require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000)`)} && echo never`,
      timeout: 1
    })
    expect(r.exit_code).toBeNull()
    expect(r.error).toMatch(/timed out/)
    expect(r.output).not.toContain('never')
    const { readFileSync } = await import('node:fs')
    const pid = Number(readFileSync(pidFile, 'utf8'))
    await waitUntil(() => !isAlive(pid))
  })

  it('aborting the turn kills the command', async () => {
    const dir = tempDir()
    const pidFile = join(dir, 'pid')
    const controller = new AbortController()
    const pending = run(
      {
        command: nodeCmd(
          `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000)`
        )
      },
      ctxFor({ signal: controller.signal })
    )
    const { existsSync, readFileSync } = await import('node:fs')
    await waitUntil(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').length > 0)
    controller.abort()
    const r = await pending
    expect(r.error).toMatch(/interrupted/)
    await waitUntil(() => !isAlive(Number(readFileSync(pidFile, 'utf8'))))
  })

  it("never echoes the calling agent's API key", async () => {
    const key = 'plain-0123456789abcdef' // no sk- prefix: only redactValues can catch it
    const ctx = ctxFor({
      agent: {
        profile: 'default',
        sessionId: 's1',
        gatewaySessionKey: '',
        maxIterations: 5,
        runtime: { model: 'm', provider: 'p', baseUrl: 'http://x', apiMode: 'chat_completions', apiKey: key }
      }
    })
    const r = await run({ command: `echo ${key}` }, ctx)
    expect(r.output).not.toContain(key)
    expect(r.exit_code).toBe(0)
  })

  it('bad arguments get a clear error, not a crash', async () => {
    expect((await run({})).error).toMatch(/command/)
    expect((await run({ command: '   ' })).error).toMatch(/command/)
    expect((await run({ command: 'true', timeout: 'soon' })).error).toMatch(/timeout/)
    expect((await run({ command: 'true', background: 'yes' })).error).toMatch(/background/)
  })
})

describe('process tool', () => {
  it('poll shows a background process running, then exited with its output', async () => {
    const started = await run({ command: nodeCmd('setTimeout(() => console.log("FINISHED"), 200)'), background: true })
    const id = String(started.process_id)
    const first = await proc({ action: 'poll', process_id: id })
    expect(['running', 'exited']).toContain(first.status)
    await registry.wait(id)
    const later = await proc({ action: 'poll', process_id: id })
    expect(later).toMatchObject({ process_id: id, status: 'exited', exit_code: 0 })
    expect(later.output).toContain('FINISHED')
    const list = await proc({ action: 'list' })
    expect((list.processes as Array<{ process_id: string }>).map((p) => p.process_id)).toEqual([id])
  })

  it('kill stops a running process; a second kill reports false', async () => {
    const started = await run({ command: 'sleep 30 && echo DONE', background: true })
    const id = String(started.process_id)
    expect(await proc({ action: 'kill', process_id: id })).toMatchObject({ killed: true, status: 'killed' })
    await registry.wait(id)
    expect(await proc({ action: 'kill', process_id: id })).toMatchObject({ killed: false, status: 'killed' })
  })

  it('kill on an ended shell reaches the child it left running; the record stays exited', async () => {
    const started = await run({ command: 'sleep 30 & echo "pid=$!"', background: true })
    const id = String(started.process_id)
    const done = await registry.wait(id)
    const pid = Number(/pid=(\d+)/.exec(done!.output)?.[1])
    expect(await proc({ action: 'kill', process_id: id })).toMatchObject({ killed: true, status: 'exited' })
    await waitUntil(() => !isAlive(pid))
    expect(await proc({ action: 'kill', process_id: id })).toMatchObject({ killed: false, status: 'exited' })
  })

  it("another profile's process id is unknown; bad actions are errors", async () => {
    const started = await run({ command: 'sleep 30', background: true })
    expect(
      (await proc({ action: 'poll', process_id: started.process_id }, ctxFor({ profile: 'other' }))).error
    ).toMatch(/Unknown process/)
    expect((await proc({ action: 'poll' })).error).toMatch(/process_id/)
    expect((await proc({ action: 'explode' })).error).toMatch(/action/)
  })

  it("the terminal tool's cleanupTask (Agent.close) kills that session's processes", async () => {
    const tool = createTerminalTool({ registry, cwd: home })
    const a = JSON.parse(await tool.execute({ command: 'sleep 30', background: true }, ctxFor({ sessionId: 'sa' })))
    const b = JSON.parse(await tool.execute({ command: 'sleep 30', background: true }, ctxFor({ sessionId: 'sb' })))
    await tool.cleanupTask!('sa')
    expect((await registry.wait(a.process_id))?.status).toBe('killed')
    expect(registry.poll(b.process_id)?.status).toBe('running')
  })

  // Compression moves the agent to a new session id mid-conversation; its processes keep the id they started under.
  it('after a compression, list shows and Agent.close kills the processes started before it (not other sessions)', async () => {
    const store = new SessionStore(join(tempDir(), 'state.db'), { profile: 'default' })
    try {
      await store.createSession('seg1', 'desktop')
      await store.endSession('seg1', 'compression')
      await store.createSession('seg2', 'desktop', { parentSessionId: 'seg1' })
      await store.createSession('other', 'desktop')
      const conversationOf = (sid: string) => store.compressionChainIds(sid)
      const tool = createTerminalTool({ registry, cwd: home, conversationOf })
      const ps = createProcessTool({ registry, conversationOf })
      const start = async (sessionId: string) =>
        JSON.parse(await tool.execute({ command: 'sleep 30', background: true }, ctxFor({ sessionId })))
          .process_id as string
      const before = await start('seg1')
      const after = await start('seg2')
      const elsewhere = await start('other')
      const listed = JSON.parse(await ps.execute({ action: 'list' }, ctxFor({ sessionId: 'seg2' }))) as {
        processes: Array<{ process_id: string }>
      }
      expect(listed.processes.map((p) => p.process_id).sort()).toEqual([before, after].sort())
      await tool.cleanupTask!('seg2') // the agent's session id is the tip's now
      expect((await registry.wait(before))?.status).toBe('killed')
      expect((await registry.wait(after))?.status).toBe('killed')
      expect(registry.poll(elsewhere)?.status).toBe('running')
    } finally {
      store.close()
    }
  })
})
