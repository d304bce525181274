import { describe, expect, it } from 'vitest'
import { errorMessage } from './errors'

describe('errorMessage', () => {
  it('reads an Error, an error-like object and a thrown string', () => {
    expect(errorMessage(new TypeError('bad'))).toBe('bad')
    expect(errorMessage({ message: 'from a worker' })).toBe('from a worker')
    expect(errorMessage('plain')).toBe('plain')
    expect(errorMessage(undefined)).toBe('undefined')
  })
})
