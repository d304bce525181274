/**
 * Phase-vector HRR arithmetic as upstream's holographic plugin stores it, so both sides write and read
 * the same `hrr_vector` / `memory_banks.vector` bytes: an atom is a word's SHA-256 counter blocks read as
 * little-endian uint16s scaled to [0, 2π); bind adds phases, unbind subtracts, bundle is the circular mean.
 * Vectors are float64 little-endian (8 bytes a phase). Modulo follows numpy's (the result takes the
 * divisor's sign) so atoms and binds come out byte-equal; bundles go through sin/cos, where V8 may differ
 * from libm in the last bit.
 */
import { createHash } from 'node:crypto'

export type Phases = Float64Array

const TWO_PI = 2 * Math.PI
const SCALE = TWO_PI / 65536
export const ROLE_CONTENT = '__hrr_role_content__'
export const ROLE_ENTITY = '__hrr_role_entity__'
const EMPTY = '__hrr_empty__'

/** numpy's float `%`: fmod, then shifted into the divisor's sign; an exact zero is +0. */
function mod2pi(x: number): number {
  const r = x % TWO_PI
  if (r === 0) return 0
  return r < 0 ? r + TWO_PI : r
}

// Atoms are pure functions of (word, dim); a bounded cache keeps recall over many facts cheap.
const atomCache = new Map<string, Phases>()
const ATOM_CACHE_MAX = 2048

export function encodeAtom(word: string, dim: number): Phases {
  const key = `${dim}\u0000${word}`
  const hit = atomCache.get(key)
  if (hit) return hit
  const out = new Float64Array(dim)
  for (let block = 0, i = 0; i < dim; block++) {
    const digest = createHash('sha256').update(`${word}:${block}`, 'utf8').digest()
    for (let j = 0; j < 32 && i < dim; j += 2, i++) out[i] = digest.readUInt16LE(j) * SCALE
  }
  if (atomCache.size >= ATOM_CACHE_MAX) atomCache.delete(atomCache.keys().next().value!)
  atomCache.set(key, out)
  return out
}

export function bind(a: Phases, b: Phases): Phases {
  const out = new Float64Array(a.length)
  for (let i = 0; i < a.length; i++) out[i] = mod2pi(a[i]! + b[i]!)
  return out
}

export function unbind(memory: Phases, key: Phases): Phases {
  const out = new Float64Array(memory.length)
  for (let i = 0; i < memory.length; i++) out[i] = mod2pi(memory[i]! - key[i]!)
  return out
}

/** Circular mean: the angle of the summed unit phasors, summed in argument order as numpy does. */
export function bundle(vectors: Phases[]): Phases {
  const dim = vectors[0]!.length
  const re = new Float64Array(dim)
  const im = new Float64Array(dim)
  for (const v of vectors)
    for (let i = 0; i < dim; i++) {
      re[i] += Math.cos(v[i]!)
      im[i] += Math.sin(v[i]!)
    }
  const out = new Float64Array(dim)
  for (let i = 0; i < dim; i++) out[i] = mod2pi(Math.atan2(im[i]!, re[i]!))
  return out
}

/** Mean cosine of the phase differences, in [-1, 1]. */
export function similarity(a: Phases, b: Phases): number {
  let sum = 0
  for (let i = 0; i < a.length; i++) sum += Math.cos(a[i]! - b[i]!)
  return sum / a.length
}

/**
 * A run of Python's whitespace (`str.isspace()`, what `str.split()` splits on): JS's `\s` adds U+FEFF and lacks
 * U+001C–U+001F and U+0085, so "use\x85vim" would be one token here and two upstream.
 */
export const PY_SPACE = '[\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]+'
const PY_SPLIT = new RegExp(PY_SPACE)

/** Python's `s.split()`: the words between whitespace runs, no empty ones. */
export const pySplit = (s: string): string[] => s.split(PY_SPLIT).filter(Boolean)

/** Lowercased whitespace tokens with upstream's punctuation stripped from both ends. */
export function hrrTokens(text: string): string[] {
  return pySplit(text.toLowerCase())
    .map((t) => stripEnds(t, '.,!?;:"\'()[]{}'))
    .filter(Boolean)
}

export function stripEnds(s: string, chars: string): string {
  let start = 0
  let end = s.length
  while (start < end && chars.includes(s[start]!)) start++
  while (end > start && chars.includes(s[end - 1]!)) end--
  return s.slice(start, end)
}

/** Bag of words: the bundle of the tokens' atoms (a reserved atom for text with no tokens). */
export function encodeText(text: string, dim: number): Phases {
  const words = hrrTokens(text)
  if (words.length === 0) return encodeAtom(EMPTY, dim)
  return bundle(words.map((w) => encodeAtom(w, dim)))
}

/** The content bound to the content role plus each entity bound to the entity role, bundled. */
export function encodeFact(content: string, entities: string[], dim: number): Phases {
  const parts = [bind(encodeText(content, dim), encodeAtom(ROLE_CONTENT, dim))]
  const roleEntity = encodeAtom(ROLE_ENTITY, dim)
  for (const e of entities) parts.push(bind(encodeAtom(e.toLowerCase(), dim), roleEntity))
  return bundle(parts)
}

export function phasesToBytes(p: Phases): Buffer {
  const buf = Buffer.alloc(p.length * 8)
  for (let i = 0; i < p.length; i++) buf.writeDoubleLE(p[i]!, i * 8)
  return buf
}

/** A stored vector, or null when the blob is not whole float64s (a foreign or damaged row). */
export function bytesToPhases(data: Uint8Array | null | undefined): Phases | null {
  if (!data || data.length === 0 || data.length % 8 !== 0) return null
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength)
  const out = new Float64Array(data.length / 8)
  for (let i = 0; i < out.length; i++) out[i] = buf.readDoubleLE(i * 8)
  return out
}
