/**
 * Which `Host` headers and WebSocket `Origin`s the headless host answers (DNS rebinding, cross-site WebSocket).
 *
 * A loopback name (`localhost`, `127.0.0.1`, `[::1]`) is accepted with any port: it never comes from DNS, so it cannot
 * be a rebinding attacker's name, and an SSH tunnel (`ssh -L 9000:127.0.0.1:8765`) or another local forwarder shows the
 * browser's own port, not ours. Any other name only when the user allowed it (`serve --allow-host NAME`, a reverse
 * proxy's name), with any port. The bearer token is required on every API path either way.
 */

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]'])
// A DNS name or an IPv4 literal, or a bracketed IPv6 literal; then an optional port.
const NAME = /^(\[[0-9a-f:.]+\]|[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*)$/
const AUTHORITY = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/

/** The host name of a `Host` header's value (`name[:port]`), lowercase; null when it is not one. */
function nameOf(authority: string): string | null {
  const m = AUTHORITY.exec(authority.toLowerCase())
  return m ? m[1]! : null
}

/**
 * The names `--allow-host` and `CADUCEUS_ALLOW_HOSTS` (comma- or space-separated) give, checked and lowercased.
 * Throws a one-line error for anything that is not a bare host name: a scheme, a path, a port, a wildcard.
 */
export function parseAllowedHosts(values: readonly string[]): string[] {
  const out: string[] = []
  for (const value of values)
    for (const raw of value.split(/[\s,]+/).filter(Boolean)) {
      const name = raw.toLowerCase()
      if (!NAME.test(name)) {
        const hint = /^[a-z]+:\/\//.test(name)
          ? ' (give the name without http:// or https://)'
          : /:\d+$/.test(name)
            ? ' (give the name without a port: any port of it is accepted)'
            : ''
        throw new Error(`--allow-host: '${raw}' is not a host name${hint}`)
      }
      if (!out.includes(name)) out.push(name)
    }
  return out
}

/** Whether a request's `Host` header names this host: a loopback name, or one the user allowed; any port. */
export function hostAllowed(host: string | undefined, allowed: readonly string[]): boolean {
  const name = nameOf(host ?? '')
  return name !== null && (LOOPBACK.has(name) || allowed.includes(name))
}

/**
 * Whether a WebSocket handshake's `Origin` may connect: none (a script, not a browser page), or an http(s) page on a
 * loopback name or an allowed one, any port. `null` (a sandboxed frame, a file) and other sites are refused.
 */
export function originAllowed(origin: string | undefined, allowed: readonly string[]): boolean {
  if (origin === undefined) return true
  const m = /^https?:\/\/(.+)$/.exec(origin.toLowerCase())
  return m !== null && hostAllowed(m[1], allowed)
}
