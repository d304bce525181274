// Upstream's own cron home with the job shapes the other goldens lack (test/fixtures/upstream/cron-variants, written
// by scripts/golden/cron_variants.py): a job following the profile's model after the user switched it (upstream's
// spend guard refuses it before any model call), delivery to the job's origin chat, a legacy lone `skill`, an older
// and a newer writer's job. Run through the host's Run now, edited through Caduceus, then read back by upstream's own
// code (python) from the same home.
import { execFile } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CronJob } from '@shared/contract'
import { startScriptedProvider, type RecordedRequest, type ScriptedProvider } from '../agent/scripted'
import { createHost, type Host } from '../host'
import { createLogger } from '../host/log/log'
import { createJob, editJob, readJobs, removeJob, setPaused, type RawJob } from './index'
import { nextRunAfter } from './schedule'

const repo = resolve(import.meta.dirname, '../..')
const FIXTURE = join(repo, 'test/fixtures/upstream/cron-variants')
const cases = JSON.parse(readFileSync(join(FIXTURE, 'cases.json'), 'utf8')) as {
  zone: string
  drift: { name: string; ok: boolean; error: string }
  targets: Record<string, Array<{ platform: string; chat_id: string; thread_id: string | null }>>
  repairs: Array<{ kind: string; text: string; jobs: RawJob[] }>
  listed: Record<string, { name: string; schedule_display: string; state: string; deliver: string }>
  refs: Record<string, { id?: string | null; ambiguous?: string[] }>
  silence: Record<string, boolean>
  home_fallback: { env: Record<string, string>; targets: Array<{ platform: string; chat_id: string }> }
  repeats: {
    created: Array<{ schedule: string; repeat: number | null; stored: unknown }>
    updated: Array<{ before: unknown; repeat: number; stored: unknown }>
  }
}
const made: string[] = []
let provider: ScriptedProvider
/** What the scripted model answers next. */
let reply = 'done'
beforeAll(async () => {
  provider = await startScriptedProvider({ handler: () => ({ text: reply }) })
})
afterAll(async () => {
  await provider?.close()
  for (const d of made) rmSync(d, { recursive: true, force: true })
})

/** A copy of upstream's home, its config.yaml as the user left it: default model switched to model-b. */
function variantsHome(): { home: string; id: Record<string, string> } {
  const home = mkdtempSync(join(tmpdir(), 'cad-cron-variants-'))
  made.push(home)
  cpSync(join(FIXTURE, 'home'), home, { recursive: true })
  writeFileSync(
    join(home, 'config.yaml'),
    `model:\n  default: model-b\n  provider: custom\n  base_url: ${provider.baseUrl}\ntimezone: ${cases.zone}\n`
  )
  const jobs = readJobs(home).jobs
  return { home, id: Object.fromEntries(jobs.map((j) => [String(j.name), j.id])) }
}

const userText = (r: RecordedRequest) =>
  (r.body.messages as Array<{ role: string; content: string }>).filter((m) => m.role === 'user').at(-1)!.content

