/**
 * The check upstream makes before a cron job's agent turn (and before it saves a job's prompt): an unattended run
 * must not carry text that tries to take the agent over or leak secrets. Rules, our own, matching what upstream
 * refuses (golden: test/fixtures/upstream/cron-prompts, `guard`):
 * - takeover wording anywhere in the text the agent gets: telling it to ignore earlier / all / above instructions, to
 *   keep something from the user, to override the system prompt, to disregard its rules;
 * - in a job's own prompt only (skills and collected data may quote such commands in earnest): reading a secrets
 *   file with `cat`, SSH `authorized_keys`, sudoers, `rm -rf /…`, sending a `$…KEY`/`TOKEN`/`SECRET`-like variable
 *   with curl or wget (in the URL, as form data or as an Authorization header; GitHub's own API with a token header
 *   is the one exception), and invisible characters (zero-width, direction overrides) outside emoji sequences;
 * - in loaded skills or collected data, invisible characters are removed instead of refused.
 */
/**
 * Each rule is read in one pass over the text (a job's prompt or a script's output can be long, and this runs on the
 * host's main thread): upstream's own patterns, run by a backtracking regex engine, take minutes on some long inputs.
 */
const TAKEOVER = [
  /do\s+not\s+tell\s+the\s+user/i,
  /system\s+prompt\s+override/i,
  /disregard\s+(?:your|all|any)\s+(?:instructions|rules|guidelines)/i
]
const SIMPLE_COMMANDS = [/authorized_keys/i, /\/etc\/sudoers|visudo/i, /rm\s+-rf\s+\//i]
const QUALIFIERS = new Set(['previous', 'all', 'above', 'prior'])
const SECRET_WORD = /KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|API/i

/**
 * "ignore … previous / all / above / prior … instructions": words (as Python's `\w` reads them) one after another with
 * only whitespace between, the first ending in `ignore`, a qualifier word later, then a word starting `instructions`.
 */
function ignoresInstructions(text: string): boolean {
  const words = /[\p{L}\p{N}_]+/gu
  let state = 0 // 1: after an `…ignore` word, 2: after a qualifier too
  let prevEnd = -1
  for (let m; (m = words.exec(text));) {
    const end = m.index + m[0].length
    if (prevEnd < 0 || !/^\s+$/u.test(text.slice(prevEnd, m.index))) state = 0
    const word = m[0].toLowerCase()
    const spaceAfter = /\s/u.test(text[end] ?? '')
    if (state === 2 && word.startsWith('instructions')) return true
    if (state >= 1 && spaceAfter && QUALIFIERS.has(word)) state = 2
    if (state === 0 && spaceAfter && word.endsWith('ignore')) state = 1
    prevEnd = end
  }
  return false
}

/** Whether a `$NAME` / `${NAME}` in `text` has a secret-like word in its name. */
function secretVarIn(text: string): boolean {
  const vars = /\$\{?(\w*)/g
  for (let m; (m = vars.exec(text));) if (SECRET_WORD.test(m[1]!)) return true
  return false
}

const lineEndFrom = (text: string, at: number) => {
  const i = text.indexOf('\n', at)
  return i < 0 ? text.length : i
}

/**
 * For each match of `anchor` (global; it ends in whitespace that may run over line ends), the rest of the line where
 * it ends: all that an "anything but a newline" after it can reach. Each line once: an earlier anchor's rest of a
 * line holds a later one's.
 */
function* restsAfter(text: string, anchor: RegExp, from = 0, before = text.length) {
  anchor.lastIndex = from
  let lastEnd = -1
  for (let m; (m = anchor.exec(text)) && m.index < before;) {
    const start = m.index + m[0].length
    const end = lineEndFrom(text, start)
    if (end !== lastEnd) yield { at: m.index, start, end }
    lastEnd = end
  }
}

/** The matches of `re` (global) that start in [from, before). */
function* matchesIn(text: string, re: RegExp, from: number, before: number) {
  re.lastIndex = from
  for (let m; (m = re.exec(text)) && m.index < before;) {
    yield m
    re.lastIndex = m.index + 1
  }
}

const GITHUB_HEADER =
  /(?:-H|--header)\s+["']Authorization:\s*token\s+\$\{?(\w*)\}?["']\s+["']?https:\/\/api\.github\.com(?:\/|\b)/gi
const AUTH_HEADER = /(?:-H|--header)\s+["']Authorization:\s*(?:Bearer|token)\s+\$\{?(\w*)\}?["']/gi
const DATA_FLAG = /(?:--data(?:-raw|-binary|-urlencode)?|-d|--form|-F)\s+/gi

/** The one exception: a curl sending a token header to GitHub's own API is read as a plain call to it. */
function withoutGithubTokenCall(text: string): string {
  for (const { at, start, end } of restsAfter(text, /curl\s+/gi)) {
    let last = -1
    for (const m of matchesIn(text, GITHUB_HEADER, start, end))
      if (SECRET_WORD.test(m[1]!)) last = m.index + m[0].length
    if (last >= 0) return text.split(text.slice(at, last)).join('curl https://api.github.com/user')
  }
  return text
}

/** Reading a secrets file, SSH keys, sudoers, `rm -rf /…`, or curl / wget sending a secret-named variable. */
function commandRule(text: string): boolean {
  if (SIMPLE_COMMANDS.some((re) => re.test(text))) return true
  for (const { start, end } of restsAfter(text, /cat\s+/gi))
    if (/\.env|credentials|\.netrc|\.pgpass/i.test(text.slice(start, end))) return true
  for (const { start, end } of restsAfter(text, /(?:curl|wget)\s+/gi)) {
    let runEnd = -1
    for (const m of matchesIn(text, /https?:\/\//gi, start, end)) {
      const from = m.index + m[0].length
      if (from < runEnd) continue // inside the run an earlier URL's check read already
      const stop = /[\s"'`]/g
      stop.lastIndex = from
      const to = stop.exec(text)?.index ?? text.length
      if (secretVarIn(text.slice(from, to))) return true
      runEnd = to
    }
  }
  for (const { start, end } of restsAfter(text, /curl\s+/gi)) {
    for (const r of restsAfter(text, DATA_FLAG, start, end)) if (secretVarIn(text.slice(r.start, r.end))) return true
    for (const m of matchesIn(text, AUTH_HEADER, start, end)) if (SECRET_WORD.test(m[1]!)) return true
  }
  for (const { start, end } of restsAfter(text, /wget\s+/gi)) {
    const post = /--post-(?:data|file)=/gi
    post.lastIndex = start
    const m = post.exec(text)
    if (m && m.index < end && secretVarIn(text.slice(m.index + m[0].length, end))) return true
  }
  return false
}

const takeover = (text: string) => ignoresInstructions(text) || TAKEOVER.some((re) => re.test(text))
/** Zero-width characters, word joiners, invisible operators, a BOM and the bidirectional controls. */
const INVISIBLE = /^[\u200b-\u200d\u2060\u2062-\u2064\ufeff\u202a-\u202e\u2066-\u2069]$/u
const ZWJ = '\u200d'
const isEmoji = (ch: string | undefined) => {
  const cp = ch?.codePointAt(0) ?? 0
  return (
    (cp >= 0x1f000 && cp <= 0x1ffff) ||
    (cp >= 0x2600 && cp <= 0x27bf) ||
    (cp >= 0x2300 && cp <= 0x23ff) ||
    cp === 0x20e3
  )
}

/** The text without invisible characters, a joiner between two emoji (with their variation selectors) kept. */
function withoutInvisible(text: string): { text: string; removed: string[] } {
  const chars = [...text]
  const removed = new Set<string>()
  const kept = chars.filter((ch, i) => {
    if (!INVISIBLE.test(ch)) return true
    if (ch === ZWJ) {
      let l = i - 1
      while (chars[l] === '\ufe0f') l--
      let r = i + 1
      while (chars[r] === '\ufe0f') r++
      if (isEmoji(chars[l]) && isEmoji(chars[r])) return true
    }
    removed.add(`U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`)
    return false
  })
  return { text: kept.join(''), removed: [...removed] }
}

const refused = (what: string) =>
  `Refused: ${what}. A cron job runs unattended, so its text must not try to take over the agent or send secrets anywhere; reword the job's prompt (or the skill it loads).`

/** Why a job's own prompt is refused (the strict rules), or null. */
export function promptRefusal(prompt: string): string | null {
  const text = withoutGithubTokenCall(prompt)
  const invisible = withoutInvisible(text).removed
  if (invisible.length) return refused(`the text holds an invisible character (${invisible[0]})`)
  if (takeover(text) || commandRule(text)) return refused(`the text matches a blocked pattern`)
  return null
}

/**
 * The text a run may go ahead with, or why not. `loaded`: skills or collected data are part of it (only the takeover
 * rules apply to the whole, invisible characters are removed, and `ownPrompt` — the job's prompt — is held to the
 * strict rules when no skill is loaded); otherwise the whole text is held to the strict rules.
 */
export function guardRunText(
  text: string,
  opts: { skills: boolean; data: boolean; ownPrompt: string }
): { text: string } | { refusal: string } {
  if (!opts.skills && !opts.data) {
    const why = promptRefusal(text)
    return why ? { refusal: why } : { text }
  }
  const clean = withoutInvisible(text).text
  if (takeover(withoutGithubTokenCall(clean))) return { refusal: refused('the text matches a blocked pattern') }
  if (!opts.skills && opts.ownPrompt) {
    const why = promptRefusal(opts.ownPrompt)
    if (why) return { refusal: why }
  }
  return { text: clean }
}
