/**
 * The masking of an export asked for with `--redact` (CLI) or "redacted" (the app): the same output as upstream's
 * `hermes sessions export --redact`, string for string (golden: scripts/golden/export_redact.py). Upstream runs
 * its forced secret pass over every string of a record's messages and segments: vendor-prefixed keys keep their
 * first 6 and last 4 characters (`sk-pro...6789`, anything under 18 characters becomes `***`), `KEY=value` and
 * `key: value` config lines, JSON secret fields, auth headers, Telegram tokens, private key blocks (one marker),
 * database URL passwords, a bare token as a URL's userinfo, JWTs, form bodies and phone numbers. Web URLs'
 * `user:password@` and query strings pass through, as upstream lets them (links the reader is meant to follow).
 *
 * Written for Python's `re` semantics: `\s`, `\d` and `\w` are Unicode classes there, `^` in multi-line mode
 * starts a line only after `\n`, and case-insensitive matching lets `ı`/`İ` match `i`; the classes below say so
 * explicitly, since JavaScript's differ. The log's own redaction (redact.ts) is a different, stricter pass.
 * After upstream's pass, any secret value this process knows that is still there whole is masked too: a
 * "redacted" export never carries a key the host holds.
 */
import type { SecretMask } from './redact'
import { PyNumber } from '@shared/contract/py-text'

// Python's Unicode whitespace (str.isspace), for use inside a character class.
const WS = '\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000'
const S = `[${WS}]`
const NS = `[^${WS}]`
const DIGIT = '\\p{Nd}'
const WORD = '[\\p{L}\\p{N}_]'
// Case-insensitive letters as Python folds them: dotless ı and dotted İ count as `i`.
const AZ = 'A-Za-z\\u0130\\u0131'
const ci = (word: string) => word.replace(/i/g, '[i\\u0130\\u0131]')
// Python's `^` with re.MULTILINE: the start, or just after `\n` (not `\r` or U+2028 as in JavaScript).
const LINE_START = '(?:^|(?<=\\n))'

const re = (src: string, flags = '') => new RegExp(src, `gu${flags}`)

const VENDOR_KEYS = [
  'sk-[A-Za-z0-9_-]{10,}',
  'ghp_[A-Za-z0-9]{10,}',
  'github_pat_[A-Za-z0-9_]{10,}',
  'gho_[A-Za-z0-9]{10,}',
  'ghu_[A-Za-z0-9]{10,}',
  'ghs_[A-Za-z0-9]{10,}',
  'ghr_[A-Za-z0-9]{10,}',
  `xapp-${DIGIT}+-[A-Za-z0-9-]{10,}`,
  'xox[baprs]-[A-Za-z0-9-]{10,}',
  'AIza[A-Za-z0-9_-]{30,}',
  'pplx-[A-Za-z0-9]{10,}',
  'fal_[A-Za-z0-9_-]{10,}',
  'fc-[A-Za-z0-9]{10,}',
  'bb_live_[A-Za-z0-9_-]{10,}',
  'gAAAA[A-Za-z0-9_=-]{20,}',
  'AKIA[A-Z0-9]{16}',
  'sk_live_[A-Za-z0-9]{10,}',
  'sk_test_[A-Za-z0-9]{10,}',
  'rk_live_[A-Za-z0-9]{10,}',
  'SG\\.[A-Za-z0-9_-]{10,}',
  'hf_[A-Za-z0-9]{10,}',
  'r8_[A-Za-z0-9]{10,}',
  'npm_[A-Za-z0-9]{10,}',
  'pypi-[A-Za-z0-9_-]{10,}',
  'dop_v1_[A-Za-z0-9]{10,}',
  'doo_v1_[A-Za-z0-9]{10,}',
  'am_[A-Za-z0-9_-]{10,}',
  'sk_[A-Za-z0-9_]{10,}',
  'tvly-[A-Za-z0-9]{10,}',
  'exa_[A-Za-z0-9]{10,}',
  'gsk_[A-Za-z0-9]{10,}',
  'syt_[A-Za-z0-9]{10,}',
  'retaindb_[A-Za-z0-9]{10,}',
  'hsk-[A-Za-z0-9]{10,}',
  'mem0_[A-Za-z0-9]{10,}',
  'brv_[A-Za-z0-9]{10,}',
  'xai-[A-Za-z0-9]{30,}',
  'ntn_[A-Za-z0-9]{10,}',
  'fw-[A-Za-z0-9]{30,}',
  'fw_[A-Za-z0-9]{30,}',
  'fpk_[A-Za-z0-9]{30,}'
]
const VENDOR_KEY = re(`(?<![A-Za-z0-9_-])(?:${VENDOR_KEYS.join('|')})(?![A-Za-z0-9_-])`)

