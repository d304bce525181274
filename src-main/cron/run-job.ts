/**
 * One cron run of an upstream-format job. A `no_agent` job runs its script and its stdout is the output; any other
 * job is a stateless-channel turn (seed 003) recorded as a `source = 'cron'` session, its text assembled from the
 * pre-run script, `context_from` and `skills` (job-prompt.ts), limited to its `enabled_toolsets` and run in its
 * `workdir`. The output lands in `cron/output/<job_id>/<%Y-%m-%d_%H-%M-%S>.md` (output-files.ts) in upstream's layout
 * (output-doc.ts); what the run warned about (the build's start-up warnings, toolsets it could not give the job) is
 * kept in the job's `last_warnings` and the run's result; `deliver` targets
 * this host cannot reach are reported in `last_delivery_error` (delivery.ts); a job following the profile's model is
 * refused, as upstream's spend guard refuses it, once that model changed; the run is then counted as upstream counts
 * it (a hand run too), and a job that reached its repeat limit is removed.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { TURN_CHANNELS, type ChannelTurnInput, type ChannelTurnResult } from '../gateway'
import { cronDir, updateJobs, type RawJob } from './jobs-file'
import { buildJobPrompt, RunBlocked } from './job-prompt'
import { runJobScript, wakesAgent, type ScriptResult } from './job-script'
import { completedOf, timesOf } from './jobs'
import { timeZoneOf } from './time-zone'
import { isoWithOffset, nextRunAfter } from './schedule'
import { outputFileName, pruneOutputs, runTimeText, runTitle, sessionStamp } from './output-files'
import { agentDoc, blockedDoc, failedDoc, gateDoc, scriptDoc, type DocHead } from './output-doc'
import { deliveryProblem, nothingToDeliver } from './delivery'
import { errorMessage } from '@shared/contract/errors'
import { NO_REPLY_TEXT } from '@shared/contract/no-reply'
import type { SecretVault } from '../secrets'
import { loadConfig, readSection, resolveRuntime } from '../config'
import { customProviderNames, providerIdentity } from './provider-identity'

export interface CronGateway {
  runChannelTurn(input: ChannelTurnInput): Promise<ChannelTurnResult>
}

export interface CronRunResult {
  jobId: string
  /** The cron session ('' for a `no_agent` job or a silent run: no agent turn). */
  sessionId: string
  status: 'ok' | 'error'
  error: string | null
  outputPath: string
  reply: string
  /** Why the output could not be delivered where `deliver` says (null: delivered, local or nothing to deliver). */
  deliveryError: string | null
  /** What the run warned about (also in the output file and the job's `last_warnings`). */
  warnings: string[]
}

const SILENT = '[SILENT]'

export function outputDir(home: string, jobId: string): string {
  return join(cronDir(home), 'output', jobId)
}

const field = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : undefined)

interface Outcome {
  ok: boolean
  error: string | null
  /** What would be delivered ('' or [SILENT]: nothing). */
  deliver: string
  /** The output file's text, given the heading fields once the run ended (output-doc.ts; '' as upstream writes it). */
  doc: (h: DocHead) => string
  sessionId: string
  warnings?: string[]
}

export async function runCronJob(
  gateway: CronGateway,
  profile: string,
  home: string,
  job: RawJob,
  opts: { vault: SecretVault; now?: () => number }
): Promise<CronRunResult> {
  const now = opts.now ?? Date.now
  const started = now()
  const name = String(job.name || job.prompt || job.id)
  let o: Outcome
  try {
    if (job.no_agent) o = await scriptOnly(home, job, opts.vault)
    else o = await agentRun(gateway, profile, home, job, started, opts.vault, () => runTitle(name, job.id, now(), home))
  } catch (err) {
    const error = errorMessage(err)
    o = { ok: false, error, deliver: '', doc: (h) => failedDoc(h, job, '', error), sessionId: '' }
  }
  // Named and stamped when the run ended, as upstream saves it.
  const ended = now()
  const dir = outputDir(home, job.id)
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const outputPath = join(dir, outputFileName(ended, home))
  writeFileSync(outputPath, o.doc({ name, id: job.id, runTime: runTimeText(ended, home) }), { mode: 0o600 })
  pruneOutputs(dir, home)
  const content = o.ok ? o.deliver : `Cron job '${name}' failed: ${o.error}`
  const deliveryError =
    content.trim() && !(o.ok && nothingToDeliver(content)) ? deliveryProblem(home, job, outputPath) : null
  await markRun(home, job.id, now(), o, deliveryError)
  return {
    jobId: job.id,
    sessionId: o.sessionId,
    status: o.ok ? 'ok' : 'error',
    error: o.error,
    outputPath,
    reply: o.deliver,
    deliveryError,
    warnings: o.warnings ?? []
  }
}

const silent = (doc: Outcome['doc']): Outcome => ({ ok: true, error: null, deliver: SILENT, doc, sessionId: '' })

