/**
 * Vendor key shapes as upstream's redaction reads them: a prefix, the characters its key is made of and a minimum
 * length, standing alone (no key character either side). The classes matter: `hf_hub_download`, `npm_config_registry`
 * or `exa_search_results` are identifiers, not keys, and must stay readable in replies, logs and exports.
 */
const VENDOR_KEYS: Array<[prefix: string, chars: string, min: number, max?: number]> = [
  ['sk-', 'A-Za-z0-9_-', 10],
  ['ghp_', 'A-Za-z0-9', 10],
  ['github_pat_', 'A-Za-z0-9_', 10],
  ['gho_', 'A-Za-z0-9', 10],
  ['ghs_', 'A-Za-z0-9', 10],
  ['xox[baprs]-', 'A-Za-z0-9-', 10],
  ['AKIA', 'A-Z0-9', 16, 16],
  ['fc-', 'A-Za-z0-9', 10],
  ['am_', 'A-Za-z0-9_-', 10],
  ['sk_', 'A-Za-z0-9_', 10],
  ['gAAAA', 'A-Za-z0-9_=-', 20],
  ['AIza', 'A-Za-z0-9_-', 30],
  ['hf_', 'A-Za-z0-9', 10],
  ['gsk_', 'A-Za-z0-9', 10],
  ['pplx-', 'A-Za-z0-9', 10],
  ['fal_', 'A-Za-z0-9_-', 10],
  ['tvly-', 'A-Za-z0-9', 10],
  ['exa_', 'A-Za-z0-9', 10],
  ['r8_', 'A-Za-z0-9', 10],
  ['npm_', 'A-Za-z0-9', 10],
  ['pypi-', 'A-Za-z0-9_-', 10],
  ['dop_v1_', 'A-Za-z0-9', 10],
  ['doo_v1_', 'A-Za-z0-9', 10],
  ['sk_live_', 'A-Za-z0-9', 10],
  ['sk_test_', 'A-Za-z0-9', 10],
  ['rk_live_', 'A-Za-z0-9', 10],
  ['SG\\.', 'A-Za-z0-9_-', 10],
  ['syt_', 'A-Za-z0-9', 10],
  ['ntn_', 'A-Za-z0-9', 10],
  ['ghu_', 'A-Za-z0-9', 10],
  ['ghr_', 'A-Za-z0-9', 10],
  ['xapp-\\d+-', 'A-Za-z0-9-', 10],
  ['bb_live_', 'A-Za-z0-9_-', 10],
  ['mem0_', 'A-Za-z0-9', 10],
  ['brv_', 'A-Za-z0-9', 10],
  ['hsk-', 'A-Za-z0-9', 10],
  ['retaindb_', 'A-Za-z0-9', 10],
  ['xai-', 'A-Za-z0-9', 30],
  ['fw-', 'A-Za-z0-9', 30],
  ['fw_', 'A-Za-z0-9', 30],
  ['fpk_', 'A-Za-z0-9', 30]
]
const vendorKeys = () =>
  new RegExp(
    `(?<![A-Za-z0-9_-])(?:${VENDOR_KEYS.map(([p, c, n, m]) => `${p}[${c}]{${n},${m ?? ''}}`).join('|')})(?![A-Za-z0-9_-])`,
    'g'
  )

/** The prefix a masked vendor key keeps (`hf_`, `xapp-1-`, …). */
function vendorPrefix(key: string): string {
  for (const [p] of VENDOR_KEYS) {
    const hit = new RegExp(`^${p}`).exec(key)
    if (hit) return hit[0]
  }
  return ''
}

// Field names (JSON, a Python dict, headers echoed as JSON) whose value is a credential whatever it looks like.
const SECRET_FIELD =
  '(?:api[_-]?key|x-api-key|x-goog-api-key|token|secret|password|passwd|access_token|refresh_token|auth_token|id_token|bearer|' +
  'authorization|proxy-authorization|x-auth-token|x-access-token|client_secret|private_key|secret_key|secret_value|' +
  'raw_secret|secret_input|key_material)'

/**
 * Mask anything that looks like a credential before it reaches a log line. Loggers call this on every
 * message; callers should still never pass a key in the first place.
 */
