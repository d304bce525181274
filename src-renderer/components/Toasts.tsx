import { useEffect } from 'react'
import { dismissToast, useToasts, type Toast } from '../stores/toasts'
import { CloseIcon } from './icons'

function ToastItem({ t }: { t: Toast }) {
  useEffect(() => {
    // errors stay longer: they are what the user needs to read
    const timer = setTimeout(() => dismissToast(t.id), t.kind === 'error' ? 8000 : 3000)
    return () => clearTimeout(timer)
  }, [t.id, t.kind])
  return (
    <div
      className={`toast toast-${t.kind}`}
      role={t.kind === 'error' ? 'alert' : 'status'}
      data-testid={`toast-${t.kind}`}
    >
      <span>{t.message}</span>
      <button className="icon-btn" aria-label="Dismiss" onClick={() => dismissToast(t.id)}>
        <CloseIcon />
      </button>
    </div>
  )
}

export function Toasts() {
  const toasts = useToasts((s) => s.toasts)
  return (
    <div className="toasts" aria-live="polite">
      {toasts.map((t) => (
        <ToastItem key={t.id} t={t} />
      ))}
    </div>
  )
}
