// MEMORY.md / USER.md as files a user owns, written by a turn's memory tool (scripted model, real host) and by the
// Memory page's handlers, then read by upstream's own memory store (scripts/golden/memory_eyes.py): a symlinked
// file stays a link and its target gets the entry; every write leaves the file 0600 as upstream's does; a file that
// is not UTF-8 is refused, byte for byte untouched, and shown read-only.
import { execFileSync } from 'node:child_process'
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { RecordedRequest, ScriptReply } from '../../agent/scripted'
import { waitUntil } from '../../tools/test-fixtures/helpers'
import { lastOf, makeRig, turnText, type Rig } from '../test-fixtures/memory-host'

const PYTHON = '/usr/bin/python3'
const UPSTREAM = process.env.HERMES_UPSTREAM ?? '/work/upstream'
const hasUpstream = existsSync(PYTHON) && existsSync(join(UPSTREAM, 'tools/memory_tool.py'))
/** Upstream's on-disk memory store of `home`: its entries, or the exception class it raised. */
function upstreamReads(home: string): { memory?: string[]; user?: string[]; error?: string } {
  const out = execFileSync(
    PYTHON,
    [resolve(import.meta.dirname, '../../../scripts/golden/memory_eyes.py'), 'builtin', home],
    { env: { ...process.env, HERMES_UPSTREAM: UPSTREAM }, encoding: 'utf8' }
  )
  return JSON.parse(out.trim().split('\n').at(-1)!)
}

