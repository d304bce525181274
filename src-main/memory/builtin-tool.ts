/**
 * The built-in `memory` tool (upstream-shaped): add / replace / remove entries in MEMORY.md (the
 * agent's notes) or USER.md (what it knows about the user). Replace and remove find the entry by a
 * unique substring (`old_text`), as upstream does, because the model never sees entry indices.
 */
import { CaduceusError } from '@shared/contract'
import { normalizeEntry, readEntries, writeEntries, type MemoryTarget } from './builtin-store'
import { errorMessage } from '@shared/contract/errors'

export const MEMORY_TOOL_NAME = 'memory'
export interface MemoryLimits {
  memory: number
  user: number
}
export const DEFAULT_MEMORY_LIMITS: MemoryLimits = { memory: 2_200, user: 1_375 }

export const MEMORY_TOOL_SCHEMA = {
  name: MEMORY_TOOL_NAME,
  description:
    'Save durable information to persistent memory that survives across sessions. Use target "memory" for your own ' +
    'notes (environment facts, conventions, lessons learned) and "user" for facts about the user (preferences, ' +
    'role, habits). Keep entries short and specific. Actions: add (new entry), replace (find the entry containing ' +
    'old_text and replace it with content), remove (delete the entry containing old_text). Memory is injected into ' +
    'the system prompt of future sessions.',
  parameters: {
    type: 'object',
    properties: {
      action: { type: 'string', enum: ['add', 'replace', 'remove'], description: 'What to do.' },
      target: {
        type: 'string',
        enum: ['memory', 'user'],
        description: "Which store: 'memory' (your notes) or 'user' (user profile)."
      },
      content: { type: 'string', description: 'Entry text. Required for add and replace.' },
      old_text: {
        type: 'string',
        description: 'A unique substring of the existing entry. Required for replace and remove.'
      }
    },
    required: ['action', 'target']
  }
}

const size = (entries: string[]) => entries.reduce((n, e, i) => n + e.length + (i ? 3 : 0), 0)

export function usage(entries: string[], limit: number): string {
  const used = size(entries)
  return `${Math.min(100, Math.round((used / limit) * 100))}% — ${used.toLocaleString('en-US')}/${limit.toLocaleString('en-US')} chars`
}

const fail = (error: string) => JSON.stringify({ success: false, error })

/** Runs one memory tool call against `home`'s store. Returns the JSON result string; never throws. */
export function runMemoryTool(
  home: string,
  args: Record<string, unknown>,
  limits: MemoryLimits = DEFAULT_MEMORY_LIMITS
): string {
  const { action, old_text: oldText } = args
  const target = args.target ?? 'memory'
  if (target !== 'memory' && target !== 'user') return fail("target must be 'memory' or 'user'")
  if (action !== 'add' && action !== 'replace' && action !== 'remove')
    return fail("action must be 'add', 'replace' or 'remove'")
  const limit = limits[target]
  try {
    const entries = readEntries(home, target)
    if (action === 'add') {
      const text = normalizeEntry(String(args.content ?? ''))
      if (entries.includes(text)) return done(target, entries, limit, 'Entry already exists; nothing added.')
      const next = [...entries, text]
      if (size(next) > limit) {
        return fail(
          `${target === 'user' ? 'User profile' : 'Memory'} at ${size(entries)}/${limit} chars. Adding this entry (${text.length} chars) would exceed the limit. Replace or remove existing entries first.`
        )
      }
      writeEntries(home, target, next)
      return done(target, next, limit, 'Entry added.')
    }
    if (typeof oldText !== 'string' || !oldText.trim()) return fail(`old_text is required for ${action}`)
    const matches = entries.map((e, i) => (e.includes(oldText.trim()) ? i : -1)).filter((i) => i >= 0)
    if (matches.length === 0) return fail(`No ${target} entry contains the given old_text.`)
    if (matches.length > 1) return fail(`old_text matches ${matches.length} entries; give a longer, unique substring.`)
    const next = [...entries]
    if (action === 'remove') {
      next.splice(matches[0]!, 1)
      writeEntries(home, target, next)
      return done(target, next, limit, 'Entry removed.')
    }
    next[matches[0]!] = normalizeEntry(String(args.content ?? ''))
    if (size(next) > limit)
      return fail(`Replacing would put ${target} at ${size(next)}/${limit} chars, over the limit. Shorten the entry.`)
    writeEntries(home, target, next)
    return done(target, next, limit, 'Entry replaced.')
  } catch (err) {
    return fail(err instanceof CaduceusError ? err.message : `memory store error: ${errorMessage(err)}`)
  }
}

function done(target: MemoryTarget, entries: string[], limit: number, message: string): string {
  return JSON.stringify({
    success: true,
    target,
    message,
    entries,
    entry_count: entries.length,
    usage: usage(entries, limit)
  })
}