describe('the spend guard names a provider as upstream resolves it', { timeout: 120_000 }, () => {
  it('a named custom provider is `custom` on both sides: jobs either program made run while nothing changed', async () => {
    const { home, id } = variantsHome()
    const config = (name: string) =>
      writeFileSync(
        join(home, 'config.yaml'),
        `model:\n  default: model-b\n  provider: ${name}\n  base_url: ${provider.baseUrl}\n` +
          `custom_providers:\n- name: local\n  base_url: ${provider.baseUrl}\ntimezone: ${cases.zone}\n`
      )
    config('custom:local')
    // what upstream's create_job notes on this config: its runtime resolution's provider, `custom`
    const file = join(home, 'cron', 'jobs.json')
    const doc = JSON.parse(readFileSync(file, 'utf8')) as { jobs: RawJob[] }
    const upstreams = doc.jobs.find((j) => j.id === id[cases.drift.name])!
    Object.assign(upstreams, { model_snapshot: 'model-b', provider_snapshot: 'custom' })
    writeFileSync(file, JSON.stringify(doc, null, 2))
    const ours = await createJob(home, { schedule: 'every 1h', prompt: 'ours' })
    expect(ours).toMatchObject({ provider_snapshot: 'custom', model_snapshot: 'model-b' })
    process.env.CADUCEUS_LOG_DIR = join(home, 'logs')
    const host = await createHost({ home, headless: true, live: false, log: createLogger() })
    try {
      const run = async (jobId: string) => {
        const r = await host.dispatcher.invoke('cron.runNow', { profile: 'default', id: jobId })
        if (!r.ok) throw new Error(r.error.message)
        return r.output as { status: string; error: string | null }
      }
      expect(await run(upstreams.id)).toMatchObject({ status: 'ok' })
      expect(await run(ours.id)).toMatchObject({ status: 'ok' })
      // an alias of another provider is a change: refused before any call
      config('claude')
      const before = provider.requests.length
      const refused = await run(ours.id)
      expect(refused.status).toBe('error')
      expect(refused.error).toContain("provider 'custom' -> 'anthropic'")
      expect(provider.requests.length).toBe(before)
    } finally {
      await host.close()
    }
  })
})

describe("upstream's job shapes through Run now", { timeout: 120_000 }, () => {
  let host: Host
  let home: string
  let id: Record<string, string>
  const runNow = async (name: string) => {
    const before = provider.requests.length
    const r = await host.dispatcher.invoke('cron.runNow', { profile: 'default', id: id[name]! })
    if (!r.ok) throw new Error(r.error.message)
    const live = readJobs(home).jobs.find((j) => j.id === id[name]) ?? null
    return { out: r.output as { status: string; error: string | null }, live, calls: provider.requests.slice(before) }
  }
  beforeAll(async () => {
    ;({ home, id } = variantsHome())
    process.env.CADUCEUS_LOG_DIR = join(home, 'logs')
    host = await createHost({ home, headless: true, live: false, log: createLogger() })
  })
  afterAll(() => host?.close())

  it("a job following the profile's model is refused after the model changed, as upstream refuses it", async () => {
    expect(cases.drift.ok).toBe(false)
    expect(cases.drift.error).toContain("model 'model-a' -> 'model-b'")
    const { out, live, calls } = await runNow(cases.drift.name)
    expect(calls).toEqual([])
    expect(out.status).toBe('error')
    expect(live).toMatchObject({ last_status: 'error', model_snapshot: 'model-a' })
    expect(String(live!.last_error)).toContain("model 'model-a' -> 'model-b'")
  })

  it('a job that pins its own model still runs, on that model', async () => {
    const { out, calls } = await runNow('pinned')
    expect(out.status).toBe('ok')
    expect(calls.map((c) => c.body.model)).toEqual(['model-x'])
  })

  it("delivery to the job's origin chat is reported as not delivered, like any chat target", async () => {
    expect(cases.targets.origin).toEqual([{ platform: 'telegram', chat_id: '-1001234', thread_id: '17' }])
    // Each job's model is pinned first so the spend guard lets these through.
    for (const name of ['origin', 'origin-missing', 'targets'])
      await editJob(home, id[name]!, { model: 'model-b' }, 'keep')
    expect((await runNow('origin')).live!.last_delivery_error).toMatch(/cannot deliver to telegram:-1001234:17/)
    expect(cases.targets['origin-missing']).toEqual([])
    expect((await runNow('origin-missing')).live!.last_delivery_error).toBeNull()
    const t = (await runNow('targets')).live!.last_delivery_error
    expect(t).toMatch(/cannot deliver to discord:555:/)
    expect(t).not.toMatch(/deliver to local/)
  })

  it('the Cron page lists each job as upstream lists it, with where it delivers and why it did not', async () => {
    const r = await host.dispatcher.invoke('cron.list', { profile: 'default' })
    if (!r.ok) throw new Error(r.error.message)
    const jobs = (r.output as { jobs: CronJob[] }).jobs
    expect(
      Object.fromEntries(
        jobs.map((j) => [
          j.id,
          { name: j.name, schedule_display: j.scheduleDisplay, state: j.state, deliver: j.deliver }
        ])
      )
    ).toEqual(
      Object.fromEntries(
        Object.entries(cases.listed).map(([k, v]) => [
          k,
          { name: v.name, schedule_display: v.schedule_display, state: v.state, deliver: v.deliver }
        ])
      )
    )
    const origin = jobs.find((j) => j.id === id.origin)!
    expect(origin.lastDeliveryError).toMatch(/telegram:-1001234:17/)
  })

  it('origin on a job with no origin chat goes to a home channel upstream falls back to: reported', async () => {
    const env = join(home, '.env')
    const before = existsSync(env) ? readFileSync(env, 'utf8') : ''
    const vars = Object.entries(cases.home_fallback.env).map(([k, v]) => `${k}=${v}\n`)
    writeFileSync(env, before + vars.join(''))
    try {
      const [want] = cases.home_fallback.targets
      const err = (await runNow('origin-missing')).live!.last_delivery_error
      expect(err).toContain(`cannot deliver to ${want!.platform}:${want!.chat_id} (a home channel`)
    } finally {
      writeFileSync(env, before)
    }
  })

  it('a reply upstream treats as nothing to report is not counted as undelivered; any other is', async () => {
    await editJob(home, id['origin-platform']!, { model: 'model-b' }, 'keep')
    const got: Record<string, boolean> = {}
    try {
      for (const text of Object.keys(cases.silence)) {
        reply = text
        got[text] = (await runNow('origin-platform')).live!.last_delivery_error === null
      }
    } finally {
      reply = 'done'
    }
    expect(got).toEqual(cases.silence)
  })

  it("an older writer's job runs with its lone `skill`", async () => {
    const { out, calls } = await runNow('older')
    expect(out.status).toBe('ok')
    expect(userText(calls[0]!)).toContain('Use the digest format.')
  })
})

