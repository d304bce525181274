/**
 * Where upstream's gateway would deliver a cron run's output (`deliver`: `local`, `origin`, a platform, `platform:chat`,
 * comma-separated), seen from this host, which keeps every output locally: what to report as not delivered, and which
 * replies upstream treats as nothing to deliver at all.
 */
import { envPath, readEnvFile } from '../secrets'
import type { RawJob } from './jobs-file'

const SILENT = '[SILENT]'

/** The replies upstream reads as "nothing to report" (its cron silence tokens), whole or on their own line. */
const QUIET = new Set(['[SILENT]', 'SILENT', 'NO_REPLY', 'NO REPLY'])
const quietLine = (line: string) => QUIET.has(line.trim().toUpperCase().split(/\s+/).join(' '))

/**
 * Whether a successful run's reply is one upstream does not deliver: a silence token as the whole reply or as its
 * first or last non-blank line (any case, spacing squeezed), or a reply that starts with `[SILENT]`. A token inside
 * a sentence is a real report.
 */
export function nothingToDeliver(reply: string): boolean {
  const text = reply.trim()
  if (!text) return false
  const lines = text.split(/\r?\n/).filter((l) => l.trim())
  return quietLine(text) || quietLine(lines[0]!) || quietLine(lines.at(-1)!) || text.toUpperCase().startsWith(SILENT)
}

/**
 * The platforms upstream can fall back to for a job with `deliver: origin` and no origin, in its order, each with the
 * variable naming its home channel (the profile's .env or the environment); QQ's older variable still counts.
 */
const HOME_CHANNELS: Array<[string, string[]]> = [
  ['matrix', ['MATRIX_HOME_ROOM']],
  ['telegram', ['TELEGRAM_HOME_CHANNEL']],
  ['discord', ['DISCORD_HOME_CHANNEL']],
  ['slack', ['SLACK_HOME_CHANNEL']],
  ['signal', ['SIGNAL_HOME_CHANNEL']],
  ['mattermost', ['MATTERMOST_HOME_CHANNEL']],
  ['sms', ['SMS_HOME_CHANNEL']],
  ['email', ['EMAIL_HOME_ADDRESS']],
  ['dingtalk', ['DINGTALK_HOME_CHANNEL']],
  ['feishu', ['FEISHU_HOME_CHANNEL']],
  ['wecom', ['WECOM_HOME_CHANNEL']],
  ['weixin', ['WEIXIN_HOME_CHANNEL']],
  ['bluebubbles', ['BLUEBUBBLES_HOME_CHANNEL']],
  ['qqbot', ['QQBOT_HOME_CHANNEL', 'QQ_HOME_CHANNEL']],
  ['whatsapp', ['WHATSAPP_HOME_CHANNEL']],
  ['whatsapp_cloud', ['WHATSAPP_CLOUD_HOME_CHANNEL']]
]

function homeChannel(home: string): string | null {
  const env = readEnvFile(envPath(home))
  const value = (k: string) => (env[k] ?? process.env[k] ?? '').trim()
  for (const [platform, vars] of HOME_CHANNELS) {
    const chat = vars.map(value).find(Boolean)
    if (chat) return `${platform}:${chat}`
  }
  return null
}

/**
 * This host delivers locally only: any other target is reported, never silently dropped. `origin` is the chat the job
 * was made from (upstream's `origin: {platform, chat_id, thread_id}`), where upstream's gateway delivers it; for a job
 * without one upstream uses the first platform with a home channel set, and with none delivers nowhere.
 */
export function deliveryProblem(home: string, job: RawJob, outputPath: string): string | null {
  const deliver = job.deliver
  const parts = (Array.isArray(deliver) ? deliver.map(String) : String(deliver ?? '').split(','))
    .map((p) => p.trim())
    .filter(Boolean)
  const origin = job.origin && typeof job.origin === 'object' ? (job.origin as Record<string, unknown>) : null
  const originTarget = () => {
    if (origin && origin.platform && origin.chat_id)
      return `${[origin.platform, origin.chat_id, origin.thread_id].filter((v) => v != null && v !== '').join(':')} (the job's origin chat)`
    const fallback = homeChannel(home)
    return fallback ? `${fallback} (a home channel: the job has no origin chat)` : null
  }
  const remote = parts
    .map((p) => (p === 'origin' ? originTarget() : p))
    .filter((p): p is string => p !== null && p !== 'local')
  if (!remote.length) return null
  return `this host cannot deliver to ${remote.join(', ')}: Caduceus keeps cron output locally (${outputPath}); upstream's gateway delivers to chat platforms`
}
