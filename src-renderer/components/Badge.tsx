import type { ReactNode } from 'react'

export function Badge({
  children,
  tone = 'neutral',
  title,
  testId
}: {
  children: ReactNode
  tone?: 'neutral' | 'accent' | 'warn' | 'ok' | 'err'
  title?: string
  testId?: string
}) {
  return (
    <span className={`badge badge-${tone}`} title={title} data-testid={testId}>
      {children}
    </span>
  )
}
