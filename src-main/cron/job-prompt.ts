/**
 * The text an agent cron job runs with, assembled as upstream does: the pre-run script's output (or its error)
 * and the latest output of each `context_from` job go before the prompt as context, a note on what a cron run is
 * (its reply is the output; `[SILENT]` alone means nothing to report) goes before all of that, and the job's
 * `skills` (skill-lookup.ts) come first with the rest as the instruction that goes with them.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { RawJob } from './jobs-file'
import type { ScriptResult } from './job-script'
import { readSkill } from './skill-lookup'
import { jobSkills } from './job-fields'
import { guardRunText } from './prompt-guard'

const MAX_CONTEXT_CHARS = 8000

const fenced = (title: string, note: string, body: string) => `## ${title}\n${note}\n\n\`\`\`\n${body}\n\`\`\`\n\n`

function latestOutput(cronDir: string, jobId: string): string | null {
  const dir = join(cronDir, 'output', jobId)
  if (!existsSync(dir)) return null
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.md'))
    .map((f) => ({ f, at: statSync(join(dir, f)).mtimeMs }))
    .sort((a, b) => b.at - a.at)
  if (!files.length) return null
  const text = readFileSync(join(dir, files[0]!.f), 'utf8').trim()
  return text.length > MAX_CONTEXT_CHARS ? `${text.slice(0, MAX_CONTEXT_CHARS)}\n\n[... output truncated ...]` : text
}

/**
 * What every cron run is told first, as upstream tells its agent (in our words): nobody reads the run live, its final
 * reply is what gets kept and delivered, and a reply of exactly `[SILENT]` says there is nothing to report (such a
 * run delivers nothing: delivery.ts), so "tell me only if something changed" jobs can stay quiet.
 */
const CRON_RUN_NOTE =
  '[Cron run: this turn was started by a schedule, not by someone in a chat. Your final reply is the output of the ' +
  'job; it is saved and delivered for you, so do not try to send it anywhere yourself. If there is nothing new ' +
  'worth reporting, reply with exactly [SILENT] and nothing else; otherwise report normally and leave [SILENT] out.]'

const list = (v: unknown): string[] =>
  (Array.isArray(v) ? v : typeof v === 'string' ? [v] : []).map((s) => String(s ?? '').trim()).filter(Boolean)

/** The text a run's check before the run refused (prompt-guard.ts): the run is recorded as blocked, not run. */
export class RunBlocked extends Error {}

/** The text; throws RunBlocked when upstream's pre-run check would refuse it (prompt-guard.ts). */
export function buildJobPrompt(home: string, cronDir: string, job: RawJob, script: ScriptResult | null): string {
  const own = job.prompt == null ? '' : String(job.prompt)
  let prompt = own
  if (script?.ok && script.output)
    prompt =
      fenced('Script Output', "Data collected by this job's script before the run; use it as context.", script.output) +
      prompt
  else if (script && !script.ok)
    prompt = fenced('Script Error', "This job's data-collection script failed; tell the user.", script.output) + prompt
  for (const id of list(job.context_from)) {
    if (!/^[0-9a-f]+$/.test(id)) continue
    const out = latestOutput(cronDir, id)
    if (out)
      prompt =
        fenced(`Output from job '${id}'`, 'The latest output of an earlier cron job; use it as context.', out) + prompt
  }
  const data = prompt !== own
  const skills = jobSkills(job)
  // A job with nothing of its own (no prompt, script output or skill) still runs, on the note alone, as upstream's.
  prompt = `${CRON_RUN_NOTE}\n\n${prompt}`
  if (!skills.length) return guarded(prompt, { skills: false, data, ownPrompt: own })
  const parts: string[] = []
  const missing: string[] = []
  for (const name of skills) {
    const body = readSkill(home, name)
    if (body === null) missing.push(name)
    else parts.push(`[Skill "${name}" is loaded for this job; follow its instructions.]`, '', body, '')
  }
  if (missing.length)
    parts.unshift(
      `[These skills are listed for this job but were not found, so they were skipped: ${missing.join(', ')}. Mention this briefly at the start of your reply.]`,
      ''
    )
  parts.push(`Instruction for this run: ${prompt}`)
  return guarded(parts.join('\n').trim(), { skills: true, data, ownPrompt: own })
}

function guarded(text: string, opts: Parameters<typeof guardRunText>[1]): string {
  const r = guardRunText(text, opts)
  if ('refusal' in r) throw new RunBlocked(r.refusal)
  return r.text
}
