// Memory providers through the real host: config.yaml selects the provider, the real agent loop drives
// every hook, the scripted model records what each request carried (prefetch block, tool list).
import Database from 'better-sqlite3'
import { execFileSync } from 'node:child_process'
import { copyFileSync, existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { RecordedRequest, ScriptReply } from '../../agent/scripted'
import { waitUntil } from '../../tools/test-fixtures/helpers'
import { loadConfig } from '../../config'
import { buildMemoryManagerForAgent } from '../../memory'
import {
  lastOf,
  makeRig,
  recorded,
  recorderSource,
  toolNames,
  turnText,
  writePlugin,
  type Rig
} from '../test-fixtures/memory-host'

let rig: Rig | undefined
afterEach(async () => {
  await rig?.close()
  rig = undefined
})

const finished = (r: Rig) => r.events.filter((e) => e.event === 'turn.finished')
const notices = (r: Rig) =>
  r.events.filter((e) => e.event === 'turn.delta' && e.payload.kind === 'notice').map((e) => String(e.payload.text))
const firstRequestOf = (r: Rig, text: string) => r.chats().find((q) => turnText(q) === text)
const userContent = (q: RecordedRequest | undefined) => String(lastOf(q!)?.content ?? '')

async function turn(r: Rig, profile: string, text: string, sessionId?: string): Promise<string> {
  const before = finished(r).length
  const res = sessionId
    ? await r.host!.dispatcher.invoke('sessions.resume', { profile, sessionId, text })
    : await r.host!.dispatcher.invoke('sessions.start', { profile, text })
  expect(res.ok, JSON.stringify(res)).toBe(true)
  const handle = (res as { ok: true; output: { turnId: string; sessionId: string } }).output
  await waitUntil(() => finished(r).some((e) => e.payload.turnId === handle.turnId))
  expect(finished(r).length).toBeGreaterThan(before)
  return handle.sessionId
}

function holographicReply(req: RecordedRequest): ScriptReply {
  if (lastOf(req)?.role === 'tool') return { text: 'Saved.' }
  if (turnText(req) === 'remember my indentation') {
    return {
      toolCalls: [
        {
          id: 'c1',
          name: 'fact_store',
          arguments: { action: 'add', content: 'Ada Lovelace prefers tabs for indentation', category: 'user_pref' }
        }
      ]
    }
  }
  return { text: 'ok' }
}

describe('holographic through the host', () => {
  it('fact_store add lands in memory_store.db (upstream schema) and prefetch feeds every new turn, also in a fresh runtime', async () => {
    rig = await makeRig(holographicReply)
    rig.writeConfig('default', 'memory:\n  provider: holographic\n')
    await rig.start()
    await turn(rig, 'default', 'remember my indentation')

    const file = join(rig.root, 'memory_store.db')
    const db = new Database(file)
    try {
      const cols = (db.prepare('PRAGMA table_info(facts)').all() as Array<{ name: string }>).map((c) => c.name)
      expect(cols).toEqual([
        'fact_id',
        'content',
        'category',
        'tags',
        'trust_score',
        'retrieval_count',
        'helpful_count',
        'created_at',
        'updated_at',
        'hrr_vector'
      ])
      const objects = (
        db
          .prepare("SELECT name FROM sqlite_master WHERE type IN ('table','trigger','index') ORDER BY name")
          .all() as Array<{ name: string }>
      ).map((o) => o.name)
      expect(objects).toEqual(
        expect.arrayContaining([
          'entities',
          'fact_entities',
          'memory_banks',
          'facts_fts',
          'facts_ai',
          'facts_ad',
          'facts_au',
          'idx_facts_trust',
          'idx_facts_category',
          'idx_entities_name'
        ])
      )
      expect(db.prepare('SELECT content, category, trust_score FROM facts').all()).toEqual([
        { content: 'Ada Lovelace prefers tabs for indentation', category: 'user_pref', trust_score: 0.5 }
      ])
      expect(db.prepare('SELECT name FROM entities').all()).toEqual([{ name: 'Ada Lovelace' }])
      // What upstream does to the same file: a plain INSERT (the FTS triggers keep the index in step).
      db.prepare('INSERT INTO facts (content, category) VALUES (?, ?)').run(
        'The project uses pnpm workspaces',
        'project'
      )
    } finally {
      db.close()
    }

    // A new session in the same process: recall is in the request before the first model call.
    await turn(rig, 'default', 'tabs or spaces for my indentation?')
    const second = firstRequestOf(rig, 'tabs or spaces for my indentation?')
    expect(userContent(second)).toContain('## Holographic Memory')
    expect(userContent(second)).toContain('- [0.5] Ada Lovelace prefers tabs for indentation')

    // A fresh runtime (what a second one-shot run is): the first turn of a new session still recalls,
    // including the fact upstream wrote.
    await rig.restart()
    await turn(rig, 'default', 'which package manager does the project use, pnpm?')
    const fresh = firstRequestOf(rig, 'which package manager does the project use, pnpm?')
    expect(userContent(fresh)).toContain('The project uses pnpm workspaces')
    const feed = await rig.host!.dispatcher.invoke('memory.events', { profile: 'default', provider: 'holographic' })
    const items = (feed as { ok: true; output: { items: Array<{ kind: string; name: string; summary: string }> } })
      .output.items
    expect(items.some((e) => e.kind === 'prefetch' && e.summary.includes(' → recalled:'))).toBe(true)
    // The fact_store add is a write (a read never is): the Memory page counts it, and the turn's fold finds it
    // under the turn id its tool call carries.
    const call = (items as Array<{ kind: string; name: string; turnId?: string | null }>).find(
      (e) => e.kind === 'tool_call' && e.name === 'fact_store'
    )!
    const writes = items.filter((e) => e.kind === 'write')
    expect(writes.map((e) => [e.name, e.summary])).toEqual([
      ['fact_store:add', 'Ada Lovelace prefers tabs for indentation']
    ])
    expect((writes[0] as { turnId?: string | null }).turnId).toBe(call.turnId)
    const health = (await rig.host!.dispatcher.invoke('memory.health', { profile: 'default' })) as {
      ok: true
      output: { items: Array<{ provider: string; writes?: number; calls: number }> }
    }
    const holo = health.output.items.find((h) => h.provider === 'holographic')!
    expect(holo.writes).toBe(1)
    // one call per hook or tool call the provider answered: the write its tool call made and the host's load line
    // are no calls of their own
    const answered = items.filter((e) => ['tool_call', 'prefetch', 'sync', 'hook'].includes(e.kind)).length
    expect(holo.calls).toBe(answered)
  })
})

const PYTHON = '/usr/bin/python3'
const UPSTREAM = process.env.HERMES_UPSTREAM ?? '/work/upstream'
const hasUpstream = existsSync(PYTHON) && existsSync(join(UPSTREAM, 'plugins/memory/holographic/__init__.py'))
/** Upstream started as `hermes -p PROFILE` under HERMES_HOME=ROOT: the holographic store it opens and the facts in it. */
function upstreamHolographic(root: string, profile: string): { db_path: string; facts: string[] } {
  const out = execFileSync(
    PYTHON,
    [resolve(import.meta.dirname, '../../../scripts/golden/memory_eyes.py'), 'holographic', root, profile],
    { env: { ...process.env, HERMES_UPSTREAM: UPSTREAM }, encoding: 'utf8' }
  )
  return JSON.parse(out.trim().split('\n').at(-1)!)
}

describe("${HERMES_HOME} in a profile's config.yaml is that profile's folder, whatever the process's HERMES_HOME is", () => {
  const saved = process.env.HERMES_HOME
  afterEach(() => {
    if (saved === undefined) delete process.env.HERMES_HOME
    else process.env.HERMES_HOME = saved
  })

  it('a turn in profile work stores its fact in work/, not in the profile the process was started for, nor at /', async () => {
    rig = await makeRig(holographicReply, ['work', 'other'])
    rig.writeConfig(
      'work',
      'memory:\n  provider: holographic\nplugins:\n  hermes-memory-store:\n    db_path: ${HERMES_HOME}/memory_store.db\n'
    )
    rig.writeConfig(
      'other',
      'memory:\n  provider: holographic\nplugins:\n  hermes-memory-store:\n    db_path: $HERMES_HOME/mem/store.db\n'
    )
    rig.writeConfig(
      'default',
      'memory:\n  provider: holographic\nplugins:\n  hermes-memory-store:\n    db_path: ${HERMES_HOME}/root-store.db\n'
    )
    const stores = () =>
      [
        'memory_store.db',
        'root-store.db',
        'profiles/work/memory_store.db',
        'profiles/other/memory_store.db',
        'profiles/other/mem/store.db',
        'profiles/work/mem/store.db'
      ].filter((f) => existsSync(join(rig!.root, f)))
    // The process was started for another profile (a service unit, `HERMES_HOME=… caduceus serve`).
    process.env.HERMES_HOME = rig.home('other')
    await rig.start()
    await turn(rig, 'work', 'remember my indentation')
    expect(stores()).toEqual(['profiles/work/memory_store.db'])
    // … and with the root's folder, and set but empty (the braced form once expanded to '' and wrote /root-store.db).
    process.env.HERMES_HOME = rig.root
    await turn(rig, 'other', 'remember my indentation')
    process.env.HERMES_HOME = ''
    await turn(rig, 'default', 'remember my indentation')
    expect(stores()).toEqual(['root-store.db', 'profiles/work/memory_store.db', 'profiles/other/mem/store.db'])
    expect(existsSync('/root-store.db')).toBe(false)
    await rig.host!.close()
    rig.host = null

    // Upstream running profile work (`hermes -p work`) opens the same file and finds the fact there.
    if (hasUpstream)
      expect(upstreamHolographic(rig.root, 'work')).toMatchObject({
        db_path: join(rig.root, 'profiles/work/memory_store.db'),
        facts: ['Ada Lovelace prefers tabs for indentation']
      })
  })
})

function pluginReply(req: RecordedRequest): ScriptReply {
  if (lastOf(req)?.role === 'tool') return { text: 'noted' }
  if (turnText(req) === 'use the plugin')
    return { toolCalls: [{ id: 'p1', name: 'plug_note', arguments: { text: 'hi' } }] }
  return { text: 'ok' }
}

// scripts/golden/memory_provider_choice.py: the external provider upstream's real AIAgent runs with for each
// memory.provider value (blank: none; any other name looked up as written, spaces and capitals included).
const choice = JSON.parse(
  readFileSync(
    resolve(import.meta.dirname, '../../../test/fixtures/upstream/memory-provider-choice/upstream.json'),
    'utf8'
  )
) as { cases: Array<{ config: string; providers: string[]; fact_tools: string[] }> }

const yamlValue = (text: string): unknown => JSON.parse(text.replace('holographic', '"holographic"'))

describe('the provider picker (memory.providers / memory.setProvider)', () => {
  it("a turn runs with the provider upstream's agent runs with for each memory.provider; the picker shows the name as written, none when unset or blank, and what a pick wrote", async () => {
    const profiles = choice.cases.map((_c, i) => `c${i}`)
    rig = await makeRig(() => ({ text: 'ok' }), profiles)
    choice.cases.forEach((c, i) => rig!.writeConfig(profiles[i]!, c.config.replace(/^model:\n {2}default: m\n/, '')))
    await rig.start()
    const d = rig.host!.dispatcher
    const picker = async (profile: string) => {
      const res = await d.invoke('memory.providers', { profile })
      expect(res.ok, JSON.stringify(res)).toBe(true)
      return (res as { ok: true; output: { configured: string | null; availability: { available: boolean } | null } })
        .output
    }
    const configured = async (profile: string) => (await picker(profile)).configured
    for (const [i, c] of choice.cases.entries()) {
      const raw = /provider: (.*)\n/.exec(c.config)?.[1]
      // Only string values are names: blank ones and non-strings (5, true, a list) configure none.
      const name = raw?.startsWith("'") ? raw.slice(1, -1) : raw && /^[a-z]/i.test(raw) && raw !== 'true' ? raw : null
      const shown = await picker(profiles[i]!)
      expect({ config: c.config, shown: shown.configured, usable: shown.availability?.available ?? false }).toEqual({
        config: c.config,
        shown: name?.trim() ? name : null,
        usable: c.providers.length > 0
      })
    }
    // Real turns where the name is or is not taken as holographic: the model gets its tools or it does not.
    for (const value of ['holographic', "' holographic '", 'Holographic']) {
      const i = choice.cases.findIndex((c) => c.config.endsWith(`provider: ${value}\n`))
      const text = `turn of c${i}`
      expect((await d.invoke('sessions.start', { profile: `c${i}`, text })).ok).toBe(true)
      await waitUntil(() => rig!.chats().some((q) => turnText(q) === text))
      const tools = toolNames(firstRequestOf(rig, text)!)
      expect({ value, factTools: tools.filter((t) => t.startsWith('fact_')) }).toEqual({
        value,
        factTools: choice.cases[i]!.fact_tools
      })
    }
    // A value that is no name: built-in memory only, as upstream's agent, and a warning where upstream logs one.
    for (const value of ['5', 'true', '[holographic]']) {
      const i = choice.cases.findIndex((c) => c.config.endsWith(`provider: ${value}\n`))
      const home = rig.home(profiles[i]!)
      const built = await buildMemoryManagerForAgent(loadConfig(home).raw, home, () => null, {
        sessionId: 's',
        platform: 'cli'
      })
      expect(built.external).toBeNull()
      expect(built.warnings.map((w) => w.text)).toEqual([
        `memory.provider in config.yaml is not a provider name (${JSON.stringify(yamlValue(value))}); continuing with built-in memory only.`
      ])
      await built.manager?.shutdownAll()
    }
    expect(await configured('c5')).toBe(' holographic ')
    expect((await d.invoke('memory.setProvider', { profile: 'c1', provider: 'holographic' })).ok).toBe(true)
    expect(await configured('c1')).toBe('holographic')
    expect((await d.invoke('memory.setProvider', { profile: 'c4', provider: 'builtin' })).ok).toBe(true)
    expect(await configured('c4')).toBeNull()
  })
})

describe('what the picker says about a provider the next turn cannot use', () => {
  it("reports unavailable and why (not supported, not installed, no key) before any turn, matching the turn's warning", async () => {
    const { writeFileSync } = await import('node:fs')
    rig = await makeRig(() => ({ text: 'ok' }), ['honcho', 'keyless', 'keyed', 'holo', 'plug', 'nosuch', 'wide'])
    rig.writeConfig('honcho', 'memory:\n  provider: honcho\n')
    rig.writeConfig('keyless', 'memory:\n  provider: mem0\n')
    rig.writeConfig('keyed', 'memory:\n  provider: mem0\n')
    writeFileSync(join(rig.home('keyed'), '.env'), 'MEM0_API_KEY=m0-test-key-123456\n')
    rig.writeConfig('holo', 'memory:\n  provider: holographic\n')
    writePlugin(rig.home('plug'), 'plug', recorderSource({ key: 'PLUG_AVAIL', tool: 'plug_note' }))
    rig.writeConfig('plug', 'memory:\n  provider: plug\n')
    rig.writeConfig('nosuch', 'memory:\n  provider: nosuch\n')
    // Upstream's own 512-wide store (scripts/golden/holographic.py) under a config that leaves hrr_dim at 1024:
    // initialize refuses it (upstream would mix widths in it), and the picker says so before a turn meets it.
    const wideStore = join(rig.home('wide'), 'memory_store.db')
    copyFileSync(
      resolve(import.meta.dirname, '../../../test/fixtures/upstream/holographic/setup/upstream.db'),
      wideStore
    )
    rig.writeConfig('wide', 'memory:\n  provider: holographic\n')
    const facts = () => {
      const db = new Database(wideStore, { readonly: true })
      try {
        return db.prepare('SELECT fact_id, content, hrr_vector FROM facts ORDER BY fact_id').all()
      } finally {
        db.close()
      }
    }
    const factsBefore = facts()
    await rig.start()
    const availability = async (profile: string) => {
      const res = await rig!.host!.dispatcher.invoke('memory.providers', { profile })
      expect(res.ok, JSON.stringify(res)).toBe(true)
      return (res as { ok: true; output: { availability: { available: boolean; detail: string | null } | null } })
        .output.availability
    }
    expect(await availability('default')).toBeNull()
    expect(await availability('honcho')).toEqual({
      available: false,
      detail: "Memory provider 'honcho' is not supported by Caduceus."
    })
    expect(await availability('keyless')).toEqual({
      available: false,
      detail: expect.stringContaining('MEM0_API_KEY is not set')
    })
    expect(await availability('nosuch')).toEqual({
      available: false,
      detail: expect.stringContaining("'nosuch' is not installed")
    })
    expect(await availability('keyed')).toEqual({ available: true, detail: null })
    expect(await availability('holo')).toEqual({ available: true, detail: null })
    expect(await availability('plug')).toBeNull() // only its own code can tell
    const wide = 'holds 512-wide HRR vectors but plugins.hermes-memory-store.hrr_dim is 1024: set hrr_dim to 512'
    expect(await availability('wide')).toEqual({
      available: false,
      detail: expect.stringMatching(new RegExp(`^Memory provider 'holographic' will not start: .*${wide}`))
    })
    // What the next turn then does: the same reason, built-in memory only.
    await turn(rig, 'keyless', 'hello')
    await turn(rig, 'honcho', 'hello')
    expect(notices(rig).find((t) => t.includes("'mem0' is unavailable"))).toContain('MEM0_API_KEY is not set')
    expect(notices(rig).find((t) => t.includes("'honcho'"))).toContain('is not supported by Caduceus')
    // The store of another width: the turn runs on built-in memory; the chat, the picker's last load and the health
    // name the reason (upstream only logs a warning); not one fact or vector of the store changed.
    await turn(rig, 'wide', 'hello wide')
    expect(finished(rig).every((e) => e.payload.status === 'completed')).toBe(true)
    expect(toolNames(firstRequestOf(rig, 'hello wide')!)).toContain('memory')
    expect(notices(rig).find((t) => t.includes("'holographic' did not start"))).toContain(wide)
    const after = await rig.host!.dispatcher.invoke('memory.providers', { profile: 'wide' })
    expect((after as { ok: true; output: { lastLoad: unknown } }).output.lastLoad).toMatchObject({
      provider: 'holographic',
      state: 'failed',
      detail: expect.stringContaining(wide)
    })
    const health = await rig.host!.dispatcher.invoke('memory.health', { profile: 'wide' })
    const items = (health as { ok: true; output: { items: Array<{ provider: string; lastError: string | null }> } })
      .output.items
    expect(items.find((i) => i.provider === 'holographic')?.lastError).toContain(wide)
    expect(facts()).toEqual(factsBefore)
  })
})

describe('JS memory plugins through the host', () => {
  it('loads a plugin from the profile folder and the model calls its tool', async () => {
    rig = await makeRig(pluginReply)
    writePlugin(rig.root, 'plug', recorderSource({ key: 'PLUG_A', tool: 'plug_note' }))
    rig.writeConfig('default', 'memory:\n  provider: plug\n')
    await rig.start()
    await turn(rig, 'default', 'use the plugin')
    const req = firstRequestOf(rig, 'use the plugin')!
    expect(toolNames(req)).toContain('plug_note')
    expect(userContent(req)).toContain('RECORDER RECALL for use the plugin')
    expect(recorded('PLUG_A').map((e) => e[0])).toContain('tool')
    const toolResult = rig
      .chats()
      .map((q) => lastOf(q))
      .find((m) => m?.role === 'tool')
    expect(JSON.parse(String(toolResult?.content))).toEqual({ ok: true, home: true })
  })

  it('a broken plugin, or a name Caduceus does not implement, warns once and the turn still runs on built-in memory', async () => {
    rig = await makeRig(pluginReply, ['beta'])
    writePlugin(rig.root, 'broken', 'export function createProvider( {')
    rig.writeConfig('default', 'memory:\n  provider: broken\n')
    rig.writeConfig('beta', 'memory:\n  provider: honcho\n')
    await rig.start()
    await turn(rig, 'default', 'first')
    await turn(rig, 'default', 'second new session')
    await turn(rig, 'beta', 'hello beta')
    const texts = notices(rig)
    expect(texts.filter((t) => t.includes("'broken'"))).toHaveLength(1)
    expect(texts.find((t) => t.includes("'broken'"))).toContain('failed to load')
    expect(texts.filter((t) => t.includes("'honcho' is not supported by Caduceus"))).toHaveLength(1)
    expect(texts.join('\n')).not.toContain(rig.root)
    expect(finished(rig).every((e) => e.payload.status === 'completed')).toBe(true)
    expect(toolNames(firstRequestOf(rig, 'first')!)).toContain('memory')
  })

  it('one plugin instance handed to two profiles serves the first and is refused for the second (seed 000)', async () => {
    rig = await makeRig(pluginReply, ['beta'])
    writePlugin(rig.root, 'shared', recorderSource({ key: 'SHARED_A', tool: 'plug_note', shared: true }))
    rig.writeConfig('default', 'memory:\n  provider: shared\n')
    rig.writeConfig('beta', 'memory:\n  provider: shared\n')
    await rig.start()
    await turn(rig, 'default', 'use the plugin')
    await turn(rig, 'beta', 'beta turn')
    expect(toolNames(firstRequestOf(rig, 'use the plugin')!)).toContain('plug_note')
    expect(toolNames(firstRequestOf(rig, 'beta turn')!)).not.toContain('plug_note')
    const warn = notices(rig).find((t) => t.includes('already serves another profile'))
    expect(warn).toContain("'SHARED_A'")
    expect(recorded('SHARED_A').every(([, bound]) => bound === rig!.root)).toBe(true)
    // The Memory page's feed lists the refusal with its code (the chat only saw the generic warning).
    const refusals = await rig.host!.dispatcher.invoke('memory.events', { profile: 'beta', kinds: ['refusal'] })
    const items = (refusals as { ok: true; output: { items: Array<{ summary: string }> } }).output.items
    expect(items.map((e) => e.summary)).toContain(
      'memory_provider_instance_shared: provider instance already serves another profile'
    )
    expect(warn).not.toContain('memory_provider_instance_shared')
  })
})

function hookReply(req: RecordedRequest): ScriptReply {
  const text = turnText(req)
  if (lastOf(req)?.role === 'tool') return { text: 'done' }
  if (text === 'hook tour') {
    return {
      toolCalls: [
        { id: 'h1', name: 'rec_note', arguments: { text: 'x' } },
        { id: 'h2', name: 'memory', arguments: { action: 'add', target: 'memory', content: 'likes hook tours' } },
        { id: 'h3', name: 'delegate_task', arguments: { goal: 'child work' } }
      ]
    }
  }
  if (text === 'child work') return { text: 'child done' }
  return { text: 'ok' }
}

describe('every memory hook in the app path, under its own profile', () => {
  it('two profiles: each hook records its own profile as the ambient home; a required checkpoint that fails keeps the session uncompressed', async () => {
    rig = await makeRig(
      (req) =>
        String(req.body?.messages?.[0]?.content ?? '').startsWith('You compress')
          ? { text: 'summary of earlier turns' }
          : hookReply(req),
      ['alpha']
    )
    for (const p of ['default', 'alpha'])
      writePlugin(
        rig.home(p),
        'rec',
        recorderSource({ key: 'HOOKS', tool: 'rec_note', checkpoint: p === 'alpha' ? 'fail' : 'ok' })
      )
    const compress = 'compression:\n  enabled: true\n  threshold: 0.01\n  protect_last_n: 2\n'
    rig.writeConfig('default', `memory:\n  provider: rec\n${compress}`, '  context_length: 256\n')
    rig.writeConfig(
      'alpha',
      `memory:\n  provider: rec\n${compress}  checkpoint_required: true\n`,
      '  context_length: 256\n'
    )
    await rig.start()
    const sessions: Record<string, string> = {}
    await Promise.all(
      ['default', 'alpha'].map(async (p) => {
        const sid = await turn(rig!, p, 'hook tour')
        sessions[p] = sid
      })
    )
    // The background child reports back: its notice runs as each parent's next turn.
    await waitUntil(() => finished(rig!).length >= 4)
    for (const p of ['default', 'alpha']) await turn(rig, p, 'second turn', sessions[p])
    await rig.host!.close()
    rig.host = null

    const events = recorded('HOOKS')
    const expected = [
      'initialize',
      'system_prompt',
      'on_turn_start',
      'prefetch',
      'tool',
      'sync_turn',
      'queue_prefetch',
      'on_memory_write',
      'on_delegation',
      'on_pre_compress',
      'on_session_switch',
      'on_session_end',
      'shutdown'
    ]
    for (const p of ['default', 'alpha']) {
      const home = rig.home(p)
      const mine = events.filter((e) => e[1] === home)
      expect(new Set(mine.map((e) => e[0]))).toEqual(new Set(expected))
      expect(
        mine.every((e) => e[2] === home),
        JSON.stringify(mine.filter((e) => e[2] !== home))
      ).toBe(true)
    }
    expect(events.every((e) => e[1] === rig!.home('default') || e[1] === rig!.home('alpha'))).toBe(true)

    // alpha's checkpoint failed: compression was refused (fail closed) and the user was told.
    expect(notices(rig).some((t) => t.includes('memory checkpoint required before compression failed'))).toBe(true)
    const db = new Database(join(rig.home('alpha'), 'state.db'), { readonly: true })
    const defaultDb = new Database(join(rig.root, 'state.db'), { readonly: true })
    try {
      expect(db.prepare("SELECT COUNT(*) AS n FROM sessions WHERE end_reason = 'compression'").get()).toEqual({ n: 0 })
      expect(
        (
          defaultDb.prepare("SELECT COUNT(*) AS n FROM sessions WHERE end_reason = 'compression'").get() as {
            n: number
          }
        ).n
      ).toBeGreaterThan(0)
    } finally {
      db.close()
      defaultDb.close()
    }
  })
})

describe('provider identity and tool registry generation in the agent-cache signature (seed 001)', () => {
  it('editing a plugin, or pointing holographic at another file, rebuilds the cached agent; nothing else does', async () => {
    rig = await makeRig(pluginReply, ['beta'])
    const dir = writePlugin(rig.root, 'plug', recorderSource({ key: 'PLUG_SIG', tool: 'plug_note' }))
    rig.writeConfig('default', 'memory:\n  provider: plug\n')
    rig.writeConfig('beta', 'memory:\n  provider: holographic\n')
    await rig.start()
    const decisions = () => rig!.events.filter((e) => e.event === 'turn.started').map((e) => e.payload.cache as string)
    const a = await turn(rig, 'default', 'one')
    await turn(rig, 'default', 'two', a)
    const { appendFileSync } = await import('node:fs')
    appendFileSync(join(dir, 'index.mjs'), '\n// edited\n')
    await turn(rig, 'default', 'three', a)
    const b = await turn(rig, 'beta', 'four')
    await turn(rig, 'beta', 'five', b)
    appendFileSync(
      join(rig.home('beta'), 'config.yaml'),
      'plugins:\n  hermes-memory-store:\n    db_path: $HERMES_HOME/elsewhere.db\n'
    )
    await turn(rig, 'beta', 'six', b)
    expect(decisions()).toEqual(['new', 'reused', 'config_changed', 'new', 'reused', 'config_changed'])
  })
})

describe('mem0 (hosted) against a local fake of its HTTP API', () => {
  it('syncs turns to the configured base URL with the .env key, recalls them into the next turn, and stays quiet about the key', async () => {
    const { startFakeMem0 } = await import('../../memory/providers/mem0/test-fixtures/fake-mem0')
    const { writeFileSync } = await import('node:fs')
    const fake = await startFakeMem0('m0-secret-key-123456')
    try {
      rig = await makeRig(() => ({ text: 'ok' }), ['beta'])
      rig.writeConfig(
        'default',
        `memory:\n  provider: mem0\nplugins:\n  mem0:\n    base_url: ${fake.baseUrl}\n    user_id: ada\n`
      )
      writeFileSync(join(rig.root, '.env'), 'MEM0_API_KEY=m0-secret-key-123456\n')
      rig.writeConfig('beta', 'memory:\n  provider: mem0\n')
      await rig.start()
      await turn(rig, 'default', 'I deploy with Kubernetes every Friday')
      await waitUntil(() => fake.memories.length > 0)
      await turn(rig, 'default', 'when do I deploy with kubernetes?')
      expect(userContent(firstRequestOf(rig, 'when do I deploy with kubernetes?'))).toContain(
        '## Mem0 Memory\n- I deploy with Kubernetes every Friday'
      )
      expect(fake.calls.every((c) => c.auth === 'Token m0-secret-key-123456')).toBe(true)
      expect(fake.memories[0]!.user_id).toBe('ada')
      // beta has no key: one clear warning, built-in memory only, and no request to any server.
      await turn(rig, 'beta', 'hello')
      expect(notices(rig).find((t) => t.includes("'mem0' is unavailable"))).toContain('MEM0_API_KEY is not set')
      expect(notices(rig).join('\n')).not.toContain('m0-secret-key')
    } finally {
      await fake.close()
    }
  })
})

describe('a fresh process', () => {
  it('the first turn of a new session in a second one-shot process gets the recall block before its first model call', async () => {
    const { spawn } = await import('node:child_process')
    rig = await makeRig(holographicReply)
    rig.writeConfig('default', 'memory:\n  provider: holographic\n')
    // The user's own path: two `caduceus run -z` processes, each one stateless turn in a new session.
    const runOnce = (text: string) =>
      new Promise<string>((ok, fail) => {
        const child = spawn(process.execPath, ['bin/caduceus.mjs', 'run', '-z', text, '--home', rig!.root], {
          cwd: resolve(import.meta.dirname, '../../..'),
          stdio: 'pipe',
          env: { ...process.env, HERMES_HOME: '', CADUCEUS_LOG_DIR: join(rig!.root, 'logs') }
        })
        let out = ''
        let err = ''
        child.stdout.on('data', (d) => (out += d))
        child.stderr.on('data', (d) => (err += d))
        child.on('close', (code) => (code === 0 ? ok(out) : fail(new Error(`run -z exited ${code}: ${err}`))))
      })
    await runOnce('remember my indentation')
    await runOnce('tabs or spaces for my indentation?')
    const req = firstRequestOf(rig, 'tabs or spaces for my indentation?')
    expect(userContent(req)).toContain('## Holographic Memory\n- [0.5] Ada Lovelace prefers tabs for indentation')
  }, 60_000)
})
