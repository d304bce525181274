/**
 * The text an agent cron job runs with, assembled as upstream does: the pre-run script's output (or its error)
 * and the latest output of each `context_from` job go before the prompt as context, and the job's `skills`
 * (SKILL.md under `<profile home>/skills/`) come first with the prompt as the instruction that goes with them.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { RawJob } from './jobs-file'
import type { ScriptResult } from './job-script'

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

/** A skill's instructions (SKILL.md without its front matter), searched a few folders deep as upstream nests them. */
export function readSkill(home: string, name: string): string | null {
  const want = name.replace(/^\//, '').trim()
  if (!want || want.includes('..') || want.includes('/')) return null
  const walk = (dir: string, depth: number): string | null => {
    if (depth > 3 || !existsSync(dir)) return null
    const direct = join(dir, want, 'SKILL.md')
    if (existsSync(direct))
      return readFileSync(direct, 'utf8')
        .replace(/^---\n[\s\S]*?\n---\n/, '')
        .trim()
    for (const e of readdirSync(dir, { withFileTypes: true }))
      if (e.isDirectory() && !e.name.startsWith('.')) {
        const hit = walk(join(dir, e.name), depth + 1)
        if (hit !== null) return hit
      }
    return null
  }
  return walk(join(home, 'skills'), 0)
}

const list = (v: unknown): string[] =>
  (Array.isArray(v) ? v : typeof v === 'string' ? [v] : []).map((s) => String(s).trim()).filter(Boolean)

export function buildJobPrompt(home: string, cronDir: string, job: RawJob, script: ScriptResult | null): string {
  let prompt = String(job.prompt ?? '')
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
  const skills = list(job.skills ?? job.skill)
  if (!skills.length) return prompt
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
  if (prompt) parts.push(`Instruction for this run: ${prompt}`)
  return parts.join('\n').trim()
}
