/**
 * The text of a run's output file, laid out as upstream's run_job lays it out (test/fixtures/upstream/cron-outputs):
 * a `# Cron Job: <name>` heading, bold `**Job ID:**` / `**Run Time:**` lines (the profile's wall clock at the end of
 * the run, `%Y-%m-%d %H:%M:%S`), then per kind of run its own fields and sections. Upstream's own readers (its
 * `context_from`) and a user who opens the folder see the same file whichever program ran the job. What Caduceus
 * adds (warnings, the session) is kept on the job and shown on the Cron page, not in this file.
 */
import { pyStr } from '@shared/contract/py-text'
import type { RawJob } from './jobs-file'

export interface DocHead {
  /** The job's name as the heading shows it (name, else prompt, else id). */
  name: string
  id: string
  /** `2026-11-21 00:04:05` on the profile's clock. */
  runTime: string
}

const head = (h: DocHead, extra = '') =>
  `# Cron Job: ${h.name}${extra}\n\n**Job ID:** ${h.id}\n**Run Time:** ${h.runTime}\n`

/** The schedule line as upstream prints `job.get('schedule_display', 'N/A')`: a missing key, else Python's str(). */
function scheduleLine(job: RawJob): string {
  return !('schedule_display' in job) || job.schedule_display === undefined ? 'N/A' : pyStr(job.schedule_display)
}

/** An agent run that ended with a reply (an empty one is written as upstream writes it, the run then counted failed). */
export function agentDoc(h: DocHead, job: RawJob, prompt: string, reply: string): string {
  const shown = reply || '(No response generated)'
  return `${head(h)}**Schedule:** ${scheduleLine(job)}\n\n## Prompt\n\n${prompt}\n\n## Response\n\n${shown}\n`
}

/** An agent run that failed once its text was assembled (the model call, the spend guard, the turn itself). */
export function failedDoc(h: DocHead, job: RawJob, prompt: string, error: string): string {
  return (
    `${head(h, ' (FAILED)')}**Schedule:** ${scheduleLine(job)}\n\n## Prompt\n\n${prompt}\n\n` +
    `## Error\n\n\`\`\`\n${error}\n\`\`\`\n`
  )
}

/** The run's text was refused by the check before a run (prompt-guard.ts): no agent turn. */
export function blockedDoc(h: DocHead, refusal: string): string {
  return (
    `${head(h)}**Status:** BLOCKED\n\n` +
    'The agent was not run: the text assembled for this run (its prompt with any skills loaded) failed the check ' +
    'made before every cron run.\n\n' +
    `**Scanner result:** ${refusal}\n\n` +
    "Check the job's prompt and skills for hidden instructions or invisible characters, and reword them if the " +
    'match is a false alarm.'
  )
}

/** The pre-run script's wake gate said no: no agent turn. */
export function gateDoc(h: DocHead): string {
  return `${head(h)}\nThe script's gate answered \`wakeAgent=false\`, so the agent was not run.\n`
}

/** A `no_agent` job: its script is the job. `status` null: it printed something, which is the output. */
export function scriptDoc(
  h: DocHead,
  status: 'script failed' | 'silent (wakeAgent=false)' | 'silent (empty output)' | null,
  output: string
): string {
  const mode = `${head(h)}**Mode:** no_agent (script)\n`
  if (status === 'script failed') return `${mode}**Status:** ${status}\n\n${output}\n`
  if (status) return `${mode}**Status:** ${status}\n`
  return `${mode}\n---\n\n${output}\n`
}
