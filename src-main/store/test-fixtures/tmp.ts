/** Temp dirs for tests: real files, removed after the test file. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const made: string[] = []

export function tempDir(prefix = 'cad-store-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix))
  made.push(d)
  return d
}

export function cleanupTempDirs(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true })
}
