/**
 * The user's price overrides, kept in Caduceus settings (`<root>/caduceus/prices.json`), never in upstream's
 * cost columns. Applied at read time to usage upstream recorded as unpriced.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { PriceOverrides, type PriceOverride, type Tokens } from '@shared/contract'
import { replaceFile } from '../files'

const fileOf = (root: string) => join(root, 'caduceus', 'prices.json')

export function readPriceOverrides(root: string): PriceOverride[] {
  // Read on every sessions.list: most homes have no file, and a thrown ENOENT costs more than the check.
  if (!existsSync(fileOf(root))) return []
  try {
    const parsed = PriceOverrides.safeParse(JSON.parse(readFileSync(fileOf(root), 'utf8')))
    return parsed.success ? parsed.data.overrides : []
  } catch {
    // Gone since the check, or unreadable or malformed: no overrides. Read on every sessions.list, so a bad file
    // must not fail the list; Settings → Prices shows none, and saving there writes the file whole again.
    return []
  }
}

export async function writePriceOverrides(root: string, overrides: PriceOverride[]): Promise<PriceOverride[]> {
  const clean = PriceOverrides.parse({ overrides }).overrides
  mkdirSync(join(root, 'caduceus'), { recursive: true })
  // Whole or not at all, 0600 as it always was written (a symlink is replaced by the file, as before).
  replaceFile(fileOf(root), JSON.stringify({ overrides: clean }, null, 2), { modeOf: () => 0o600 })
  return clean
}

/** The override for a usage row: an endpoint-specific one wins over a model-wide one. */
export function overrideFor(overrides: PriceOverride[], model: string, baseUrl: string): PriceOverride | null {
  // Trailing slashes from the first of their run only (`/\/+$/` rescanned a run from each slash: an imported session's
  // base URL has no length check).
  const norm = (u: string) => u.replace(/(?<!\/)\/+$/, '').toLowerCase()
  return (
    overrides.find((o) => o.model === model && o.baseUrl && norm(o.baseUrl) === norm(baseUrl)) ??
    overrides.find((o) => o.model === model && !o.baseUrl) ??
    null
  )
}

/** Cache writes are priced as input (the tokens were sent, then stored): never a silent $0 for them. */
export function priceTokens(o: PriceOverride, t: Tokens): number {
  const input = t.input + t.cacheWrite
  return (input * o.inputPerMTok + t.output * o.outputPerMTok + t.cacheRead * o.cacheReadPerMTok) / 1_000_000
}