const PYTHON = '/usr/bin/python3'
const UPSTREAM = process.env.HERMES_UPSTREAM ?? '/work/upstream'
const hasUpstream = existsSync(PYTHON) && existsSync(join(UPSTREAM, 'cron/jobs.py'))
const upstreamView = async (h: string) => {
  const { stdout } = await promisify(execFile)(PYTHON, [join(repo, 'scripts/golden/cron_variants.py'), 'view', h], {
    env: { ...process.env, HERMES_UPSTREAM: UPSTREAM }
  })
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as { jobs: RawJob[]; next: Record<string, string | null> }
}

describe.skipIf(!hasUpstream)('edits made by Caduceus, read back by upstream', { timeout: 60_000 }, () => {
  it('keeps every job loadable, its unknown fields, its state, and upstream-equal times', async () => {
    const { home, id } = variantsHome()
    const before = Object.fromEntries(readJobs(home).jobs.map((j) => [String(j.name), j]))
    await setPaused(home, id.origin!, true)
    await setPaused(home, id.paused!, false)
    await editJob(home, id.newer!, { schedule: '0 12 * * 0,7' }, 'keep')
    await editJob(home, id['follows-default']!, { model: 'model-x' }, 'keep')
    await editJob(home, id.pinned!, { model: '' }, 'keep')
    const out = join(home, 'cron', 'output', id.targets!)
    mkdirSync(out, { recursive: true })
    writeFileSync(join(out, '2026-11-20_20-34-05.md'), '# old run\n')
    await removeJob(home, id.targets!)
    // Upstream's remove_job takes the job's run outputs with it.
    expect(existsSync(out)).toBe(false)

    const seen = await upstreamView(home)
    const up = Object.fromEntries(seen.jobs.map((j) => [String(j.name), j]))
    const ids = Object.values(before).map((j) => j.id)
    expect(seen.jobs.map((j) => j.id).sort()).toEqual(ids.filter((i) => i !== id.targets).sort())
    expect(up.origin).toMatchObject({ state: 'paused', enabled: false })
    expect(up.paused).toMatchObject({ state: 'scheduled', enabled: true, paused_reason: null })
    expect(up.newer).toMatchObject({ attach_to_session: true, x_future: { kept: [1, 2, 3] } })
    expect(up.newer!.schedule).toEqual({ kind: 'cron', expr: '0 12 * * 0,7', display: '0 12 * * 0,7' })
    // Upstream computes the next run Caduceus wrote for that schedule (or, past an occurrence meanwhile, the next one).
    const wrote = String(readJobs(home).jobs.find((j) => j.id === id.newer)!.next_run_at)
    const later = nextRunAfter(up.newer!.schedule, Date.now(), { timeZone: cases.zone })
    expect([wrote, later]).toContain(seen.next[id.newer!])
    // Pinning a model clears that axis' note, and un-pinning notes the profile's model now, as upstream's update_job.
    expect(up['follows-default']).toMatchObject({ model: 'model-x', model_snapshot: null })
    expect(up.pinned).toMatchObject({ model: null, model_snapshot: 'model-b' })
    // The older writer's lone `skill` reads as upstream's `skills` list; its missing state reads as scheduled.
    expect(up.older).toMatchObject({ skills: ['digest'], state: 'scheduled' })
    expect(up['repeat-partly']!.repeat).toEqual({ times: 3, completed: 1 })
  })
})