let rig: Rig | undefined
const dirs: string[] = []
afterEach(async () => {
  await rig?.close()
  rig = undefined
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

/** `remember: <target>: <text>` makes the model call the memory tool once; anything else is answered in text. */
function reply(req: RecordedRequest): ScriptReply {
  if (lastOf(req)?.role === 'tool') return { text: 'Done.' }
  const m = /^remember: (memory|user): (.+)$/.exec(turnText(req))
  if (!m) return { text: 'ok' }
  return { toolCalls: [{ id: 'm1', name: 'memory', arguments: { action: 'add', target: m[1], content: m[2] } }] }
}

async function turn(r: Rig, text: string): Promise<void> {
  const res = await r.host!.dispatcher.invoke('sessions.start', { profile: 'default', text })
  expect(res.ok, JSON.stringify(res)).toBe(true)
  const { turnId } = (res as { ok: true; output: { turnId: string } }).output
  await waitUntil(() => r.events.some((e) => e.event === 'turn.finished' && e.payload.turnId === turnId))
}

/** What the memory tool answered the model in the last turn. */
const toolAnswer = (r: Rig) => {
  const req = r.provider.requests.filter((q) => lastOf(q)?.role === 'tool').at(-1)
  return JSON.parse(String(lastOf(req!)!.content)) as Record<string, unknown>
}
const mode = (f: string) => statSync(f).mode & 0o777

async function started(): Promise<Rig> {
  rig = await makeRig(reply)
  mkdirSync(join(rig.root, 'memories'), { recursive: true })
  return rig
}

describe('a symlinked MEMORY.md / USER.md (dotfiles)', () => {
  it('a turn and the Memory page write through the link: it stays a link and its target holds the entries', async () => {
    const r = await started()
    const dots = mkdtempSync(join(tmpdir(), 'cad-dotfiles-'))
    dirs.push(dots)
    writeFileSync(join(dots, 'MEMORY.md'), 'First entry')
    // USER.md's link is made before its file exists (a fresh dotfiles checkout): the first write creates the target.
    symlinkSync(join(dots, 'MEMORY.md'), join(r.root, 'memories', 'MEMORY.md'))
    symlinkSync(join(dots, 'USER.md'), join(r.root, 'memories', 'USER.md'))
    await r.start()

    await turn(r, 'remember: memory: Second entry')
    expect(toolAnswer(r).success).toBe(true)
    const edit = await r.host!.dispatcher.invoke('memory.edit', {
      op: 'add',
      profile: 'default',
      target: 'user',
      content: 'Drinks: tea'
    })
    expect(edit.ok, JSON.stringify(edit)).toBe(true)

    for (const f of ['MEMORY.md', 'USER.md']) expect(lstatSync(join(r.root, 'memories', f)).isSymbolicLink()).toBe(true)
    expect(readFileSync(join(dots, 'MEMORY.md'), 'utf8')).toBe('First entry\n§\nSecond entry')
    expect(readFileSync(join(dots, 'USER.md'), 'utf8')).toBe('Drinks: tea')
    // no temp file left beside the link or the target
    expect(readdirSync(dots).sort()).toEqual(['MEMORY.md', 'USER.md'])
    if (hasUpstream)
      expect(upstreamReads(r.root)).toEqual({
        memory: ['First entry', 'Second entry'],
        user: ['Drinks: tea']
      })
  })
})

describe('the mode a write leaves', () => {
  it("is 0600, as upstream's temp-file write leaves it, even where the file was 0644 (a turn and the Memory page)", async () => {
    const r = await started()
    const memory = join(r.root, 'memories', 'MEMORY.md')
    const user = join(r.root, 'memories', 'USER.md')
    writeFileSync(memory, 'First entry')
    writeFileSync(user, 'Name: Ada')
    chmodSync(memory, 0o644)
    chmodSync(user, 0o644)
    await r.start()
    await turn(r, 'remember: memory: Second entry')
    expect(toolAnswer(r).success).toBe(true)
    expect(mode(memory)).toBe(0o600)
    const edit = await r.host!.dispatcher.invoke('memory.edit', {
      op: 'remove',
      profile: 'default',
      target: 'user',
      index: 0
    })
    expect(edit.ok, JSON.stringify(edit)).toBe(true)
    expect(mode(user)).toBe(0o600)
    expect(readFileSync(memory, 'utf8')).toBe('First entry\n§\nSecond entry')
  })
})

describe('a MEMORY.md / USER.md that is not UTF-8', () => {
  const MEMORY = Buffer.from('good entry\n\xc2\xa7\nbad \xff\xfe bytes\n', 'latin1')
  // A hand edit saved as Windows-1252: "café" with one E9 byte.
  const USER = Buffer.from('Name: Ada\n\xc2\xa7\nFavourite drink: caf\xe9 au lait\n', 'latin1')

  it('a turn’s memory add is refused naming the file, and the file stays byte for byte what it was', async () => {
    const r = await started()
    const file = join(r.root, 'memories', 'MEMORY.md')
    writeFileSync(file, MEMORY)
    await r.start()
    await turn(r, 'remember: memory: new entry')
    const answer = toolAnswer(r)
    expect(answer.success).toBe(false)
    expect(String(answer.error)).toContain(`${file} is not valid UTF-8`)
    expect(readFileSync(file).equals(MEMORY)).toBe(true)
    expect(readdirSync(join(r.root, 'memories')).filter((f) => !f.endsWith('.lock'))).toEqual(['MEMORY.md'])
    // Upstream cannot read it either, and it is still the file upstream left.
    if (hasUpstream) expect(upstreamReads(r.root)).toEqual({ error: 'UnicodeDecodeError' })
  })

  it('the Memory page shows its entries read-only with why, and its Remove / Add are refused without a change', async () => {
    const r = await started()
    const file = join(r.root, 'memories', 'USER.md')
    writeFileSync(file, USER)
    await r.start()
    const d = r.host!.dispatcher
    const shown = (await d.invoke('memory.entries', { profile: 'default', target: 'user' })) as {
      ok: true
      output: { entries: string[]; readOnly?: string }
    }
    expect(shown.output.entries).toEqual(['Name: Ada', 'Favourite drink: caf\ufffd au lait'])
    expect(shown.output.readOnly).toContain(`${file} is not valid UTF-8`)
    for (const edit of [
      { op: 'remove', profile: 'default', target: 'user', index: 0 },
      { op: 'add', profile: 'default', target: 'user', content: 'Drinks: tea' }
    ] as const) {
      const res = await d.invoke('memory.edit', edit)
      expect(res.ok).toBe(false)
      expect(JSON.stringify(res)).toContain('is not valid UTF-8')
      expect(readFileSync(file).equals(USER)).toBe(true)
    }
    // A clean file beside it is not affected.
    const memory = (await d.invoke('memory.entries', { profile: 'default', target: 'memory' })) as {
      ok: true
      output: { readOnly?: string }
    }
    expect(memory.output.readOnly).toBeUndefined()
    // The profile's notices say it too (the sessions list's banner, the rail), in the Memory page's words.
    expect(await notices(r)).toEqual({ banner: [shown.output.readOnly], rail: shown.output.readOnly })
  })
})

/** The profile's notices as the host serves them: the sessions list's banner items and the rail's notice. */
async function notices(r: Rig): Promise<{ banner: string[]; rail: string | undefined }> {
  const d = r.host!.dispatcher
  const list = (await d.invoke('sessions.list', { profile: 'all' })) as {
    ok: true
    output: { notices?: Array<{ profile: string; reason: string }> }
  }
  const rail = (await d.invoke('profiles.list', {})) as { ok: true; output: Array<{ name: string; notice?: string }> }
  return {
    banner: (list.output.notices ?? []).filter((n) => n.profile === 'default').map((n) => n.reason),
    rail: rail.output.find((p) => p.name === 'default')?.notice
  }
}

describe('a MEMORY.md replaced by a folder', () => {
  it('the Memory page shows it empty with why and refuses edits; the profile notices name it; the folder is untouched', async () => {
    const r = await started()
    const file = join(r.root, 'memories', 'MEMORY.md')
    mkdirSync(file)
    writeFileSync(join(file, 'notes.txt'), 'kept')
    writeFileSync(join(r.root, 'memories', 'USER.md'), 'Name: Ada')
    await r.start()
    const d = r.host!.dispatcher
    const shown = (await d.invoke('memory.entries', { profile: 'default', target: 'memory' })) as {
      ok: true
      output: { entries: string[]; readOnly?: string }
    }
    expect(shown.ok, JSON.stringify(shown)).toBe(true)
    expect(shown.output.entries).toEqual([]) // upstream reads it as empty
    expect(shown.output.readOnly).toContain(`${file} is a folder, not a file`)
    const res = await d.invoke('memory.edit', { op: 'add', profile: 'default', target: 'memory', content: 'x' })
    expect(res.ok).toBe(false)
    expect(JSON.stringify(res)).toContain('is a folder, not a file')
    expect(readdirSync(file)).toEqual(['notes.txt'])
    // USER.md beside it is read and written as ever.
    const user = (await d.invoke('memory.entries', { profile: 'default', target: 'user' })) as {
      ok: true
      output: { entries: string[]; readOnly?: string }
    }
    expect(user.output).toMatchObject({ entries: ['Name: Ada'] })
    expect(user.output.readOnly).toBeUndefined()
    expect(await notices(r)).toEqual({ banner: [shown.output.readOnly], rail: shown.output.readOnly })
  })
})
