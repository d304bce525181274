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
const TAKEOVER = [
  /ignore\s+(?:\w+\s+)*(?:previous|all|above|prior)\s+(?:\w+\s+)*instructions/i,
  /do\s+not\s+tell\s+the\s+user/i,
  /system\s+prompt\s+override/i,
  /disregard\s+(?:your|all|any)\s+(?:instructions|rules|guidelines)/i
]
const SECRET_VAR = String.raw`\$\{?\w*(?:KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|API)\w*\}?`
const COMMANDS = [
  /cat\s+[^\n]*(?:\.env|credentials|\.netrc|\.pgpass)/i,
  /authorized_keys/i,
  /\/etc\/sudoers|visudo/i,
  /rm\s+-rf\s+\//i,
  new RegExp(String.raw`(?:curl|wget)\s+[^\n]*https?://[^\s"'\`]*${SECRET_VAR}`, 'i'),
  new RegExp(String.raw`curl\s+[^\n]*(?:--data(?:-raw|-binary|-urlencode)?|-d|--form|-F)\s+[^\n]*${SECRET_VAR}`, 'i'),
  new RegExp(String.raw`wget\s+[^\n]*--post-(?:data|file)=[^\n]*${SECRET_VAR}`, 'i'),
  new RegExp(String.raw`curl\s+[^\n]*(?:-H|--header)\s+["']Authorization:\s*(?:Bearer|token)\s+${SECRET_VAR}["']`, 'i')
]
/** A token header sent to GitHub's own API: allowed (GitHub skills fetch so). */
const GITHUB_TOKEN_CALL = new RegExp(
  String.raw`curl\s+[^\n]*(?:-H|--header)\s+["']Authorization:\s*token\s+${SECRET_VAR}["']\s+["']?https://api\.github\.com(?:/|\b)`,
  'i'
)
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
  const text = prompt.replace(GITHUB_TOKEN_CALL, 'curl https://api.github.com/user')
  const invisible = withoutInvisible(text).removed
  if (invisible.length) return refused(`the text holds an invisible character (${invisible[0]})`)
  if ([...TAKEOVER, ...COMMANDS].some((re) => re.test(text))) return refused(`the text matches a blocked pattern`)
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
  const scanned = clean.replace(GITHUB_TOKEN_CALL, 'curl https://api.github.com/user')
  if (TAKEOVER.some((re) => re.test(scanned))) return { refusal: refused('the text matches a blocked pattern') }
  if (!opts.skills && opts.ownPrompt) {
    const why = promptRefusal(opts.ownPrompt)
    if (why) return { refusal: why }
  }
  return { text: clean }
}