describe('jobs.json files upstream reads though they are not its shape', () => {
  it.each(cases.repairs.map((r) => [r.kind, r] as const))(
    '%s: the jobs upstream reads; a rewrite is its shape',
    async (_, r) => {
      const home = mkdtempSync(join(tmpdir(), 'cad-cron-repair-'))
      made.push(home)
      mkdirSync(join(home, 'cron'))
      writeFileSync(join(home, 'cron', 'jobs.json'), r.text)
      expect(readJobs(home).jobs).toEqual(r.jobs)
      await setPaused(home, r.jobs[0]!.id, true)
      const file = JSON.parse(readFileSync(join(home, 'cron', 'jobs.json'), 'utf8')) as { jobs: RawJob[] }
      expect(file.jobs.map((j) => j.prompt)).toEqual(r.jobs.map((j) => j.prompt))
      expect(file.jobs[0]).toMatchObject({ state: 'paused' })
    }
  )
})

describe('a job named instead of its id, as upstream resolves a reference', () => {
  it.each(Object.entries(cases.refs))('%s', async (ref, want) => {
    const { home } = variantsHome()
    const edit = editJob(home, ref, {}, 'keep')
    if (want.id) expect((await edit).id).toBe(want.id)
    else if (want.ambiguous) {
      const err = await edit.catch((e: unknown) => e as Error)
      expect(err).toBeInstanceOf(Error)
      for (const i of want.ambiguous) expect(err.message).toContain(i)
    } else await expect(edit).rejects.toThrow(/No cron job with id or name/)
  })
})

describe('repeat counts stored as upstream stores them', () => {
  it('on create and on edit: 0 or less is forever, a one-shot runs once at least', async () => {
    const { home, id } = variantsHome()
    for (const c of cases.repeats.created) {
      const job = await createJob(home, { schedule: c.schedule, prompt: 'p', repeat: c.repeat })
      expect(job.repeat, `${c.schedule} repeat ${c.repeat}`).toEqual(c.stored)
    }
    for (const c of cases.repeats.updated) {
      const job = await editJob(home, id['repeat-partly']!, { repeat: c.repeat }, 'keep')
      expect(job.repeat, `repeat ${c.repeat}`).toEqual(c.stored)
    }
  })
})
