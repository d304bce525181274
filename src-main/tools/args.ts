/** Argument checks for the terminal tools: clear errors for the model, never a crash. */
import { statSync } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'
import { errorMessage, isNotFound } from '@shared/contract/errors'

export const DEFAULT_TIMEOUT_SECONDS = 60
export const MAX_TIMEOUT_SECONDS = 600
const MAX_COMMAND_CHARS = 16_000

export class ToolArgError extends Error {}

export function commandArg(v: unknown): string {
  if (typeof v !== 'string' || !v.trim()) throw new ToolArgError('command must be a non-empty string')
  if (v.length > MAX_COMMAND_CHARS) throw new ToolArgError(`command is longer than ${MAX_COMMAND_CHARS} characters`)
  if (v.includes('\0')) throw new ToolArgError('command must not contain NUL characters')
  return v
}

export function boolArg(v: unknown, name: string): boolean {
  if (v === undefined || v === null) return false
  if (typeof v !== 'boolean') throw new ToolArgError(`${name} must be true or false`)
  return v
}

/** Foreground timeout in ms: default 60 s, clamped to [1, 600] s. */
export function timeoutArg(v: unknown): number {
  if (v === undefined || v === null) return DEFAULT_TIMEOUT_SECONDS * 1000
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new ToolArgError('timeout must be a number of seconds')
  return Math.round(Math.min(MAX_TIMEOUT_SECONDS, Math.max(1, v)) * 1000)
}

/** A relative `cwd` resolves against the default; it must name an existing directory. */
export function cwdArg(v: unknown, base: string): string {
  if (v === undefined || v === null || v === '') return base
  if (typeof v !== 'string' || v.includes('\0')) throw new ToolArgError('cwd must be a directory path')
  const dir = isAbsolute(v) ? v : resolve(base, v)
  let ok = false
  try {
    ok = statSync(dir).isDirectory()
  } catch (err) {
    // Only "not there" reads as not existing: a folder the process may not enter says so.
    if (!isNotFound(err)) throw new ToolArgError(`cwd cannot be used: ${v} (${errorMessage(err)})`)
  }
  if (!ok) throw new ToolArgError(`cwd is not an existing directory: ${v}`)
  return dir
}
