/**
 * Control characters in text others wrote (a command's output, a file a tool read, a model's reply) made visible
 * for a page: a C0 code becomes its Unicode control picture (NUL as ␀, ESC as ␛), DEL ␡, a C1 code U+FFFD. A
 * browser draws these codes as an empty box or nothing at all, so `nul:\0:end` read as `nul::end` and a colour
 * sequence as a box then `[32m`. Tab, newline and carriage return stay: they lay text out. `caduceus sessions
 * show` prints the same pictures (host/cli/format.ts, which also takes the carriage return for a terminal).
 */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g

const picture = (c: string) => {
  const code = c.charCodeAt(0)
  return code < 0x20 ? String.fromCharCode(0x2400 + code) : code === 0x7f ? '\u2421' : '\ufffd'
}

export function showControls(text: string): string {
  return text.replace(CONTROL, picture)
}

/** A parsed JSON value with every string in it (keys too) passed through showControls; the same value when none. */
export function showControlsDeep(v: unknown): unknown {
  if (typeof v === 'string') return showControls(v)
  if (Array.isArray(v)) return v.map(showControlsDeep)
  if (v && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [showControls(k), showControlsDeep(x)]))
  return v
}
