/**
 * A base URL that carries credentials (`http://user:pass@proxy/v1`, a gateway behind basic auth). Fetch refuses a
 * URL with userinfo, so the SDKs get the URL without it, and the userinfo travels as `Authorization: Basic …` in
 * place of the key's header, as upstream's HTTP client sends it. The configured URL itself (password included) is
 * still what the runtime keeps: it is the route usage is billed and grouped under.
 */

// Scheme, then the authority's userinfo: everything up to its last `@` before the path, query or fragment.
const USERINFO = /^(\s*[A-Za-z][A-Za-z0-9+.-]{0,30}:\/\/)([^/?#\s]*)@/

/** Percent-decoding that leaves a malformed escape as written (a password may hold a bare `%`). */
function decode(part: string): string {
  return part.replace(/(%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run)
    } catch {
      return run // URIError: not UTF-8, kept as written (above)
    }
  })
}

/** The URL to request (userinfo removed) and the headers its userinfo stands for (none without userinfo). */
export function splitUrlCredentials(baseUrl: string): { url: string; headers: Record<string, string> } {
  const m = USERINFO.exec(baseUrl)
  if (!m) return { url: baseUrl, headers: {} }
  const info = m[2]!
  const colon = info.indexOf(':')
  const user = decode(colon >= 0 ? info.slice(0, colon) : info)
  const pass = colon >= 0 ? decode(info.slice(colon + 1)) : ''
  const url = m[1]! + baseUrl.slice(m[0].length)
  if (!user && !pass) return { url, headers: {} }
  const token = Buffer.from(`${user}:${pass}`, 'utf8').toString('base64')
  return { url, headers: { Authorization: `Basic ${token}` } }
}
