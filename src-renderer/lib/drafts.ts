import { useCallback, useState, useSyncExternalStore } from 'react'

/**
 * Unsent text per place (a session's composer, a child's follow-up box). Kept in memory and mirrored to
 * sessionStorage, so navigating away, closing a dialog or reloading the window never loses what was typed. A draft
 * belongs to its key, not to the component that showed it: every view of a key hears a change to it, so a send that
 * finishes after its page was left (and perhaps opened again) clears the text where it is shown now.
 */
const PREFIX = 'caduceus.draft.'
const MAX_CHARS = 200_000
const memory = new Map<string, string>()

function storage(): Storage | null {
  try {
    return typeof sessionStorage === 'undefined' ? null : sessionStorage
  } catch {
    return null // reading the property throws where storage is disabled
  }
}

function readDraft(key: string): string {
  const hit = memory.get(key)
  if (hit != null) return hit
  try {
    return storage()?.getItem(PREFIX + key) ?? ''
  } catch {
    return '' // storage disabled: no draft kept
  }
}

/** The views showing each key's draft. */
const listeners = new Map<string, Set<() => void>>()

function subscribeDraft(key: string, onChange: () => void): () => void {
  const set = listeners.get(key) ?? new Set<() => void>()
  set.add(onChange)
  listeners.set(key, set)
  return () => {
    set.delete(onChange)
    if (!set.size) listeners.delete(key)
  }
}

function writeDraft(key: string, text: string): void {
  store(key, text)
  for (const l of [...(listeners.get(key) ?? [])]) l()
}

function store(key: string, text: string): void {
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
  const [local, setLocal] = useState('')
  const subscribe = useCallback((onChange: () => void) => (key ? subscribeDraft(key, onChange) : () => {}), [key])
  const read = () => (key ? readDraft(key) : '')
  // a different key (another session in the same component) shows that key's draft
  const kept = useSyncExternalStore(subscribe, read, read)
  const set = useCallback(
    (text: string) => {
      if (key) writeDraft(key, text)
      else setLocal(text)
    },
    [key]
  )
  return [key ? kept : local, set]
}

/**
 * A send of `sent` from `key` was accepted: the draft goes, unless it is no longer what was sent (typed on
 * meanwhile, wherever the key is shown now).
 */
export function clearSentDraft(key: string, sent: string): void {
  if (readDraft(key) === sent) writeDraft(key, '')
}

/** Change the draft for `key` from what it holds now, not from what a view last rendered (a reply that lands later). */
export function updateDraft(key: string, fn: (text: string) => string): void {
  writeDraft(key, fn(readDraft(key)))
}
