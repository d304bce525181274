/**
 * The built-in memory store: `<home>/memories/MEMORY.md` and `USER.md`, entries separated by `\n§\n`
 * (upstream-compatible, so the same files work with upstream Hermes). Every function takes the home
 * explicitly: nothing here consults the ambient scope, so a call can only touch the home it names.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { CaduceusError } from '@shared/contract'

const ENTRY_DELIMITER = '\n§\n'
export type MemoryTarget = 'memory' | 'user'
export const MEMORY_TARGETS: readonly MemoryTarget[] = ['memory', 'user']

function memoryFile(home: string, target: MemoryTarget): string {
  return join(home, 'memories', target === 'user' ? 'USER.md' : 'MEMORY.md')
}

function parseEntries(text: string): string[] {
  return text
    .replace(/\r\n/g, '\n')
    .split(ENTRY_DELIMITER)
    .map((e) => e.trim())
    .filter((e) => e.length > 0)
}

function serializeEntries(entries: readonly string[]): string {
  return entries.join(ENTRY_DELIMITER)
}

/** Entries of one target; a missing file is an empty store. */
export function readEntries(home: string, target: MemoryTarget): string[] {
  assertTarget(target)
  try {
    return parseEntries(readFileSync(memoryFile(home, target), 'utf8'))
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw err
  }
}

/** Write temp + rename: a reader (or upstream Hermes in another process) never sees half a file. */
export function writeEntries(home: string, target: MemoryTarget, entries: readonly string[]): void {
  assertTarget(target)
  const file = memoryFile(home, target)
  mkdirSync(join(home, 'memories'), { recursive: true })
  const tmp = `${file}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`
  try {
    writeFileSync(tmp, serializeEntries(entries), 'utf8')
    renameSync(tmp, file)
  } catch (err) {
    rmSync(tmp, { force: true })
    throw err
  }
}

/** An entry may not contain the delimiter: it would split into two entries on the next read. */
export function normalizeEntry(content: string): string {
  const text = content.replace(/\r\n/g, '\n').trim()
  if (!text) throw new CaduceusError('invalid_input', 'entry text is required', 'content')
  if (text.includes(ENTRY_DELIMITER) || text === '§')
    throw new CaduceusError('invalid_input', "entry text may not contain a line holding only '§'", 'content')
  return text
}

export type EntryEdit =
  | { op: 'add'; target: MemoryTarget; content: string }
  | { op: 'replace'; target: MemoryTarget; index: number; content: string }
  | { op: 'remove'; target: MemoryTarget; index: number }

/** UI edit by index, strictly within `home`. Returns the new list. */
export function editEntry(home: string, edit: EntryEdit): string[] {
  const entries = readEntries(home, edit.target)
  if (edit.op !== 'add' && (!Number.isInteger(edit.index) || edit.index < 0 || edit.index >= entries.length)) {
    throw new CaduceusError('not_found', `no ${edit.target} entry at index ${edit.index}`, 'index')
  }
  switch (edit.op) {
    case 'add': {
      const text = normalizeEntry(edit.content)
      if (!entries.includes(text)) entries.push(text)
      break
    }
    case 'replace':
      entries[edit.index] = normalizeEntry(edit.content)
      break
    case 'remove':
      entries.splice(edit.index, 1)
      break
    default:
      throw new CaduceusError('invalid_input', 'unknown edit op', 'op')
  }
  writeEntries(home, edit.target, entries)
  return entries
}

function assertTarget(target: string): asserts target is MemoryTarget {
  if (target !== 'memory' && target !== 'user')
    throw new CaduceusError('invalid_input', "target must be 'memory' or 'user'", 'target')
}
