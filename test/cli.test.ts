// The CLI prints the same data the UI gets: it goes through the same dispatcher. The first two cases run the built CLI
// in a process of its own, as a script does; the others run its code (runCli) in this process.
import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SearchResult, SessionPage } from '@shared/contract'
import { createHost, type Host } from '../src-main/host'
import { createLogger } from '../src-main/host/log/log'
import { writeDemoHome } from '../src-main/store'
import { cliInProcess } from './helpers/cli-in-process'

const run = promisify(execFile)
const repo = resolve(import.meta.dirname, '..')
let home: string
let host: Host

const cli = async (...args: string[]) => {
  const { stdout } = await run(process.execPath, ['bin/caduceus.mjs', ...args, '--home', home], {
    cwd: repo,
    env: { ...process.env, CADUCEUS_LOG_DIR: join(home, 'logs'), HERMES_HOME: '' }
  })
  return stdout
}
/** The same through runCli in this process: what it printed on stdout; a failure throws with its stderr. */
const inProcess = async (...args: string[]) => {
  const r = await cliInProcess(home, ...args)
  if (r.code !== 0) throw Object.assign(new Error(`exit ${r.code}`), r)
  return r.stdout
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'cad-cli-'))
  // the environment `cli` gives its child (test/support/fresh-file.ts restores it for the next file)
  Object.assign(process.env, { CADUCEUS_LOG_DIR: join(home, 'logs'), HERMES_HOME: '' })
  await writeDemoHome(home, { seed: 3 })
  host = await createHost({ home, headless: true, live: false, log: createLogger() })
})

afterAll(async () => {
  await host?.close()
  rmSync(home, { recursive: true, force: true })
})

describe('caduceus CLI', () => {
  it('sessions list --json equals what the UI gets', async () => {
    const printed = JSON.parse(
      await cli('sessions', 'list', '--profile', 'work', '--limit', '7', '--json')
    ) as SessionPage
    const viaApi = await host.dispatcher.invoke('sessions.list', { profile: 'work', limit: 7 })
    expect(viaApi.ok).toBe(true)
    expect(printed.items.map((s) => s.id)).toEqual((viaApi as { output: SessionPage }).output.items.map((s) => s.id))
    expect(printed.items).toHaveLength(7)
  })

  it('a flag another command takes is refused by the built CLI: exit 2, one line, the home left as it was', async () => {
    // `cron create` takes no --prompt (edit does): the job it would make is not made with the flag ignored
    const empty = mkdtempSync(join(tmpdir(), 'cad-cli-foreign-'))
    try {
      const refused = await run(
        process.execPath,
        ['bin/caduceus.mjs', 'cron', 'create', 'every 1h', 'hi', '--prompt', 'other', '--home', empty],
        { cwd: repo, env: { ...process.env, CADUCEUS_LOG_DIR: join(home, 'logs'), HERMES_HOME: '' } }
      ).then(
        () => null,
        (err: { code: number; stdout: string; stderr: string }) => err
      )
      expect(refused).toMatchObject({
        code: 2,
        stdout: '',
        stderr: 'caduceus: cron create does not take --prompt (cron edit does); see caduceus cron create --help\n'
      })
      expect(readdirSync(empty)).toEqual([])
    } finally {
      rmSync(empty, { recursive: true, force: true })
    }
  })

  it('sessions search --json finds messages with highlighted snippets', async () => {
    const printed = JSON.parse(await inProcess('sessions', 'search', 'rollback', '--json')) as SearchResult
    expect(printed.hits.length).toBeGreaterThan(0)
    expect(printed.hits[0]!.snippet.some((p) => p.hit && /rollback/i.test(p.text))).toBe(true)
  })

  it('sessions search answers a query with no word in it with one line saying why, not an empty list', async () => {
    expect((await inProcess('sessions', 'search', '*')).trim()).toBe(
      '"*" marks a word prefix (heat* finds heater): on its own it names no word to search for.'
    )
  })

  it('serve refuses a bind beyond loopback and a malformed --allow-host with one line, before it listens', async () => {
    const wide = await cliInProcess(home, 'serve', '--host', '0.0.0.0', '--port', '0')
    expect(wide.code).toBe(2)
    expect(wide.stderr).toMatch(/^caduceus serve: --host 0\.0\.0\.0: serve listens on 127\.0\.0\.1 only; .*ssh -L/)
    const url = await cliInProcess(home, 'serve', '--allow-host', 'https://proxy.example', '--port', '0')
    expect(url).toMatchObject({ code: 2, stdout: '' })
    expect(url.stderr).toBe(
      "caduceus serve: --allow-host: 'https://proxy.example' is not a host name (give the name without http:// or https://)\n"
    )
  })

  it('sessions show prints the transcript and a bad id fails with a clear message', async () => {
    const page = (await host.dispatcher.invoke('sessions.list', { profile: 'default', limit: 1 })) as {
      output: SessionPage
    }
    const id = page.output.items[0]!.id
    const text = await inProcess('sessions', 'show', id, '--profile', 'default')
    expect(text).toContain(id)
    expect(text).toMatch(/\[(user|assistant)\]/)
    await expect(inProcess('sessions', 'show', 'no-such-session')).rejects.toMatchObject({
      stderr: expect.stringContaining("No session 'no-such-session'")
    })
  })
})
