/**
 * Redaction of anything that looks like a credential before memory content leaves the process
 * (prefetch queries, synced turns) or lands in the activity log.
 */
const PATTERNS: Array<[RegExp, string]> = [
  [/\b(sk|pk|rk)-[A-Za-z0-9_-]{8,}/g, '$1-***'],
  [/\b(ghp|gho|ghs|github_pat)_[A-Za-z0-9_]{8,}/g, '$1_***'],
  [/\bxox[abposr]-[A-Za-z0-9-]{8,}/g, 'xox*-***'],
  [/\bAKIA[0-9A-Z]{12,}/g, 'AKIA***'],
  [/\b(Bearer)\s+[A-Za-z0-9._~+/-]{8,}=*/gi, '$1 ***'],
  [/\b([A-Z][A-Z0-9_]*(?:API_KEY|TOKEN|SECRET|PASSWORD))\s*=\s*\S+/g, '$1=***']
]

export function redactSecrets(text: string): string {
  let out = text
  for (const [re, replacement] of PATTERNS) out = out.replace(re, replacement)
  return out
}
