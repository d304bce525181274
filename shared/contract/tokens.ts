/**
 * Token counts (the contract's `Tokens`, declared once in common.ts) and the two operations every layer needs on
 * them: an empty count to add into, and adding one count (or a share of it) into another.
 */
import type { Tokens } from './common'

/** A fresh zero count (callers add into it). */
export const ZERO_TOKENS = (): Tokens => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 })

/** Adds `t` into `into`, each kind scaled by `share` and rounded (a day's share of a piece's tokens). */
export const addTokens = (into: Tokens, t: Tokens, share = 1): void => {
  for (const k of Object.keys(into) as Array<keyof Tokens>) into[k] += Math.round(t[k] * share)
}
