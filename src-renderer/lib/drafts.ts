import { useCallback, useState } from 'react'

/**
 * Unsent text per place (a session's composer, a child's follow-up box). Kept in memory and mirrored to
 * sessionStorage, so navigating away, closing a dialog or reloading the window never loses what was typed.
 */
const PREFIX = 'caduceus.draft.'
const MAX_CHARS = 200_000
const memory = new Map<string, string>()

function storage(): Storage | null {
  try {
    return typeof sessionStorage === 'undefined' ? null : sessionStorage
  } catch {
    return null
  }
}

function readDraft(key: string): string {
  const hit = memory.get(key)
  if (hit != null) return hit
  try {
    return storage()?.getItem(PREFIX + key) ?? ''
  } catch {
    return ''
  }
}

function writeDraft(key: string, text: string): void {
  const s = storage()
  if (!text) {
    memory.delete(key)
    try {
      s?.removeItem(PREFIX + key)
    } catch {
      /* storage disabled */
    }
    return
  }
  const v = text.length > MAX_CHARS ? text.slice(0, MAX_CHARS) : text
  memory.set(key, v)
  try {
    s?.setItem(PREFIX + key, v)
  } catch {
    /* quota or disabled: the in-memory copy still holds it */
  }
}

/** useState that reads and writes the draft for `key`; a null key keeps the text local only. */
export function useDraft(key: string | null): [string, (text: string) => void] {
  const [state, setState] = useState(() => ({ key, text: key ? readDraft(key) : '' }))
  // a different key (another session in the same component) starts from that key's draft
  const current = state.key === key ? state.text : key ? readDraft(key) : ''
  if (state.key !== key) setState({ key, text: current })
  const set = useCallback(
    (text: string) => {
      if (key) writeDraft(key, text)
      setState({ key, text })
    },
    [key]
  )
  return [current, set]
}
