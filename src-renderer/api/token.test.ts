import { describe, expect, it } from 'vitest'
import { takeToken, wsUrl } from './token'

function env(href: string) {
  const store = new Map<string, string>()
  const e = {
    location: { href },
    replaced: null as string | null,
    history: {
      replaceState: (_d: unknown, _u: string, url?: string) => {
        e.replaced = url ?? null
      }
    },
    sessionStorage: {
      getItem: (k: string) => store.get(k) ?? null,
      setItem: (k: string, v: string) => void store.set(k, v)
    }
  }
  return e
}

describe('token handling', () => {
  it('takes the token from the query, strips it from the address bar and keeps it for reloads', () => {
    const e = env('http://127.0.0.1:5000/?token=abc&x=1#/sessions')
    expect(takeToken(e)).toBe('abc')
    expect(e.replaced).toBe('/?x=1#/sessions')
    const reload = { ...e, location: { href: 'http://127.0.0.1:5000/#/sessions' } }
    expect(takeToken(reload)).toBe('abc')
  })

  it('builds ws and wss urls with the token', () => {
    expect(wsUrl({ protocol: 'http:', host: '127.0.0.1:9', pathname: '/' }, 'a b')).toBe(
      'ws://127.0.0.1:9/ws?token=a%20b'
    )
    expect(wsUrl({ protocol: 'https:', host: 'h', pathname: '/' }, null)).toBe('wss://h/ws')
  })

  it('follows the page behind a tunnel or a reverse proxy: its port, wss under https, its sub-path', () => {
    expect(wsUrl({ protocol: 'http:', host: 'localhost:9000', pathname: '/' }, 't')).toBe(
      'ws://localhost:9000/ws?token=t'
    )
    expect(wsUrl({ protocol: 'https:', host: 'proxy.example', pathname: '/caduceus/' }, 't')).toBe(
      'wss://proxy.example/caduceus/ws?token=t'
    )
    expect(wsUrl({ protocol: 'https:', host: 'proxy.example', pathname: '/caduceus/index.html' }, null)).toBe(
      'wss://proxy.example/caduceus/ws'
    )
  })
})
