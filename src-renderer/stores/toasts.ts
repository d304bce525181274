import { create } from 'zustand'
import { errorMessage } from '../lib/format'

export interface Toast {
  id: number
  kind: 'error' | 'info'
  message: string
}

interface ToastStore {
  toasts: Toast[]
  /** The id the next toast gets. */
  nextId: number
}

export const useToasts = create<ToastStore>()(() => ({ toasts: [], nextId: 1 }))
const MAX = 5

export function pushToast(kind: Toast['kind'], message: string): number {
  const id = useToasts.getState().nextId
  useToasts.setState((s) => ({ nextId: id + 1, toasts: [...s.toasts, { id, kind, message }].slice(-MAX) }))
  return id
}

export function dismissToast(id: number): void {
  useToasts.setState((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) }))
}

/** Every failed call surfaces its message; `context` says what the user was doing. */
export function reportError(err: unknown, context?: string): string {
  const msg = errorMessage(err)
  pushToast('error', context ? `${context}: ${msg}` : msg)
  return msg
}
