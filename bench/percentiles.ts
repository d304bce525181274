/**
 * Nearest-rank percentiles (the value at rank ⌈p·n⌉). With 20 samples p95 is the 19th, not the slowest: taking
 * `floor(p·n)` as an index, as the benches used to, made every p95 of a 20-run bench its maximum.
 */
export function percentiles(xs: readonly number[], decimals = 1): { p50: number; p95: number } {
  const s = [...xs].sort((a, b) => a - b)
  const f = 10 ** decimals
  const at = (p: number) => (s.length ? Math.round(s[Math.max(0, Math.ceil(p * s.length) - 1)]! * f) / f : NaN)
  return { p50: at(0.5), p95: at(0.95) }
}
