/**
 * What the built-in store may hold and how it reports it: the char limits from config.yaml
 * (`memory.memory_char_limit` / `memory.user_char_limit`), the usage line, and the threat scan a memory
 * write and the prompt snapshot go through. Sizes are code points (Python's `len`), as upstream counts them,
 * so a file is full at the same point under both programs.
 */
import { pyIntValue, pyLen } from '@shared/contract/py-text'
import { readSection } from '../config'
import { scanForThreats } from '@shared/contract/threat-scan'

export const ENTRY_DELIMITER = '\n§\n'

export interface MemoryLimits {
  memory: number
  user: number
}
export const DEFAULT_MEMORY_LIMITS: MemoryLimits = { memory: 2_200, user: 1_375 }

/** The entries' joined size in code points. */
export const entriesSize = (entries: readonly string[]) =>
  entries.length === 0 ? 0 : pyLen(entries.join(ENTRY_DELIMITER))

/**
 * The limits upstream's on-disk store uses for this config (`int()` of each value, defaults when absent). As
 * upstream, the first value `int()` refuses ends the reading: a bad memory limit leaves both at their defaults.
 */
export function memoryLimitsOf(config: Record<string, unknown> | null | undefined): MemoryLimits {
  const mem = readSection(config, 'memory')
  const out = { ...DEFAULT_MEMORY_LIMITS }
  for (const [target, key] of [
    ['memory', 'memory_char_limit'],
    ['user', 'user_char_limit']
  ] as const) {
    const raw = mem[key]
    if (raw === undefined) continue
    const n = pyIntValue(raw)
    if (n === null) break
    out[target] = n
  }
  return out
}

const grouped = (n: number) => n.toLocaleString('en-US')

/** How full one file is: its entries' joined size, its limit, and the floored percent (capped at 100). */
export interface MemoryUsage {
  used: number
  limit: number
  percent: number
}

/**
 * The one count both the limit checks and every usage figure (the tool's answers, the prompt header, the Memory
 * page) come from, so none of them can disagree. The percent is upstream's `int(used / limit * 100)` in the same
 * float arithmetic (29/100 is 28%, not 29%); a limit of 0 or less reads 0%.
 */
export function usageFigures(entries: readonly string[], limit: number): MemoryUsage {
  const used = entriesSize(entries)
  const percent = limit > 0 ? Math.min(100, Math.floor((used / limit) * 100)) : 0
  return { used, limit, percent }
}

/** `12% — 264/2,200 chars` (or just `264/2,200` without the percent). */
export function usageOf(entries: readonly string[], limit: number, withPercent = true): string {
  const { used, percent } = usageFigures(entries, limit)
  if (!withPercent) return `${grouped(used)}/${grouped(limit)}`
  return `${percent}% — ${grouped(used)}/${grouped(limit)} chars`
}

/** The refusal for a memory write whose text looks like an injection, or null when it is clean. */
export function blockedMessage(text: string): string | null {
  const first = scanForThreats(text, 'strict')[0]
  if (!first) return null
  if (first.startsWith('invisible_unicode_'))
    return `Blocked: content contains invisible unicode character ${first.slice('invisible_unicode_'.length)} (possible injection).`
  return `Blocked: content matches threat pattern '${first}'. Content is injected into the system prompt and must not contain injection or exfiltration payloads.`
}

/**
 * The entries as the prompt snapshot carries them: one that looks like an injection (written by hand, by
 * another program, or before scanning existed) is replaced by a notice naming what matched, so it never reaches
 * the model; the file keeps it for the user to see and remove.
 */
export function promptEntries(entries: readonly string[], fileName: string): string[] {
  // Every entry is scanned, a `[BLOCKED:`-looking one too: the notice itself holds no threat wording, so only text
  // written to pass as a notice is caught by skipping none.
  return entries.map((entry) => {
    if (!entry) return entry
    const findings = scanForThreats(entry, 'strict')
    if (findings.length === 0) return entry
    return `[BLOCKED: ${fileName} entry contained threat pattern(s): ${findings.join(', ')}. Removed from system prompt; use memory(action=remove) to delete the original.]`
  })
}

/**
 * `memory.nudge_interval` as upstream reads it: `int()` of the value, 10 when absent; 0 or less turns the review off.
 * A value `int()` refuses (`abc`, `2.5` as text) leaves upstream with no built-in memory at all, so never a review:
 * 0 here (Caduceus keeps the store; see the golden memory-nudge).
 */
export function nudgeIntervalOf(v: unknown): number {
  if (v === undefined) return 10
  const n = pyIntValue(v)
  return n === null || n < 0 ? 0 : n
}
