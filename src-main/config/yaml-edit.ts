/**
 * In-place edits of config.yaml that change only the edited value's bytes: the file is parsed (as PyYAML reads it)
 * to find where a key sits, and the new text is spliced into the original. Re-printing the whole document would
 * re-space comments, fold block scalars and explicit `? key` entries, and rewrite numbers (`060`, `1.0`) so that
 * PyYAML could read an untouched key differently.
 *
 * A repeated key: PyYAML keeps the last one, so the last one is the one edited (a removal removes every copy, or an
 * earlier one would take over).
 */
import { existsSync, readFileSync } from 'node:fs'
import { Document, isAlias, isMap, isScalar, isSeq, type Node, type Pair, type YAMLMap } from 'yaml'
import { CaduceusError } from '@shared/contract'
import { parsePyYaml, pyYamlTags } from './py-yaml'
import { refuseUnwritable, replaceFile } from '../files'

type AnyPair = Pair<unknown, unknown>

/** The pair PyYAML reads for `key` in this mapping: the last one written. */
function lastPair(map: YAMLMap, key: string): AnyPair | undefined {
  let found: AnyPair | undefined
  for (const pair of map.items as AnyPair[]) if (isScalar(pair.key) && pair.key.value === key) found = pair
  return found
}

const nodeRange = (n: unknown): [number, number, number] | null =>
  n && typeof n === 'object' && 'range' in n && Array.isArray(n.range) ? (n.range as [number, number, number]) : null

/** A string (or bare word) as PyYAML reads it back unchanged: plain when that is safe, quoted otherwise. */
function scalarText(value: string, inFlow: boolean): string {
  const plain = new Document(value, { customTags: pyYamlTags }).toString({ lineWidth: 0 }).replace(/\n$/, '')
  if (plain.includes('\n') || (inFlow && /[,[\]{}]/.test(plain))) return JSON.stringify(value)
  return plain
}

const lineStart = (text: string, at: number) => text.lastIndexOf('\n', at - 1) + 1
const indentOf = (text: string, at: number) => at - lineStart(text, at)

/** Where a new line goes after a block mapping's last entry (its text may end without a newline). */
function afterLastEntry(text: string, map: YAMLMap, nl: string): { at: number; prefix: string } {
  const last = map.items[map.items.length - 1] as AnyPair
  const end = nodeRange(last.value)?.[2] ?? nodeRange(last.key)?.[2] ?? text.length
  const eol = text.indexOf('\n', end - (text[end - 1] === '\n' ? 1 : 0))
  if (eol === -1) return { at: text.length, prefix: nl }
  return { at: eol + 1, prefix: '' }
}

export interface YamlEdit {
  /** Key path from the top level. */
  path: string[]
  /** The new string value; null removes the key. */
  value: string | null
}

const blocked = (path: string[], what: string) =>
  new CaduceusError(
    'conflict',
    `${path.join('.')} in config.yaml is ${what}; change it there by hand (Caduceus edits plain values only)`
  )

/** Apply one edit to `text` (BOM-free), returning the new text. */
function applyEdit(text: string, edit: YamlEdit): string {
  const doc = parsePyYaml(text)
  const nl = text.includes('\r\n') ? '\r\n' : '\n'
  let node: unknown = doc.contents
  if (node !== null && !isMap(node))
    throw new CaduceusError('conflict', 'config.yaml is not a mapping at the top level')
  for (let i = 0; i < edit.path.length; i++) {
    const key = edit.path[i]
    const rest = edit.path.slice(i + 1)
    const map = node as YAMLMap | null
    const pair = map ? lastPair(map, key) : undefined
    if (!pair) {
      if (edit.value === null) return text
      return insert(text, map, [key, ...rest], edit.value, nl)
    }
    const v = pair.value
    if (i === edit.path.length - 1) {
      if (edit.value === null) return remove(text, map!, key, edit.path)
      return replace(text, pair, edit.value, map!.flow ?? false, edit.path)
    }
    if (isAlias(v)) throw blocked(edit.path.slice(0, i + 1), 'an alias (*anchor)')
    if (isSeq(v)) throw blocked(edit.path.slice(0, i + 1), 'a list')
    if (isMap(v)) {
      node = v
      continue
    }
    // A bare value (or nothing) where a section belongs: upstream ignores it, so it becomes the section.
    if (edit.value === null) return text
    return replace(text, pair, null, map!.flow ?? false, edit.path.slice(0, i + 1), [rest, edit.value])
  }
  return text
}

