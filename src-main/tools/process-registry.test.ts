// ProcessRegistry with real child processes: status, bounded output, kill paths, completion rules.
import { readFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { runInProfileScope } from '../scope'
import { ProcessRegistry } from './index'
import { type ProcessCompletion } from './process-types'
import { cleanupDirs, isAlive, nodeCmd, tempDir, waitUntil } from './test-fixtures/helpers'

let registry: ProcessRegistry
let completions: ProcessCompletion[]
const base = { profile: 'default', sessionId: 's1', notify: false }

beforeEach(() => {
  completions = []
  registry = new ProcessRegistry({ onComplete: (c) => void completions.push(c), outputChars: 1000 })
})

afterEach(async () => {
  await registry.killAll()
  cleanupDirs()
})

/** A command that records its own pid, then idles until killed. */
function idler(dir: string): string {
  return nodeCmd(
    `require('fs').writeFileSync(${JSON.stringify(join(dir, 'pid'))}, String(process.pid)); setInterval(() => {}, 1000)`
  )
}

async function idlerPid(dir: string): Promise<number> {
  await waitUntil(() => existsSync(join(dir, 'pid')) && readFileSync(join(dir, 'pid'), 'utf8').length > 0)
  return Number(readFileSync(join(dir, 'pid'), 'utf8'))
}

describe('ProcessRegistry', () => {
  it('runs a command to exit; poll shows status, exit code and output', async () => {
    const cwd = tempDir()
    const p = registry.start({
      ...base,
      command: nodeCmd('console.log(process.cwd()); console.error("warn"); process.exit(3)'),
      cwd
    })
    expect(p.status).toBe('running')
    expect(p.id).toMatch(/^proc_[0-9a-f]{12}$/)
    const done = await registry.wait(p.id)
    expect(done).toMatchObject({ status: 'exited', exitCode: 3 })
    expect(done!.output).toContain(cwd)
    expect(done!.output).toContain('warn')
    expect(registry.poll(p.id)?.status).toBe('exited')
    expect(registry.poll('proc_nope')).toBeNull()
  })

  it('keeps only the tail of a chatty process', async () => {
    const p = registry.start({
      ...base,
      command: nodeCmd('for (let i = 0; i < 5000; i++) console.log("line " + i)'),
      cwd: tempDir()
    })
    const done = await registry.wait(p.id)
    expect(done!.truncated).toBe(true)
    expect(done!.output).toContain('line 4999')
    expect(done!.output).not.toContain('line 1\n')
    expect(done!.output.length).toBeLessThan(1200)
  })

  it('kill ends the whole process tree, delivers no completion and drops the watcher', async () => {
    const dir = tempDir()
    const p = registry.start({
      ...base,
      notify: true,
      command: `${idler(dir)} && echo after`,
      cwd: dir,
      watcher: {
        sessionId: 's1',
        sessionKey: 'k',
        platform: 'telegram',
        chatId: '1',
        threadId: '',
        userId: '',
        profile: 'default'
      }
    })
    const pid = await idlerPid(dir)
    expect(registry.pendingWatchers).toHaveLength(1)
    expect(registry.kill(p.id)).toBe(true)
    expect(registry.pendingWatchers).toHaveLength(0)
    const done = await registry.wait(p.id)
    expect(done!.status).toBe('killed')
    await waitUntil(() => !isAlive(pid))
    expect(done!.output).not.toContain('after')
    expect(completions).toHaveLength(0)
    expect(registry.kill(p.id)).toBe(false)
  })

  it('killAllForSession kills only that session (the hard-close path)', async () => {
    const a = tempDir()
    const b = tempDir()
    const pa = registry.start({ ...base, sessionId: 'sa', command: idler(a), cwd: a })
    const pb = registry.start({ ...base, sessionId: 'sb', command: idler(b), cwd: b })
    const [pidA, pidB] = [await idlerPid(a), await idlerPid(b)]
    expect(registry.killAllForSession('sa')).toBe(1)
    await registry.wait(pa.id)
    await waitUntil(() => !isAlive(pidA))
    expect(registry.poll(pb.id)?.status).toBe('running')
    expect(isAlive(pidB)).toBe(true)
  })

  it('killAll (host close) kills everything and refuses new work', async () => {
    const dir = tempDir()
    registry.start({ ...base, command: idler(dir), cwd: dir })
    const pid = await idlerPid(dir)
    await registry.killAll()
    await waitUntil(() => !isAlive(pid))
    expect(registry.list().every((p) => p.status === 'killed')).toBe(true)
    expect(() => registry.start({ ...base, command: 'true', cwd: dir })).toThrow(/closed/)
  })

  it('a notify process that exits by itself fires one completion with a redacted tail', async () => {
    const secret = 'sk-live-abcdefghijklmnop'
    const p = registry.start({
      ...base,
      notify: true,
      secrets: [secret],
      command: nodeCmd(`console.log("key=${secret} done"); process.exit(2)`),
      cwd: tempDir()
    })
    await registry.wait(p.id)
    expect(completions).toHaveLength(1)
    expect(completions[0]).toMatchObject({ processId: p.id, exitCode: 2, sessionId: 's1', profile: 'default' })
    expect(completions[0]!.outputTail).toContain('done')
    expect(completions[0]!.outputTail).not.toContain(secret)
  })

  it('a failing completion consumer does not break the registry', async () => {
    const logs: string[] = []
    const r = new ProcessRegistry({
      onComplete: () => {
        throw new Error('consumer down')
      },
      log: (_l, m) => logs.push(m)
    })
    const p = r.start({ ...base, notify: true, command: nodeCmd('1'), cwd: tempDir() })
    await r.wait(p.id)
    await waitUntil(() => logs.length > 0)
    expect(logs[0]).toContain('consumer down')
    expect(r.poll(p.id)?.status).toBe('exited')
    await r.killAll()
  })

  it('children get a minimal env: no API keys from the host', async () => {
    process.env.OPENAI_API_KEY = 'sk-host-secret-123456789'
    try {
      const p = registry.start({
        ...base,
        command: nodeCmd('console.log(JSON.stringify(Object.keys(process.env)))'),
        cwd: tempDir()
      })
      const done = await registry.wait(p.id)
      expect(done!.output).not.toContain('OPENAI_API_KEY')
      expect(done!.output).toContain('PATH')
    } finally {
      delete process.env.OPENAI_API_KEY
    }
  })
  it('children see the spawning profile home as HERMES_HOME, read from the profile scope', async () => {
    const home = tempDir()
    const p = runInProfileScope(home, {}, () =>
      registry.start({ ...base, command: 'echo "home=[$HERMES_HOME]"', cwd: tempDir() })
    )
    const done = await registry.wait(p.id)
    expect(done!.output).toContain(`home=[${home}]`)
  })

  describe('a shell that exits leaving a child (`sleep & echo`)', () => {
    /** Starts the command, waits for its shell to end, returns the left-behind sleep's pid. */
    async function orphanOf(): Promise<{ id: string; pid: number }> {
      const p = registry.start({ ...base, command: 'sleep 31337 & echo "pid=$!"', cwd: tempDir() })
      const done = await registry.wait(p.id)
      expect(done!.status).toBe('exited')
      const pid = Number(/pid=(\d+)/.exec(done!.output)?.[1])
      expect(isAlive(pid)).toBe(true)
      return { id: p.id, pid }
    }

    /** Polls briefly; the group kill is SIGTERM, so a live sleep after a second is a miss, not slowness. */
    async function gone(pid: number): Promise<boolean> {
      const until = Date.now() + 1000
      while (isAlive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 20))
      return !isAlive(pid)
    }

    const strays: number[] = []
    afterEach(() => {
      for (const pid of strays.splice(0))
        try {
          process.kill(pid, 'SIGKILL')
        } catch {
          // already gone
        }
    })

    it('killAll reaches the child left behind', async () => {
      const { pid } = await orphanOf()
      strays.push(pid)
      await registry.killAll()
      expect(await gone(pid)).toBe(true)
    })

    it('kill on the exited record ends what its group left running, then reports nothing left', async () => {
      const { id, pid } = await orphanOf()
      strays.push(pid)
      expect(registry.kill(id)).toBe(true)
      expect(await gone(pid)).toBe(true)
      await waitUntil(() => registry.kill(id) === false)
      expect(registry.poll(id)?.status).toBe('exited')
    })
  })
})
