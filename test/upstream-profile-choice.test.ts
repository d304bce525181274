// Which profile a command acts on when --profile names none, against upstream's own CLI on the fidelity home
// (scripts/golden/profile_choice.py → test/fixtures/upstream/fidelity/profile-choice.json): HERMES_HOME pointing
// into a profile's folder, the root's `active_profile` file (`hermes profile use`), -p, and a file naming a
// profile that does not exist. Runs the CLI's own code in-process, with HERMES_HOME set as a user's shell sets it.
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, afterEach, describe, expect, it, vi } from 'vitest'
import type { AppInfo } from '@shared/contract'
import { createHost } from '../src-main/host'
import { parseArgs } from '../src-main/host/cli/args'
import { createLogger } from '../src-main/host/log/log'
import { sessions as sessionsCli } from '../src-main/host/cli/sessions'
import { cleanupTempDirs, tempDir } from '../src-main/store/test-fixtures/tmp'

const gold = resolve(import.meta.dirname, 'fixtures/upstream/fidelity')
interface Case {
  active_profile: string | null
  hermes_home: string
  argv: string[]
  code: number
  list?: string[]
  export?: string[]
  prune?: string[]
  error?: string
}
const G = JSON.parse(readFileSync(join(gold, 'profile-choice.json'), 'utf8')) as { cases: Case[] }

const savedEnv = process.env.HERMES_HOME
afterEach(() => {
  if (savedEnv === undefined) delete process.env.HERMES_HOME
  else process.env.HERMES_HOME = savedEnv
})
afterAll(cleanupTempDirs)
// The CLI code run in this process logs into a temp folder, as the spawned CLI tests' children do, not into the
// user's data folder (test/support/fresh-file.ts restores the environment for the next file).
beforeAll(() => {
  process.env.CADUCEUS_LOG_DIR = tempDir('cad-profile-choice-logs-')
})

/** The case's home, as the golden built it: the fidelity home, an empty profile folder `spare`, its active_profile. */
function homeFor(c: Case): string {
  const root = tempDir('cad-profile-choice-')
  cpSync(join(gold, 'home'), root, { recursive: true })
  mkdirSync(join(root, 'profiles', 'spare'))
  if (c.active_profile !== null) writeFileSync(join(root, 'active_profile'), c.active_profile)
  process.env.HERMES_HOME = join(root, c.hermes_home)
  return root
}

/** `caduceus <argv> sessions …` with no --home: what it printed as JSON or to stdout. */
async function caduceus(c: Case, argv: string[]) {
  const out: string[] = []
  const log = vi.spyOn(console, 'log').mockImplementation((v: unknown) => void out.push(`${String(v)}\n`))
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out.push(String(chunk))
    return true
  })
  try {
    const code = await sessionsCli(parseArgs([...c.argv, 'sessions', ...argv]))
    return { code, out: out.join('') }
  } finally {
    log.mockRestore()
    write.mockRestore()
  }
}

const label = (c: Case) =>
  `active_profile ${JSON.stringify(c.active_profile)}, HERMES_HOME ${c.hermes_home} ${c.argv.join(' ')}`.trim()

describe("without --profile, a command acts on the profile upstream's CLI acts on", () => {
  it.each(G.cases.filter((c) => c.code === 0).map((c) => [label(c), c] as const))('%s', async (_, c) => {
    const root = homeFor(c)
    const listed = JSON.parse((await caduceus(c, ['list', '--json', '--limit', '50'])).out) as {
      items: Array<{ id: string; profile: string }>
    }
    const ids = listed.items.map((s) => s.id).sort()
    // upstream named a profile (its folder, active_profile, -p): the same sessions, from that profile alone
    const named = c.hermes_home !== '.' || c.argv.length > 0 || !/^(default)?\n?$/.test(c.active_profile ?? '')
    if (named) {
      expect(ids).toEqual([...c.list!].sort())
      // and under its own name: a profile's folder is that profile of its root, not a root's `default`
      const profile = c.argv[1] ?? /^profiles\/(.+)$/.exec(c.hermes_home)?.[1] ?? c.active_profile!.trim().toLowerCase()
      for (const s of listed.items) expect(s.profile).toBe(profile)
    }
    // nothing named one: Caduceus lists every profile, upstream's default among them
    else expect(ids).toEqual(expect.arrayContaining(c.list!))

    const file = join(root, 'export.jsonl')
    expect((await caduceus(c, ['export', file])).code).toBe(0)
    const exported = readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => (JSON.parse(l) as { id: string }).id)
    expect(exported).toEqual(c.export)

    // and what a prune would delete: the acted-on profile's sessions, never default's in its place
    const dry = await caduceus(c, ['prune', '--dry-run'])
    expect(dry.code).toBe(0)
    const pruned = dry.out
      .split('\n')
      .filter((l) => l.startsWith('  '))
      .map((l) => l.trim().split(/\s+/)[0])
    expect(pruned.sort()).toEqual([...c.prune!].sort())
  })

  it.each(G.cases.filter((c) => c.code !== 0).map((c) => [label(c), c] as const))(
    '%s: refused, never read as default',
    async (_, c) => {
      const root = homeFor(c)
      const name = /'([^']+)'/.exec(c.error!)![1]!
      await expect(caduceus(c, ['export', join(root, 'export.jsonl')])).rejects.toThrow(name)
      await expect(caduceus(c, ['list'])).rejects.toThrow('does not exist')
    }
  )
})

describe('a host on such a home', () => {
  const active = async (home: string) => {
    const host = await createHost({ home, headless: true, live: false, validateOutput: true, log: createLogger() })
    try {
      const info = await host.dispatcher.invoke('app.info', {})
      if (!info.ok) throw new Error(info.error.message)
      const { root, profiles } = info.output as AppInfo
      return { root, names: profiles.map((p) => p.name), active: profiles.filter((p) => p.isActive).map((p) => p.name) }
    } finally {
      await host.close()
    }
  }
  const root = () => homeFor({ active_profile: null, hermes_home: '.', argv: [], code: 0 })

  it("serves a profile's folder as that profile of its root, its siblings beside it", async () => {
    const r = root()
    expect(await active(join(r, 'profiles', 'work'))).toEqual({
      root: r,
      names: ['default', 'spare', 'work'],
      active: ['work']
    })
  })

  it('marks the profile active_profile names (read as it changes), else default; never a missing one', async () => {
    const r = root()
    expect((await active(r)).active).toEqual(['default'])
    writeFileSync(join(r, 'active_profile'), 'Spare\n')
    expect((await active(r)).active).toEqual(['spare'])
    writeFileSync(join(r, 'active_profile'), 'ghost\n')
    expect((await active(r)).active).toEqual(['default'])
  })
})
