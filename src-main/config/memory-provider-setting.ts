/**
 * `memory.provider` in config.yaml, written in place through the yaml Document API (other keys and
 * comments survive), the same way settings are written. null removes the key (built-in memory only).
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { isMap, parseDocument } from 'yaml'
import { CaduceusError } from '@shared/contract'
import { configPath, pyYamlTags } from './load-config'

export function writeMemoryProvider(home: string, provider: string | null): void {
  const path = configPath(home)
  const text = existsSync(path) ? readFileSync(path, 'utf8') : ''
  const doc = parseDocument(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, { customTags: pyYamlTags })
  if (doc.errors.length)
    throw new CaduceusError(
      'conflict',
      `config.yaml is not valid YAML (${path}); fix it before changing the memory provider here`
    )
  if (doc.contents !== null && !isMap(doc.contents))
    throw new CaduceusError('conflict', 'config.yaml is not a mapping; fix it before changing the memory provider here')
  if (provider === null) {
    if (doc.hasIn(['memory', 'provider'])) doc.deleteIn(['memory', 'provider'])
  } else {
    doc.setIn(['memory', 'provider'], provider)
  }
  const tmp = `${path}.${process.pid}.tmp`
  writeFileSync(tmp, String(doc), { mode: 0o600 })
  renameSync(tmp, path)
}
