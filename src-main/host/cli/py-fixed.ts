/**
 * Python's `f'{x:.1f}'`, as upstream prints a size in MB. Both round the exact binary value, but an exact tie (x.25,
 * x.75: a file of 64 pages of 4 KiB is 0.25 MB) goes to the even digit in Python and up in JS's toFixed: 0.25 is
 * '0.2' there and '0.3' here. Only x.25 differs (x.75's even digit is the larger one).
 */
export function pyFixed1(x: number): string {
  const quarters = Math.abs(x) * 4 // exact: a power-of-two scale
  if (Number.isInteger(quarters) && quarters % 4 === 1) return (x - Math.sign(x) * 0.05).toFixed(1)
  return x.toFixed(1)
}
