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