/** Lines for `path: value` as a block mapping nested at `indent`. */
function blockLines(path: string[], value: string, indent: number, nl: string): string {
  return path
    .map(
      (key, i) => `${' '.repeat(indent + 2 * i)}${key}:${i === path.length - 1 ? ` ${scalarText(value, false)}` : ''}`
    )
    .join(nl)
}

/** A flow fragment for `path: value` (`a: {b: v}`). */
function flowEntry(path: string[], value: string): string {
  const [key, ...rest] = path
  return `${key}: ${rest.length ? `{${flowEntry(rest, value)}}` : scalarText(value, true)}`
}

function insert(text: string, map: YAMLMap | null, path: string[], value: string, nl: string): string {
  if (!map || map.items.length === 0) {
    if (map?.flow) {
      const close = text.lastIndexOf('}', nodeRange(map)![1])
      return text.slice(0, close) + flowEntry(path, value) + text.slice(close)
    }
    // An empty file or one of comments only: the new section goes at the end.
    const at = map && nodeRange(map) ? nodeRange(map)![0] : text.length
    const body = blockLines(path, value, at === text.length ? 0 : indentOf(text, at), nl) + nl
    const sep = text.length && at === text.length && !text.endsWith('\n') ? nl : ''
    return text.slice(0, at) + sep + body + text.slice(at)
  }
  if (map.flow) {
    const close = text.lastIndexOf('}', nodeRange(map)![1])
    return `${text.slice(0, close)}, ${flowEntry(path, value)}${text.slice(close)}`
  }
  const first = map.items[0] as AnyPair
  const indent = indentOf(text, nodeRange(first.key)![0])
  const { at, prefix } = afterLastEntry(text, map, nl)
  return text.slice(0, at) + prefix + blockLines(path, value, indent, nl) + nl + text.slice(at)
}

/**
 * Put `value` where the pair's value is. With `nested`, the value (a bare scalar or nothing) becomes a mapping that
 * keeps it as `default` (`model: gpt-4` → `model:\n  default: gpt-4\n  provider: x`) and gains `nested`'s path.
 */
function replace(
  text: string,
  pair: AnyPair,
  value: string | null,
  inFlow: boolean,
  path: string[],
  nested?: [string[], string]
): string {
  const v = pair.value as Node | null
  const keyStart = nodeRange(pair.key)![0]
  const keyEnd = nodeRange(pair.key)![1]
  const range = nodeRange(v) ?? [keyEnd + 1, keyEnd + 1, keyEnd + 1]
  if (v && !isScalar(v)) throw blocked(path, isAlias(v) ? 'an alias (*anchor)' : 'not a plain value')
  const block = isScalar(v) && (v.type === 'BLOCK_LITERAL' || v.type === 'BLOCK_FOLDED')
  if (isScalar(v) && v.anchor) throw blocked(path, 'an anchored value (&anchor)')
  // Only `model: gpt-4` means something as a bare value (upstream reads it as model.default); any other section that
  // is not a mapping is ignored upstream and replaced here.
  const keepAsDefault =
    path.length === 1 && path[0] === 'model' && isScalar(v) && typeof v.value === 'string' && v.value !== '' && !block
  let replacement: string
  if (nested) {
    const nl = text.includes('\r\n') ? '\r\n' : '\n'
    if (inFlow) {
      const keep = keepAsDefault ? `default: ${text.slice(range[0], range[1])}, ` : ''
      replacement = `{${keep}${flowEntry(...nested)}}`
    } else {
      const indent = indentOf(text, keyStart) + 2
      const keep = keepAsDefault ? `${nl}${' '.repeat(indent)}default: ${text.slice(range[0], range[1])}` : ''
      replacement = `${keep}${nl}${blockLines(nested[0], nested[1], indent, nl)}`
    }
  } else {
    replacement = scalarText(value!, inFlow)
  }
  if (block) replacement = ` ${replacement}${text.includes('\r\n') ? '\r\n' : '\n'}`
  else if (range[0] === range[1] && !nested) replacement = ` ${replacement}`
  // A block mapping replacing a bare value starts right after the colon (no space left dangling on the key's line).
  const from = nested && !inFlow ? text.indexOf(':', keyEnd) + 1 : range[0]
  return text.slice(0, from) + replacement + text.slice(range[1])
}

