import { useEffect, useRef } from 'react'

/** Call `fn(value)` once `value` has been stable for `ms`; skips the initial value. */
export function useDebouncedEffect<T>(value: T, ms: number, fn: (v: T) => void): void {
  const first = useRef(true)
  const fnRef = useRef(fn)
  fnRef.current = fn
  useEffect(() => {
    if (first.current) {
      first.current = false
      return
    }
    const t = setTimeout(() => fnRef.current(value), ms)
    return () => clearTimeout(t)
  }, [value, ms])
}
