/**
 * What a caught value says, typed once for every layer: `catch (err)` gives `unknown`, and casting it to `Error`
 * to read `.message` yields `undefined` for a thrown string or a plain object.
 */

/** The message of anything thrown: an Error's (or an error-like object's) message, otherwise its string form. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message
  const m: unknown = err && typeof err === 'object' ? (err as { message?: unknown }).message : undefined
  return typeof m === 'string' ? m : String(err)
}

/** The `code` of a Node system error (`ENOENT`, `EACCES`, …), or undefined for anything else thrown. */
export function errorCode(err: unknown): string | undefined {
  const c: unknown = err && typeof err === 'object' ? (err as { code?: unknown }).code : undefined
  return typeof c === 'string' ? c : undefined
}

/**
 * True when a file system call failed only because the path is not there: `ENOENT`, or `ENOTDIR` (a file where a
 * folder of the path should be). Anything else (`EACCES`, `EISDIR`, `EIO`) is a real failure the caller must not
 * read as "absent".
 */
export function isNotFound(err: unknown): boolean {
  const c = errorCode(err)
  return c === 'ENOENT' || c === 'ENOTDIR'
}

/**
 * `JSON.parse(text)`, or `fallback` when the text is not JSON: only the parse failure (SyntaxError) is swallowed, so a
 * caller that expects malformed text says so by calling this, and anything else thrown (a RangeError) still throws.
 */
export function parseJsonOr<T>(text: string, fallback: T): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch (err) {
    if (err instanceof SyntaxError) return fallback
    throw err
  }
}

/** `new URL(text)`, or null when the text is not a URL: only the TypeError `new URL` throws for one is swallowed. */
export function parseUrl(text: string): URL | null {
  try {
    return new URL(text)
  } catch (err) {
    if (err instanceof TypeError) return null
    throw err
  }
}
