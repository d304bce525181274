import { readFileSync, statSync, type BigIntStats, type Stats } from 'node:fs'
import { isNotFound } from '@shared/contract/errors'

/**
 * A file's text, or null when it is not there (ENOENT/ENOTDIR). Any other failure throws: a folder where the file
 * should be (EISDIR) or a file the process may not read (EACCES) is not an absent file, and reading it as one would
 * hide the problem behind defaults.
 */
export function readFileIfExists(path: string): string | null {
  try {
    return readFileSync(path, 'utf8')
  } catch (err) {
    if (isNotFound(err)) return null
    throw err
  }
}

/** A path's stat, or null when it is not there (ENOENT/ENOTDIR); any other failure throws. */
export function statIfExists(path: string): Stats | null
export function statIfExists(path: string, opts: { bigint: true }): BigIntStats | null
export function statIfExists(path: string, opts?: { bigint: true }): Stats | BigIntStats | null {
  try {
    return opts ? statSync(path, opts) : statSync(path)
  } catch (err) {
    if (isNotFound(err)) return null
    throw err
  }
}
