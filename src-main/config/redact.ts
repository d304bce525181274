/**
 * Mask anything that looks like a credential before it reaches a log line. Loggers call this on every
 * message; callers should still never pass a key in the first place.
 */
const PATTERNS: Array<[RegExp, (m: string, ...g: string[]) => string]> = [
  // Provider-style keys: sk-…, sk-ant-…, sk-or-v1-…, pk-/rk- variants.
  [/\b((?:sk|pk|rk)-)[A-Za-z0-9_-]{8,}/g, (_m, p) => `${p}***`],
  // GitHub, Slack and AWS access keys.
  [/\b((?:ghp|gho|ghs|github_pat)_)[A-Za-z0-9_]{8,}/g, (_m, p) => `${p}***`],
  [/\bxox[abposr]-[A-Za-z0-9-]{8,}/g, () => 'xox*-***'],
  [/\bAKIA[0-9A-Z]{12,}/g, () => 'AKIA***'],
  [/\b(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi, (_m, p) => `${p}***`],
  // NAME=value / "name": "value" for names that say they are secret.
  [/\b([A-Z0-9_]*(?:API_KEY|TOKEN|SECRET|PASSWORD)[A-Z0-9_]*\s*[=:]\s*["']?)[^\s"']{4,}/gi, (_m, p) => `${p}***`],
  [/([?&](?:token|key|api_key)=)[^&\s]+/gi, (_m, p) => `${p}***`],
  // JWT-shaped tokens (three base64url segments).
  [/\beyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}\b/g, () => 'eyJ***']
]

export function redact(text: string): string {
  let out = String(text)
  for (const [re, fn] of PATTERNS) out = out.replace(re, fn as (m: string) => string)
  return out
}

/** Redact known secret values verbatim (e.g. the profile's own keys), then the generic patterns. */
export function redactValues(text: string, secrets: Iterable<string>): string {
  let out = String(text)
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join('***')
  return redact(out)
}
