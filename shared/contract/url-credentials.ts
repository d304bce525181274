/**
 * Credentials in a URL's userinfo (`https://user:pass@host/v1`). A base URL may carry them (a proxy behind basic
 * auth), but they are a secret: remembered for redaction, and shown masked wherever the URL leaves the main process.
 */
// Scheme, then the authority's userinfo: everything up to its last `@` before the path, query or fragment.
const USERINFO = /^(\s*[A-Za-z][A-Za-z0-9+.-]{0,30}:\/\/)([^/?#\s]*)@/

// A userinfo without a password this long is a token (`https://<token>@host`), not a user name.
const BARE_TOKEN = 8

/** The URL with its userinfo's password (or a bare token) shown as `***`; a user name stays readable. */
export function maskUrlCredentials(url: string): string {
  return url.replace(USERINFO, (m, scheme: string, info: string) => {
    const colon = info.indexOf(':')
    if (colon >= 0) return `${scheme}${info.slice(0, colon)}:***@`
    return info.length >= BARE_TOKEN ? `${scheme}***@` : m
  })
}

/** The password (or bare token) a URL's userinfo carries, as written and percent-decoded; none without one. */
export function urlCredentialValues(url: string): string[] {
  const info = USERINFO.exec(url)?.[2]
  if (!info) return []
  const colon = info.indexOf(':')
  const raw = colon >= 0 ? info.slice(colon + 1) : info.length >= BARE_TOKEN ? info : ''
  let decoded = raw
  try {
    decoded = decodeURIComponent(raw)
  } catch {
    // not valid percent-encoding: the raw text is the value
  }
  return [...new Set([raw, decoded].filter((v) => v && v !== '***'))]
}
