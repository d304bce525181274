import { useEffect, useState } from 'react'
import { formatDateTime, relativeTime } from '../lib/format'

interface Clock {
  listeners: Set<() => void>
  timer: ReturnType<typeof setInterval> | null
}
let clocks = new Map<number, Clock>()

/** Shared clocks (one per interval) for relative times and countdowns; each ticks only while something shows it. */
export function useNow(intervalMs = 15_000): number {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    const clock = clocks.get(intervalMs) ?? { listeners: new Set(), timer: null }
    clocks.set(intervalMs, clock)
    const fn = () => setNow(Date.now())
    clock.listeners.add(fn)
    clock.timer ??= setInterval(() => {
      for (const l of [...clock.listeners]) l()
    }, intervalMs)
    return () => {
      clock.listeners.delete(fn)
      if (!clock.listeners.size && clock.timer) {
        clearInterval(clock.timer)
        clock.timer = null
      }
    }
  }, [intervalMs])
  return now
}

export function RelTime({ at }: { at: number | null | undefined }) {
  const now = useNow()
  return <time title={formatDateTime(at)}>{relativeTime(at, now)}</time>
}

export function resetClocksForTests(): void {
  for (const c of clocks.values()) if (c.timer) clearInterval(c.timer)
  clocks = new Map()
}