/** Remove every `key:` entry of the mapping (an earlier copy would otherwise become the one PyYAML reads). */
function remove(text: string, map: YAMLMap, key: string, path: string[]): string {
  const pairs = (map.items as AnyPair[]).filter((p) => isScalar(p.key) && p.key.value === key)
  let out = text
  for (const pair of pairs.reverse()) {
    const start = nodeRange(pair.key)![0]
    const valueEnd = nodeRange(pair.value)?.[2] ?? nodeRange(pair.key)![2]
    if (map.flow) {
      // `{a: 1, key: v}`: the entry and the comma before it (or after it, when it is first).
      const before = out.lastIndexOf(',', start)
      const from = before > nodeRange(map)![0] ? before : start
      const after = out.slice(valueEnd).match(/^\s*,\s*/)
      out = out.slice(0, from) + out.slice(from === start && after ? valueEnd + after[0].length : valueEnd)
      continue
    }
    const ls = lineStart(out, start)
    if (out.slice(ls, start).trim()) throw blocked(path, 'not on a line of its own')
    if (pair.value && !isScalar(pair.value) && !isMap(pair.value) && !isSeq(pair.value) && !isAlias(pair.value))
      throw blocked(path, 'not a plain value')
    let end = out.indexOf('\n', Math.max(valueEnd - 1, start))
    end = end === -1 ? out.length : end + 1
    out = out.slice(0, ls) + out.slice(end)
  }
  return out
}

/** Apply edits in order to config.yaml's text (a BOM is kept). */
export function editYaml(text: string, edits: YamlEdit[]): string {
  const bom = text.charCodeAt(0) === 0xfeff ? '\ufeff' : ''
  let body = bom ? text.slice(1) : text
  for (const edit of edits) body = applyEdit(body, edit)
  return bom + body
}

/**
 * Edit `path` (config.yaml) in place for `what` ("settings", "the memory provider"). A file that does not parse is
 * never rewritten (the user's edits would be lost). The file keeps its mode (a new one is 0600, as upstream's
 * mkstemp makes it), and a symlinked config.yaml stays a symlink: its target is replaced.
 */
export function rewriteConfigFile(
  path: string,
  edits: YamlEdit[],
  what: string,
  opts: { secret?: boolean } = {}
): void {
  const text = existsSync(path) ? readFileSync(path, 'utf8') : ''
  const doc = parsePyYaml(text)
  if (doc.errors.length)
    throw new CaduceusError('conflict', `config.yaml is not valid YAML (${path}); fix it before changing ${what} here`)
  if (doc.contents !== null && !isMap(doc.contents))
    throw new CaduceusError('conflict', `config.yaml is not a mapping (${path}); fix it before changing ${what} here`)
  const next = editYaml(text, edits)
  if (next === text && existsSync(path)) return
  // The file keeps its mode (a new one is 0600, as upstream's mkstemp makes it); one that now holds a key, 0700 at most.
  refuseUnwritable('config.yaml', () =>
    replaceFile(path, next, {
      modeOf: (existing) => (existing === null ? 0o600 : existing & 0o777) & (opts.secret ? 0o700 : 0o777),
      followLinks: true
    })
  )
}
