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

/** The platforms upstream's cron delivers to by name (those with a home channel variable among them). */
const KNOWN = new Set([...HOME_CHANNELS.map(([p]) => p), 'homeassistant', 'wecom_callback', 'webhook', 'yuanbao'])

/** The home channel `platform` has set (the profile's .env, else the environment), or ''. */
function homeOf(home: string, platform: string): { chat: string; vars: string[] } {
  const vars = HOME_CHANNELS.find(([p]) => p === platform)?.[1] ?? []
  const env = readEnvFile(envPath(home))
  const chat = vars.map((k) => (env[k] ?? process.env[k] ?? '').trim()).find(Boolean) ?? ''
  return { chat, vars }
}

type Origin = Record<string, unknown> | null

const originChat = (o: Origin) =>
  o && o.platform && o.chat_id
    ? `${[o.platform, o.chat_id, o.thread_id].filter((v) => v != null && v !== '').join(':')} (the job's origin chat)`
    : null

/**
 * Where upstream's gateway would send one `deliver` part, or why nowhere: `origin` is the chat the job was made from,
 * else the first platform with a home channel; `platform:chat` is that chat; a bare platform is the origin chat when
 * the job was made there, else that platform's home channel.
 */
function resolvePart(home: string, part: string, origin: Origin): { target: string } | { none: string } {
  if (part === 'origin') {
    const chat = originChat(origin)
    if (chat) return { target: chat }
    for (const [platform] of HOME_CHANNELS) {
      const { chat: c } = homeOf(home, platform)
      if (c) return { target: `${platform}:${c} (a home channel: the job has no origin chat)` }
    }
    return { none: 'the job has no origin chat and no home channel is set' }
  }
  if (part.includes(':')) return { target: part }
  const platform = part.toLowerCase()
  if (origin && String(origin.platform ?? '') === part && originChat(origin)) return { target: originChat(origin)! }
  if (!KNOWN.has(platform)) return { none: `${part} is not a platform upstream's gateway delivers to` }
  const { chat, vars } = homeOf(home, platform)
  if (chat) return { target: `${platform}:${chat} (${platform}'s home channel)` }
  return {
    none: `${part} has no home channel set${vars.length ? ` (${vars[0]})` : ''} and the job was not made from a ${part} chat`
  }
}

/**
 * This host delivers locally only: a run's output always goes to its file, and a `deliver` naming anywhere else is
 * reported in the run's `last_delivery_error` (a note: the run's status stays as the run went, as upstream's does).
 * Two cases, as upstream's gateway sees them:
 * - a target it would send to: reported as one this host cannot reach;
 * - no target at all (a platform with no home channel and no origin chat there, a platform it does not know):
 *   upstream records that as its own delivery error, so Caduceus says so too, naming what is missing. `local`, and
 *   `origin` with no origin chat and no home channel, are nothing to deliver for both (no note).
 */
export function deliveryProblem(home: string, job: RawJob, outputPath: string): string | null {
  const deliver = job.deliver
  const parts = (Array.isArray(deliver) ? deliver.map(String) : String(deliver ?? '').split(','))
    .map((p) => p.trim())
    .filter(Boolean)
  const whole = parts.join(',') || 'local'
  if (whole === 'local') return null
  const origin: Origin = job.origin && typeof job.origin === 'object' ? (job.origin as Record<string, unknown>) : null
  // `all`: every platform with a home channel set now.
  const expanded = parts.flatMap((p) =>
    p.toLowerCase() === 'all' ? HOME_CHANNELS.map(([n]) => n).filter((n) => homeOf(home, n).chat) : [p]
  )
  const resolved = expanded.filter((p) => p !== 'local').map((p) => resolvePart(home, p, origin))
  const targets = [...new Set(resolved.flatMap((r) => ('target' in r ? [r.target] : [])))]
  if (targets.length)
    return `this host cannot deliver to ${targets.join(', ')}: Caduceus keeps cron output locally (${outputPath}); upstream's gateway delivers to chat platforms`
  if (whole === 'origin') return null
  const why = [...new Set(resolved.flatMap((r) => ('none' in r ? [r.none] : [])))]
  return `nowhere to deliver "${whole}": ${why.join('; ') || 'no platform named'}. Upstream's gateway would not deliver it either (it records the run as ok with a delivery error, as here); the output is kept at ${outputPath}`
}
