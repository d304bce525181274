/** The Memory page's view of one built-in file: its entries, how full it is, and what waits for approval. */
import { memoryFileProblem, memoryUsage, readEntries, type MemoryTarget } from './builtin-store'
import { pendingMemoryWrites } from './write-approval'

export function memoryEntriesView(home: string, target: MemoryTarget) {
  const readOnly = memoryFileProblem(home, target)
  const entries = readEntries(home, target)
  // counted as the memory tool counts it against its limit, so the page and the tool never disagree
  const usage = memoryUsage(home, target, entries)
  const pending = pendingMemoryWrites(home)
  return { target, entries, usage, ...(readOnly ? { readOnly } : {}), ...(pending ? { pending } : {}) }
}