async function scriptOnly(home: string, job: RawJob, vault: SecretVault): Promise<Outcome> {
  const script = field(job.script)
  // Upstream saves an empty output file for this one.
  if (!script)
    return { ok: false, error: 'no_agent is set but the job has no script', deliver: '', doc: () => '', sessionId: '' }
  const r = await runJobScript(home, script, vault)
  if (!r.ok)
    return {
      ok: false,
      error: r.output,
      deliver: '',
      doc: (h) => scriptDoc(h, 'script failed', r.output),
      sessionId: ''
    }
  if (!wakesAgent(r.output)) return silent((h) => scriptDoc(h, 'silent (wakeAgent=false)', r.output))
  if (!r.output.trim()) return silent((h) => scriptDoc(h, 'silent (empty output)', r.output))
  return { ok: true, error: null, deliver: r.output, doc: (h) => scriptDoc(h, null, r.output), sessionId: '' }
}

async function agentRun(
  gateway: CronGateway,
  profile: string,
  home: string,
  job: RawJob,
  started: number,
  vault: SecretVault,
  title: () => string
): Promise<Outcome> {
  let script: ScriptResult | null = null
  const scriptPath = field(job.script)
  if (scriptPath) {
    script = await runJobScript(home, scriptPath, vault)
    // The script's gate says no, or it collected nothing (upstream then saves an empty file): no agent turn.
    if (script.ok && !wakesAgent(script.output)) return silent(gateDoc)
    if (script.ok && !script.output.trim()) return silent(() => '')
  }
  let text: string
  try {
    text = buildJobPrompt(home, cronDir(home), job, script)
  } catch (err) {
    if (!(err instanceof RunBlocked)) throw err
    const error = err.message
    return { ok: false, error, deliver: '', doc: (h) => blockedDoc(h, error), sessionId: '' }
  }
  const failed = (error: string): Outcome => ({
    ok: false,
    error,
    deliver: '',
    doc: (h) => failedDoc(h, job, text, error),
    sessionId: ''
  })
  // Checked once the text is assembled, as upstream checks it inside the run: its failure shows the prompt.
  const drift = inferenceDrift(home, job, vault)
  if (drift) return failed(drift)
  const sessionId = `cron_${job.id}_${sessionStamp(started, home)}`
  const workdir = field(job.workdir)
  const mapped = Array.isArray(job.enabled_toolsets) ? mapToolsets(job.enabled_toolsets) : null
  const toolsets = mapped?.toolsets
  let r: ChannelTurnResult
  try {
    r = await gateway.runChannelTurn({
      profile,
      channel: TURN_CHANNELS.cron,
      text,
      sessionId,
      // The job's own model / provider / endpoint (upstream job fields) win over the profile's.
      model: field(job.model),
      provider: field(job.provider),
      baseUrl: field(job.base_url),
      ...(toolsets ? { toolsets } : {}),
      ...(workdir ? { cwd: workdir, ephemeralPrompt: workdirContext(workdir) } : {}),
      // Closed as upstream closes a run's session: titled from the job and the time, ended 'cron_complete'.
      finish: { endReason: 'cron_complete', title }
    })
  } catch (err) {
    return failed(errorMessage(err))
  }
  const warnings = [...(mapped?.warnings ?? []), ...r.warnings]
  if (r.status !== 'completed') return { ...failed(r.error || `turn ${r.status}`), sessionId: r.sessionId, warnings }
  // An empty reply is written as a reply (upstream's layout) and the run counted failed. The turn's explanation of
  // a model that sent nothing is that empty reply, not one to deliver (upstream's cron drops its own the same way).
  const reply = r.reply.trim() === NO_REPLY_TEXT ? '' : r.reply
  const error = reply.trim() ? null : 'the agent completed but produced an empty response'
  return {
    ok: !error,
    error,
    deliver: reply,
    doc: (h) => agentDoc(h, job, text, reply),
    sessionId: r.sessionId,
    warnings
  }
}

const lower = (v: unknown) => (typeof v === 'string' ? v.trim().toLowerCase() : '')

/**
 * Upstream's spend guard for a job that follows the profile's model: its create_job notes the model (and provider)
 * the profile used then (`model_snapshot`, `provider_snapshot`); when the job pins neither and the profile now uses
 * another, the run is refused before any model call. Caduceus refuses it the same way, so a job upstream would skip
 * never runs here on a model the user did not choose for it. The provider is compared only when config.yaml names
 * one (not `auto`): an automatic pick is resolved differently by the two programs. Returns why, or null.
 */
