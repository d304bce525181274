/**
 * The user's price overrides, kept in Caduceus settings (`<root>/caduceus/prices.json`), never in upstream's
 * cost columns. Applied at read time to usage upstream recorded as unpriced.
 */
import { mkdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { PriceOverrides, type PriceOverride, type Tokens } from '@shared/contract'
import { replaceFile } from '../files'

const fileOf = (root: string) => join(root, 'caduceus', 'prices.json')

/**
 * The file's overrides as last read, per root, with the stat they were read at: the list asks on every request (it
 * lands right after another program's commit, when nothing else it reads is cached), and a stat says whether the
 * file changed — a save replaces it (a new inode), an edit in place moves its mtime or size — so it is read and
 * parsed again only then. Frozen: every caller gets the same arrays.
 */
interface Read {
  path: string
  /** `ino size mtime ctime` when read; '' when there was no file */
  stamp: string
  overrides: readonly PriceOverride[]
}
const reads = new Map<string, Read>()
const NONE: readonly PriceOverride[] = Object.freeze([])

const stampOf = (path: string): string => {
  const st = statSync(path, { throwIfNoEntry: false })
  return st ? `${st.ino} ${st.size} ${st.mtimeMs} ${st.ctimeMs}` : ''
}

export function readPriceOverrides(root: string): readonly PriceOverride[] {
  let read = reads.get(root)
  if (!read) {
    if (reads.size >= 16) reads.clear() // roots are the host's one home (tests make many)
    reads.set(root, (read = { path: fileOf(root), stamp: '\0', overrides: NONE }))
  }
  let stamp: string
  try {
    stamp = stampOf(read.path)
  } catch {
    stamp = '' // unreadable: no overrides, as a missing file
  }
  if (stamp === read.stamp) return read.overrides
  read.stamp = stamp
  read.overrides = stamp ? parseFile(read.path) : NONE
  return read.overrides
}

function parseFile(path: string): readonly PriceOverride[] {
  try {
    const parsed = PriceOverrides.safeParse(JSON.parse(readFileSync(path, 'utf8')))
    return parsed.success ? Object.freeze(parsed.data.overrides.map((o) => Object.freeze(o))) : NONE
  } catch {
    // Gone since the stat, or unreadable or malformed: no overrides. Read for every sessions.list, so a bad file
    // must not fail the list; Settings → Prices shows none, and saving there writes the file whole again.
    return NONE
  }
}

export async function writePriceOverrides(root: string, overrides: PriceOverride[]): Promise<PriceOverride[]> {
  const clean = PriceOverrides.parse({ overrides }).overrides
  mkdirSync(join(root, 'caduceus'), { recursive: true })
  // Whole or not at all, 0600 as it always was written (a symlink is replaced by the file, as before).
  replaceFile(fileOf(root), JSON.stringify({ overrides: clean }, null, 2), { modeOf: () => 0o600 })
  reads.delete(root) // this process's own save is read again whatever the clock's grain says of its stamp
  return clean
}

/** The override for a usage row: an endpoint-specific one wins over a model-wide one. */
export function overrideFor(overrides: readonly PriceOverride[], model: string, baseUrl: string): PriceOverride | null {
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
