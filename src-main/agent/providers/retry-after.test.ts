import { describe, expect, it } from 'vitest'
import { retryAfterMs } from './retry-after'

describe('retryAfterMs', () => {
  it('reads seconds, milliseconds and an HTTP date; anything else is null', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': '3' }))).toBe(3000)
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '250' }))).toBe(250)
    expect(retryAfterMs(new Headers({ 'retry-after': new Date(10_000).toUTCString() }), 4000)).toBe(6000)
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }))).toBeNull()
    expect(retryAfterMs(new Headers())).toBeNull()
  })
})
