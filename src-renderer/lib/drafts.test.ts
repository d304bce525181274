import { createElement } from 'react'
import { renderToString } from 'react-dom/server'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { clearSentDraft, useDraft } from './drafts'

/** Mount a component holding the draft for `key` (as the composer does); returns its text and setter. */
function mount(key: string | null): { text: string; set: (text: string) => void } {
  let out!: { text: string; set: (text: string) => void }
  function Probe() {
    const [text, set] = useDraft(key)
    out = { text, set }
    return null
  }
  renderToString(createElement(Probe))
  return out
}

describe('drafts', () => {
  afterEach(() => vi.unstubAllGlobals())

  it('keeps unsent text per key across remounts and forgets it once cleared', () => {
    mount('default/s1').set('half a thought')
    mount('default/s2').set('another')
    expect(mount('default/s1').text).toBe('half a thought')
    expect(mount('default/s2').text).toBe('another')
    mount('default/s1').set('')
    expect(mount('default/s1').text).toBe('')
    expect(mount('missing').text).toBe('')
  })

  it('keeps nothing for a null key', () => {
    mount(null).set('local only')
    expect(mount(null).text).toBe('')
  })

  it('caps what it keeps', () => {
    mount('k').set('x'.repeat(300_000))
    expect(mount('k').text.length).toBe(200_000)
  })

  it('mirrors to sessionStorage, so a reloaded window gets it back', () => {
    const saved = new Map<string, string>()
    vi.stubGlobal('sessionStorage', {
      getItem: (k: string) => saved.get(k) ?? null,
      setItem: (k: string, v: string) => saved.set(k, v),
      removeItem: (k: string) => saved.delete(k)
    })
    mount('default/mirrored').set('typed before reload')
    expect([...saved.values()]).toEqual(['typed before reload'])
    // a key this window never wrote (its in-memory copy is empty) reads the mirror
    saved.set('caduceus.draft.default/reloaded', 'from the last window')
    expect(mount('default/reloaded').text).toBe('from the last window')
  })

  it('clears a sent draft only while it is still what was sent', () => {
    mount('default/sent').set('hello')
    clearSentDraft('default/sent', 'hello')
    expect(mount('default/sent').text).toBe('')
    mount('default/sent').set('hello, and more')
    clearSentDraft('default/sent', 'hello')
    expect(mount('default/sent').text).toBe('hello, and more')
  })
})
