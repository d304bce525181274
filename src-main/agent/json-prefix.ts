import { wholeArguments } from './providers/types'

/**
 * Whether a tool call's arguments are JSON cut off before their end — every character fits JSON's grammar and only
 * the rest is missing (`{"command":"echo hel`, `{"a":1,`, `[1, tr`) — rather than JSON written wrong (`{'a': 1}`,
 * `{"a":1,}`, text after a whole value). The first is what an output cap leaves; the second a model's mistake, which
 * a larger cap would not mend. Whole JSON is neither, nor are no arguments at all (blank: taken as `{}`).
 */
export function cutOffJson(text: string): boolean {
  if (wholeArguments(text)) return false
  const stack: Array<'{' | '['> = []
  /** What may come next: a value, an object key, the colon after one, a comma or closer, or nothing (done). */
  let want: 'value' | 'key' | 'colon' | 'next' | 'done' = 'value'
  /** Just after `{` or `[`: the closer may come at once. */
  let opened = false
  /** After a whole value: a comma or closer inside a container, else nothing more. */
  const afterValue = (): typeof want => {
    opened = false
    return stack.length ? 'next' : 'done'
  }
  let i = 0
  while (i < text.length) {
    const c = text[i]!
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++
      continue
    }
    if (want === 'done') return false // something after a whole value
    if (want === 'colon') {
      if (c !== ':') return false
      want = 'value'
      i++
      continue
    }
    if (want === 'next' || (opened && (c === '}' || c === ']'))) {
      const top = stack.at(-1)
      if (c === ',' && want === 'next') {
        want = top === '{' ? 'key' : 'value'
        i++
        continue
      }
      if ((c === '}' && top === '{') || (c === ']' && top === '[')) {
        stack.pop()
        want = afterValue()
        i++
        continue
      }
      return false
    }
    if (c === '"') {
      // a string, key or value: cut inside it (or inside an escape) when the text ends first
      for (i++; i < text.length; i++) {
        const d = text[i]!
        if (d === '\\') i++
        else if (d === '"') break
        else if (d < ' ') return false
      }
      if (i >= text.length) return true
      i++
      if (want === 'key') want = 'colon'
      else want = afterValue()
      opened = false
      continue
    }
    if (want === 'key') return false // a key is a string
    if (c === '{' || c === '[') {
      stack.push(c)
      want = c === '{' ? 'key' : 'value'
      opened = true
      i++
      continue
    }
    const run = /^[-+0-9.eE]+|^[a-z]+/.exec(text.slice(i))?.[0]
    if (!run) return false
    const end = i + run.length >= text.length
    const literal = ['true', 'false', 'null'].find((l) => (end ? l.startsWith(run) : l === run))
    const number = end ? /^-?(0|[1-9]\d*)?(\.\d*)?([eE][-+]?\d*)?$/ : /^-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?$/
    if (!literal && !number.test(run)) return false
    if (end) return true // cut in a value (a whole one at the end still wants its closers)
    i += run.length
    want = afterValue()
  }
  return want !== 'done'
}
