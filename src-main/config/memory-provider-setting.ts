/**
 * `memory.provider` in config.yaml, edited in place (only that value's bytes change; other keys, comments and the
 * file's mode survive), the same way settings are written.
 */
import { configPath, isPlainObject, loadConfig } from './load-config'
import { rewriteConfigFile } from './yaml-edit'

/**
 * Name `provider`, or (null) built-in memory only. Built-in only is what upstream's `hermes memory off` and its
 * picker's "built-in only" write: `provider: ''`, not a removed key. Its save_config leaves out a value equal to the
 * default that the file did not hold already, so a file without a provider key is left without one.
 */
export function writeMemoryProvider(home: string, provider: string | null): void {
  let value = provider
  if (value === null) {
    const { raw, error } = loadConfig(home)
    // A file that cannot be read goes on to the writer, which refuses it with the reason.
    if (!error && !(isPlainObject(raw.memory) && Object.hasOwn(raw.memory, 'provider'))) return
    value = ''
  }
  rewriteConfigFile(configPath(home), [{ path: ['memory', 'provider'], value }], 'the memory provider')
}
