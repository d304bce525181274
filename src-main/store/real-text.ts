/**
 * A double as SQLite 3.40 writes it into a TEXT column (what upstream's Python binds a float as; SQLite 3.53, this
 * process's, writes another text). SQLite's printf (`%!.15g`) works in the C `long double`, which on x86-64 is the
 * 80-bit extended format: the value is scaled by powers of ten into [1, 10), a rounding term is added and digits are
 * peeled off one by one, every step rounded to a 64-bit significand. Those roundings decide the 15th digit when the
 * value sits near a tie ('4.21029619308138e+210' where a correctly rounded 15 digits end in 9), so they are emulated
 * here exactly, on integers: an extended value is `m × 2^e` with a 64-bit `m`, rounded to nearest, ties to even.
 * (An upstream on another machine — arm64, whose long double differs, or a newer SQLite — may store other text.)
 */

/** An x87 extended value `m × 2^e`; `m` has exactly 64 bits, or is 0. */
interface Ext {
  m: bigint
  e: number
}

const BITS = 64n
const bitLength = (n: bigint) => n.toString(2).length

/** `m × 2^e` exactly, rounded to 64 bits; `sticky`: the true value is a little above `m` (a division's remainder). */
function rounded(m: bigint, e: number, sticky = false): Ext {
  if (m === 0n) return { m: 0n, e: 0 }
  const len = BigInt(bitLength(m))
  if (len <= BITS) return { m: m << (BITS - len), e: e - Number(BITS - len) }
  const shift = len - BITS
  let keep = m >> shift
  const rest = m - (keep << shift)
  const half = 1n << (shift - 1n)
  if (rest > half || (rest === half && (sticky || (keep & 1n) === 1n))) keep++
  let exp = e + Number(shift)
  if (bitLength(keep) > 64) {
    keep >>= 1n
    exp++
  }
  return { m: keep, e: exp }
}

const view = new DataView(new ArrayBuffer(8))
/** A finite double, exactly. */
function ext(x: number): Ext {
  if (x === 0) return { m: 0n, e: 0 }
  view.setFloat64(0, Math.abs(x))
  const bits = view.getBigUint64(0)
  const biased = Number((bits >> 52n) & 0x7ffn)
  const fraction = bits & ((1n << 52n) - 1n)
  return biased === 0 ? rounded(fraction, -1074) : rounded(fraction | (1n << 52n), biased - 1075)
}

const mul = (a: Ext, b: Ext): Ext => rounded(a.m * b.m, a.e + b.e)
function div(a: Ext, b: Ext): Ext {
  const num = a.m << 66n
  return rounded(num / b.m, a.e - b.e - 66, num % b.m !== 0n)
}
/** Both operands at the smaller exponent: exact integers to add, subtract or compare. */
function aligned(a: Ext, b: Ext): [bigint, bigint, number] {
  if (a.m === 0n) return [0n, b.m, b.e]
  if (b.m === 0n) return [a.m, 0n, a.e]
  const e = Math.min(a.e, b.e)
  return [a.m << BigInt(a.e - e), b.m << BigInt(b.e - e), e]
}
const add = (a: Ext, b: Ext): Ext => {
  const [x, y, e] = aligned(a, b)
  return rounded(x + y, e)
}
/** a − b for a ≥ b ≥ 0. */
const sub = (a: Ext, b: Ext): Ext => {
  const [x, y, e] = aligned(a, b)
  return rounded(x - y, e)
}
const cmp = (a: Ext, b: Ext): number => {
  const [x, y] = aligned(a, b)
  return x < y ? -1 : x > y ? 1 : 0
}
/** The integer part of a value below 2^53. */
const whole = (a: Ext): number => (a.e >= 0 ? Number(a.m << BigInt(a.e)) : Number(a.m >> BigInt(-a.e)))

const ONE = ext(1)
const TEN = ext(10)
const E8 = ext(1e8)
const E_8 = ext(1e-8)
const E10 = ext(1e10)
const E100 = ext(1e100)
const TENTH = ext(0.1)
/** `%!.15g`: 14 digits after the first, and the rounding term for them (a double, 5e-05 × 1e-10). */
const PRECISION = 14
const ROUNDER = ext(5e-5 * 1e-10)
/** Digits the `!` flag lets the peeling produce before it writes zeros. */
const SIGNIFICANT = 26

/** SQLite 3.40's text of a double in a TEXT column: `Inf` / `-Inf`, NaN NULL (it binds as NULL). */
export function realText(x: number): string | null {
  if (Number.isNaN(x)) return null
  if (!Number.isFinite(x)) return x > 0 ? 'Inf' : '-Inf'
  const sign = x < 0 ? '-' : ''
  let v = ext(Math.abs(x))
  let exp = 0
  if (v.m !== 0n) {
    let scale = ONE
    while (cmp(v, mul(E100, scale)) >= 0 && exp <= 350) [scale, exp] = [mul(scale, E100), exp + 100]
    while (cmp(v, mul(E10, scale)) >= 0 && exp <= 350) [scale, exp] = [mul(scale, E10), exp + 10]
    while (cmp(v, mul(TEN, scale)) >= 0 && exp <= 350) [scale, exp] = [mul(scale, TEN), exp + 1]
    v = div(v, scale)
    while (cmp(v, E_8) < 0) [v, exp] = [mul(v, E8), exp - 8]
    while (cmp(v, ONE) < 0) [v, exp] = [mul(v, TEN), exp - 1]
  }
  v = add(v, ROUNDER)
  if (cmp(v, TEN) >= 0) [v, exp] = [mul(v, TENTH), exp + 1]
  const exponent = exp < -4 || exp > PRECISION
  let left = SIGNIFICANT
  const digit = (): string => {
    if (left <= 0) return '0'
    left--
    const d = whole(v)
    v = mul(sub(v, ext(d)), TEN)
    return String(d)
  }
  let out = sign
  let after = exponent ? PRECISION : PRECISION - exp
  const before = exponent ? 0 : exp
  if (before < 0) out += '0'
  else for (let i = 0; i <= before; i++) out += digit()
  out += '.'
  for (let i = before + 1; i < 0; i++, after--) out += '0' // zeros between the point and the first digit
  for (; after > 0; after--) out += digit()
  out = out.replace(/0+$/, '')
  if (out.endsWith('.')) out += '0'
  if (!exponent) return out
  const e = Math.abs(exp)
  return `${out}e${exp < 0 ? '-' : '+'}${e >= 100 ? String(e) : String(e).padStart(2, '0')}`
}