const ENV_NAMES = '(?:API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)'
const ENV_ASSIGN = re(`([A-Z0-9_]{0,50}${ENV_NAMES}[A-Z0-9_]{0,50})${S}*=${S}*(['"]?)(${NS}+)\\2`)
const CFG_NAMES = ci('(?:api[ _.\\-]?key|token|secret|passwd|password|credential|auth)')
const CFG_VALUE = `(['"]?)([^${WS}&]+?)\\2(?=[${WS}&]|$)`
const KEY_CH = `[${AZ}0-9_.\\-]`
const CFG_DOTTED = re(
  `((?:[${AZ}0-9_\\-]+\\.)+${KEY_CH}*${CFG_NAMES}${KEY_CH}*|${KEY_CH}*${CFG_NAMES}${KEY_CH}*\\.${KEY_CH}+)=${CFG_VALUE}`,
  'i'
)
const CFG_ANCHORED = re(
  `(${LINE_START}[ \\t]*(?:${ci('export')}[ \\t]+)?[${AZ}0-9_\\-]*${CFG_NAMES}[${AZ}0-9_\\-]*)=${CFG_VALUE}`,
  'i'
)
const YAML_NAMES = ci('(?:api[ _.\\-]?key|token|secret|passwd|password|credential)')
const YAML_ASSIGN = re(`(${LINE_START}[ \\t]*${KEY_CH}*${YAML_NAMES}${KEY_CH}*)(:[ \\t]*)(?!['"])([^${WS}&]+)`, 'i')
const JSON_NAMES = ci(
  '(?:api_?[Kk]ey|token|secret|password|access_token|refresh_token|auth_token|bearer|secret_value|raw_secret|secret_input|key_material)'
)
const JSON_FIELD = re(`("${JSON_NAMES}")${S}*:${S}*"([^"]+)"`, 'i')
// A config value that is a lookup of an environment variable by name is code, not a secret.
const ENV_LOOKUP = /^(?:os\.(?:getenv|environ)|process\.env|\$ENV\{)/u

const AUTH_HEADER = re(`(${ci('(?:Proxy-)?Authorization')}:${S}*)([${AZ}](?:${WORD}|[.+\\-])*${S}+)?([^${WS}"']+)`, 'i')
const KEY_HEADER = re(
  `(${ci('(?:x-api-key|x-goog-api-key|api-key|apikey|x-api-token|x-auth-token|x-access-token)')}${S}*:${S}*)(${NS}+)`,
  'i'
)
const TELEGRAM = re(`(bot)?(${DIGIT}{8,}):([-A-Za-z0-9_]{30,})`)
const PRIVATE_KEY = re('-----BEGIN[A-Z ]*PRIVATE KEY-----[\\s\\S]*?-----END[A-Z ]*PRIVATE KEY-----')
const DB_URL = re(
  `(${ci('(?:postgres(?:ql)?|mysql|mongodb(?:\\+srv)?|redis|amqp)')}://[^:${WS}]+:)([^@${WS}]+)(@)`,
  'i'
)
const URL_BARE_TOKEN = re(`(${ci('(?:https?|wss?|git|ssh|ftp|ftps|sftp)')}://)([^${WS}:@/]{8,})(@${NS}+)`, 'i')
const JWT = re('eyJ[A-Za-z0-9_-]{10,}(?:\\.[A-Za-z0-9_=-]{4,}){0,2}')
const FORM_BODY = new RegExp(`^[A-Za-z_][A-Za-z0-9_.-]*=[^&${WS}]*(?:&[A-Za-z_][A-Za-z0-9_.-]*=[^&${WS}]*)+$`, 'u')
const PHONE = re(`(\\+[1-9]${DIGIT}{6,14})(?![A-Za-z0-9])`)
const SENSITIVE_FORM_KEYS = new Set([
  'access_token',
  'refresh_token',
  'id_token',
  'token',
  'api_key',
  'apikey',
  'client_secret',
  'password',
  'auth',
  'jwt',
  'session',
  'secret',
  'key',
  'code',
  'signature',
  'x-amz-signature'
])
const EDGE_WS = new RegExp(`^${S}+|${S}+$`, 'gu')

/** Characters as Python counts them (code points), so a mask keeps the same head and tail. */
const chars = (s: string) => Array.from(s)

/** A token's mask: under 18 characters all of it, else its first 6 and last 4 around `...`. */
function maskToken(token: string): string {
  const c = chars(token)
  if (c.length < 18) return '***'
  return `${c.slice(0, 6).join('')}...${c.slice(-4).join('')}`
}

function maskAssignment(whole: string, name: string, quote: string, value: string): string {
  return ENV_LOOKUP.test(value) ? whole : `${name}=${quote}${maskToken(value)}${quote}`
}

function maskFormBody(text: string): string {
  if (text.includes('\n') || !text.includes('&')) return text
  const body = text.replace(EDGE_WS, '')
  if (!FORM_BODY.test(body)) return text
  return body
    .split('&')
    .map((pair) => {
      const at = pair.indexOf('=')
      if (at < 0) return pair
      const key = pair.slice(0, at)
      return SENSITIVE_FORM_KEYS.has(key.toLowerCase()) ? `${key}=***` : pair
    })
    .join('&')
}

function maskPhone(phone: string): string {
  const c = chars(phone)
  const keep = c.length <= 8 ? 2 : 4
  return `${c.slice(0, keep).join('')}****${c.slice(-keep).join('')}`
}

/** One string as upstream's `--redact` writes it. */
function redactExportText(input: string): string {
  let text = input
  if (!text) return text
  text = text.replace(VENDOR_KEY, (m) => maskToken(m))
  if (text.includes('=')) {
    text = text.replace(ENV_ASSIGN, maskAssignment)
    if (!text.includes('://')) {
      text = text.replace(CFG_DOTTED, maskAssignment)
      text = text.replace(CFG_ANCHORED, maskAssignment)
    }
  }
  if (text.includes(':') && text.includes('"'))
    text = text.replace(JSON_FIELD, (whole, key: string, value: string) =>
      ENV_LOOKUP.test(value) ? whole : `${key}: "${maskToken(value)}"`
    )
  if (text.includes(':') && !text.includes('://'))
    text = text.replace(YAML_ASSIGN, (whole, key: string, sep: string, value: string) =>
      ENV_LOOKUP.test(value) ? whole : `${key}${sep}${maskToken(value)}`
    )
  // Upstream looks for these exact spellings before it applies its case-insensitive header pattern.
  if (text.includes('uthorization') || text.includes('UTHORIZATION'))
    text = text.replace(
      AUTH_HEADER,
      (_m, head: string, scheme: string | undefined, cred: string) => `${head}${scheme ?? ''}${maskToken(cred)}`
    )
  if (text.includes(':')) {
    text = text.replace(KEY_HEADER, (_m, head: string, value: string) => `${head}${maskToken(value)}`)
    text = text.replace(TELEGRAM, (_m, bot: string | undefined, digits: string) => `${bot ?? ''}${digits}:***`)
  }
  if (text.includes('BEGIN') && text.includes('-----')) text = text.replace(PRIVATE_KEY, '[REDACTED PRIVATE KEY]')
  if (text.includes('://')) {
    text = text.replace(DB_URL, (_m, head: string, _pw: string, at: string) => `${head}***${at}`)
    text = text.replace(
      URL_BARE_TOKEN,
      (_m, scheme: string, token: string, rest: string) => `${scheme}${maskToken(token)}${rest}`
    )
  }
  if (text.includes('eyJ')) text = text.replace(JWT, (m) => maskToken(m))
  if (text.includes('&') && text.includes('=')) text = maskFormBody(text)
  if (text.includes('+')) text = text.replace(PHONE, (m) => maskPhone(m))
  return text
}

/**
 * Every string inside a record's value (messages, segments) masked as upstream's `--redact` masks it, then any
 * secret value the exporting host knows (its `mask`) left whole; object keys and non-string values stay as they are.
 */
export function redactForExport<T>(value: T, mask: SecretMask): T {
  if (typeof value === 'string') return mask.maskKnown(redactExportText(value)) as T
  // a PyNumber (an integer past 2**53, a whole float) is a number to the export, not an object to walk
  if (value === null || typeof value !== 'object' || value instanceof PyNumber) return value
  if (Array.isArray(value)) return value.map((v: unknown) => redactForExport(v, mask)) as T
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = redactForExport(v, mask)
  return out as T
}
