/**
 * `memory.provider` in config.yaml, edited in place (only that value's bytes change; other keys, comments and the
 * file's mode survive), the same way settings are written. null removes the key (built-in memory only).
 */
import { configPath } from './load-config'
import { rewriteConfigFile } from './yaml-edit'

export function writeMemoryProvider(home: string, provider: string | null): void {
  rewriteConfigFile(configPath(home), [{ path: ['memory', 'provider'], value: provider }], 'the memory provider')
}