function inferenceDrift(home: string, job: RawJob, vault: SecretVault): string | null {
  const modelSnap = lower(job.model_snapshot)
  const providerSnap = lower(job.provider_snapshot)
  const changes: string[] = []
  if (providerSnap && !lower(job.provider)) {
    const raw = loadConfig(home).raw
    const named = lower(readSection(raw, 'model').provider)
    // both named as upstream's resolution names them (custom:<name> and its custom_providers are `custom`)
    const names = customProviderNames(raw)
    const now = named ? providerIdentity(named, names) : ''
    if (now && named !== 'auto' && now !== providerIdentity(providerSnap, names))
      changes.push(`provider '${providerSnap}' -> '${now}'`)
  }
  if (modelSnap && !lower(job.model)) {
    const now = lower(resolveRuntime(home, { vault }).model)
    if (now && now !== modelSnap) changes.push(`model '${modelSnap}' -> '${now}'`)
  }
  if (!changes.length) return null
  return (
    `Not run, so nothing was spent: this job follows the profile's model settings, which changed since it was ` +
    `created (${changes.join('; ')}). Give the job its own model to run it on the new settings or to keep the old ` +
    `one: caduceus cron edit ${job.id} --model MODEL (upstream: cronjob update with provider and model).`
  )
}

/**
 * Upstream toolset names → this host's toolsets, exactly: nothing is added that the job did not name (no memory
 * or delegation extras). What the job named but cannot have is said, never dropped silently: a name with no
 * tools here (file, web, browser…), and `memory`, which a cron run never gets (upstream's skip_memory).
 */
const TOOLSETS: Record<string, string> = { terminal: 'terminal', delegation: 'delegation' }
function mapToolsets(names: unknown[]): { toolsets: string[]; warnings: string[] } {
  const named = [...new Set(names.map((n) => String(n).trim()).filter(Boolean))]
  const warnings: string[] = []
  if (named.includes('memory'))
    warnings.push('enabled_toolsets names memory, but cron runs have no memory (as upstream builds them)')
  const missing = named.filter((n) => n !== 'memory' && !TOOLSETS[n])
  if (missing.length)
    warnings.push(`enabled_toolsets names ${missing.join(', ')}: no such tools on this host; the job ran without them`)
  return { toolsets: [...new Set(named.map((n) => TOOLSETS[n]).filter((t): t is string => Boolean(t)))], warnings }
}

/** Upstream runs a `workdir` job as if launched there: that folder's agent instructions join the prompt. */
function workdirContext(dir: string): string {
  for (const f of ['AGENTS.md', 'CLAUDE.md', '.cursorrules']) {
    const p = join(dir, f)
    if (existsSync(p)) return `Working directory: ${dir}\n\n${f}:\n${readFileSync(p, 'utf8').slice(0, 20_000)}`
  }
  return `Working directory: ${dir}`
}

/** A run that threw before its bookkeeping, recorded as failed (upstream's manual run does `mark_job_run(False, …)`). */
export function markFailedRun(home: string, id: string, at: number, error: string): Promise<void> {
  return markRun(home, id, at, { ok: false, error, deliver: '', doc: () => '', sessionId: '' }, null)
}

/**
 * Upstream's bookkeeping after a run (`mark_job_run`): last_*, the claims cleared, one more completed run (a finite
 * one-shot's was counted when it was claimed), removal at the repeat limit, next time.
 */
async function markRun(home: string, id: string, at: number, o: Outcome, deliveryError: string | null): Promise<void> {
  const timeZone = timeZoneOf(home)
  await updateJobs(home, (file, changed) => {
    const i = file.jobs.findIndex((j) => j.id === id)
    const live = file.jobs[i]
    if (!live) return // removed while it ran: nothing to record
    changed()
    // last_session_id is Caduceus's own addition (kept by upstream as an unknown field): the Cron page opens it.
    Object.assign(live, {
      last_run_at: isoWithOffset(at, timeZone),
      last_status: o.ok ? 'ok' : 'error',
      last_error: o.ok ? null : o.error,
      last_delivery_error: deliveryError,
      // Caduceus's own addition too: the Cron page shows what the latest run warned about.
      last_warnings: o.warnings?.length ? o.warnings : null,
      ...(o.sessionId ? { last_session_id: o.sessionId } : {}),
      fire_claim: null
    })
    if (live.run_claim != null) live.run_claim = null
    const kind = (live.schedule as { kind?: string } | null)?.kind
    // Upstream counts only when `repeat` is truthy in Python's sense: an empty object is left as it is.
    if (live.repeat && typeof live.repeat === 'object' && Object.keys(live.repeat).length) {
      const times = timesOf(live)
      const preclaimed = kind === 'once' && times !== null && times > 0 && completedOf(live) > 0
      const completed = completedOf(live) + (preclaimed ? 0 : 1)
      live.repeat = { ...(live.repeat as object), completed }
      if (times !== null && times > 0 && completed >= times) return void file.jobs.splice(i, 1)
    }
    const next = kind === 'once' ? null : nextRunAfter(live.schedule, at, { timeZone, lastRunMs: at })
    live.next_run_at = next
    if (next === null) {
      if (kind === 'cron' || kind === 'interval') {
        live.state = 'error'
        live.last_error ??= 'could not compute the next run of this recurring schedule'
      } else Object.assign(live, { enabled: false, state: 'completed' })
    } else if (live.state !== 'paused') live.state = 'scheduled'
  })
}
