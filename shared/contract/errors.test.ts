import { describe, expect, it } from 'vitest'
import { errorMessage, isNotFound, parseJsonOr, parseUrl } from './errors'

describe('errorMessage', () => {
  it('reads an Error, an error-like object and a thrown string', () => {
    expect(errorMessage(new TypeError('bad'))).toBe('bad')
    expect(errorMessage({ message: 'from a worker' })).toBe('from a worker')
    expect(errorMessage('plain')).toBe('plain')
    expect(errorMessage(undefined)).toBe('undefined')
  })
})

describe('isNotFound', () => {
  it('is true only for a path that is not there, never for one that cannot be read', () => {
    const sys = (code: string) => Object.assign(new Error(code), { code })
    expect(isNotFound(sys('ENOENT'))).toBe(true)
    expect(isNotFound(sys('ENOTDIR'))).toBe(true)
    for (const code of ['EACCES', 'EISDIR', 'EIO', 'EPERM']) expect(isNotFound(sys(code))).toBe(false)
    expect(isNotFound(new Error('ENOENT'))).toBe(false)
    expect(isNotFound('ENOENT')).toBe(false)
    expect(isNotFound(null)).toBe(false)
  })
})

describe('parseJsonOr', () => {
  it('gives the parsed value, or the fallback for text that is not JSON', () => {
    expect(parseJsonOr('{"a":1}', null)).toEqual({ a: 1 })
    expect(parseJsonOr('null', 'x')).toBe(null)
    expect(parseJsonOr('{"a":', 'fallback')).toBe('fallback')
    expect(parseJsonOr('', undefined)).toBe(undefined)
  })
})

describe('parseUrl', () => {
  it('gives the URL, or null for text that is not one', () => {
    expect(parseUrl('https://api.example.com/v1')?.hostname).toBe('api.example.com')
    expect(parseUrl('api.example.com')).toBeNull()
    expect(parseUrl('')).toBeNull()
  })
})