const PATTERNS: Array<[RegExp, (m: string, ...g: string[]) => string]> = [
  [/\b(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi, (_m, p) => `${p}***`],
  // NAME=value / "name": "value" for names that say they are secret.
  // Name parts bounded: unbounded runs around the keyword backtrack through every keyword in a long word (quadratic).
  [
    /\b([A-Z0-9_]{0,64}(?:API_KEY|TOKEN|SECRET|PASSWORD)[A-Z0-9_]{0,64}\s*[=:]\s*["']?)[^\s"']{4,}/gi,
    (_m, p) => `${p}***`
  ],
  // Query parameters that carry a credential (`?key=`, `?apikey=`, `&api-key=`, `?access_token=`, `?client_secret=`).
  [
    /([?&](?:token|key|api[_-]?key|access[_-]?token|auth|client[_-]?secret|password|passwd|secret|signature|sig)=)[^&#\s]+/gi,
    (_m, p) => `${p}***`
  ],
  // JWT-shaped tokens (three base64url segments). `-` makes a word boundary inside a segment, so `eyJ-eyJ-…` holds a
  // start every 4 characters and each rescanned the whole run (quadratic). The lookbehind skips a start with an
  // earlier one in the same run: the earlier start's first segment reaches the same `.`, so it matches whenever the
  // later would; the backward scan stops at that earlier start, so the pattern stays linear.
  [/\beyJ(?<!\beyJ[A-Za-z0-9_-]*?-eyJ)[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}\b/g, () => 'eyJ***'],
  // Vendor key shapes as upstream's redaction knows them (OpenAI-style sk-, GitHub, Slack, AWS, Google, Stripe, …).
  [vendorKeys(), (m) => `${vendorPrefix(m)}***`],
  // Header forms: any Authorization scheme, and the API-key headers that carry a bare value.
  [/((?:Proxy-)?Authorization:\s*(?:[A-Za-z][\w.+-]*\s+)?)[^\s"'*]{4,}/gi, (_m, p) => `${p}***`],
  [
    /((?:x-api-key|x-goog-api-key|api-key|apikey|x-api-token|x-auth-token|x-access-token)\s*[:=]\s*)[^\s*"',;&]{4,}/gi,
    (_m, p) => `${p}***`
  ],
  // Telegram bot tokens (digits:secret), private key blocks, a database URL's password, a URL's bare-token userinfo.
  [/\b((?:bot)?\d{8,}:)[-A-Za-z0-9_]{30,}/g, (_m, p) => `${p}***`],
  // The body may not cross another `-----` marker: a block without its END stops at the next marker, so text full of
  // BEGIN lines costs one pass (upstream's lazy `[\s\S]*?` rescans to the end from every BEGIN: quadratic).
  [
    /-----BEGIN[A-Z ]{0,40}PRIVATE KEY-----(?:(?!-----)[\s\S])*-----END[A-Z ]{0,40}PRIVATE KEY-----/g,
    () => '[private key]'
  ],
  // Bounded runs (upstream's are not): an unbounded run before a required `@` rescans the text from every scheme.
  [
    /((?:postgres(?:ql)?|mysql|mongodb(?:\+srv)?|redis|amqp):\/\/[^:\s/@]{1,256}:)[^@\s]{1,512}@/gi,
    (_m, p) => `${p}***@`
  ],
  [/((?:https?|wss?|git|ssh|ftps?|sftp):\/\/)[^\s:@/]{8,}@/gi, (_m, p) => `${p}***@`],
  // Any other URL's `user:password@` (a base URL behind basic auth): the user name stays, the password goes.
  [/\b([A-Za-z][A-Za-z0-9+.-]{0,30}:\/\/[^:\s/?#@]{1,256}:)(?!\*\*\*@)[^@\s/?#]{1,512}@/g, (_m, p) => `${p}***@`],
  // A JSON field (or a Python dict's, in single quotes) whose name says it is secret: header names too.
  [new RegExp(`("${SECRET_FIELD}"\\s*:\\s*")[^"]+"`, 'gi'), (_m, p) => `${p}***"`],
  [new RegExp(`('${SECRET_FIELD}'\\s*:\\s*')[^']+'`, 'gi'), (_m, p) => `${p}***'`]
]

// Names whose values are secret whatever they look like.
const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|PRIVATE|COOKIE|SESSION)/i

/** `text` with each of `ordered` (longest first, so a key that contains another is masked whole) as `***`. */
function maskValues(ordered: readonly string[], text: string): string {
  let out = text
  for (const s of ordered) if (out.includes(s)) out = out.split(s).join('***')
  return out
}

const withPatterns = (text: string): string => {
  let out = text
  for (const [re, fn] of PATTERNS) out = out.replace(re, fn as (m: string) => string)
  return out
}

/** The masks of the hosts still open: the process's last resort masks what any of them holds. */
const live = new Set<SecretMask>()
/** Their values together, longest first; null once one of them changed (rebuilt on the next use). */
let union: string[] | null = []

/**
 * One host's secret VALUES (each profile's `.env` and vault, config `api_key`s, a base URL's password), masked
 * wherever they appear — a provider that echoes a key of no known shape is masked all the same — with the credential
 * shapes (PATTERNS) after them. The host builds one (`buildGraph`) and hands it to its vault (`secretsFor`,
 * `resolveRuntime` and key writes fill it), its logger, dispatcher and event bus, its gateway, cron scripts, process
 * registry (terminal output), memory and exports, so a host masks its own secrets in its own lines. Until it is closed
 * it also counts toward the process's last resort (`redact` below); never leaves the process.
 */
export class SecretMask {
  readonly #known = new Set<string>()
  #ordered: string[] = []

  constructor() {
    live.add(this)
  }

  /** Remember secret values verbatim (a key read from a vault, a config `api_key`). */
  remember(values: Iterable<string | null | undefined>): void {
    let added = false
    for (const v of values) {
      const t = typeof v === 'string' ? v.trim() : ''
      if (t.length < 4 || this.#known.has(t)) continue
      this.#known.add(t)
      added = true
    }
    if (!added) return
    this.#ordered = [...this.#known].sort((a, b) => b.length - a.length)
    if (live.has(this)) union = null
  }

  /** Remember a profile's secrets: values of secret-sounding names, and any long opaque value (no spaces or paths). */
  rememberEnv(env: Record<string, string>): void {
    this.remember(
      Object.entries(env)
        .filter(([name, v]) => SECRET_NAME.test(name) || (v.length >= 20 && /^[^\s/\\]+$/.test(v)))
        .map(([, v]) => v)
    )
  }

  /** Only the known secret values (each `***`), none of the shape patterns: what an export adds to upstream's masking. */
  maskKnown(text: string): string {
    return maskValues(this.#ordered, text)
  }

  redact(text: string): string {
    return withPatterns(maskValues(this.#ordered, String(text)))
  }

  /** Redact every string inside a JSON-like value (events, notices); returns the same object when nothing changed. */
  redactDeep<T>(value: T): T {
    return deepWith(value, (s) => this.redact(s), 0)
  }

  /** Redact the given values verbatim (e.g. the profile's own keys), then this mask's. */
  redactValues(text: string, secrets: Iterable<string>): string {
    return this.redact(givenValues(String(text), secrets))
  }

  /**
   * The host is closing: its secrets leave the process's last resort (lines that belong to no host). The mask
   * itself keeps them, for whatever its host still writes on the way out.
   */
  close(): void {
    if (live.delete(this)) union = null
  }

  /** The live masks' values together, longest first (the last resort's). */
  static unionOfLive(): readonly string[] {
    if (union === null) {
      const all = new Set<string>()
      for (const m of live) for (const v of m.#known) all.add(v)
      union = [...all].sort((a, b) => b.length - a.length)
    }
    return union
  }
}

/** `text` with each of `secrets` (in the order given; four characters or more) as `***`. */
const givenValues = (text: string, secrets: Iterable<string>): string =>
  maskValues(
    [...secrets].filter((s) => s && s.length >= 4),
    text
  )

/*
 * The process's last resort: for lines that belong to no host — the uncaught-error handlers `installLastResort`
 * puts on the process, stderr every host shares (the CLI's and the Electron entry's fatal messages), and code that
 * is handed no host's mask (a provider SDK's error text before the turn masks it again with its host's; a logger, bus,
 * dispatcher, memory or process registry built without one, as tests build them) — every live host's secrets (their
 * masks' union) and the credential shapes.
 */

/** Only the live hosts' known secret values (each `***`), none of the shape patterns. */
function maskKnownValues(text: string): string {
  return maskValues(SecretMask.unionOfLive(), text)
}

export function redact(text: string): string {
  return withPatterns(maskKnownValues(String(text)))
}

/** Redact every string inside a JSON-like value (events, notices); returns the same object when nothing changed. */
export function redactDeep<T>(value: T): T {
  return deepWith(value, redact, 0)
}

function deepWith<T>(value: T, fn: (s: string) => string, depth: number): T {
  if (typeof value === 'string') return fn(value) as T
  if (depth > 12 || value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) {
    let changed = false
    const out = value.map((v) => {
      const r = deepWith(v, fn, depth + 1)
      if (r !== v) changed = true
      return r
    })
    return (changed ? out : value) as T
  }
  let copy: Record<string, unknown> | null = null
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const r = deepWith(v, fn, depth + 1)
    if (r !== v) (copy ??= { ...(value as Record<string, unknown>) })[k] = r
  }
  return (copy ?? value) as T
}

/** Redact known secret values verbatim (e.g. the profile's own keys), then the generic patterns. */
export function redactValues(text: string, secrets: Iterable<string>): string {
  return redact(givenValues(String(text), secrets))
}
