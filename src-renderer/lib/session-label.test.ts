import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createElement } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { sessionLabel } from './session-label'
import { SessionLabel } from '../components/SessionName'

const now = 1_700_000_000_000

describe('sessionLabel: one fallback for untitled sessions', () => {
  it('prefers the title, then the first message, then "Untitled session · <when>"', () => {
    expect(sessionLabel({ title: '  Deploy plan ', preview: 'ignored' }, now)).toBe('Deploy plan')
    expect(sessionLabel({ title: null, preview: 'how do I\n  roll back\tthe deploy?' }, now)).toBe(
      'how do I roll back the deploy?'
    )
    expect(sessionLabel({ title: '', preview: '   ', at: now / 1000 - 3 * 86400 }, now)).toBe(
      'Untitled session · 3d ago'
    )
    expect(sessionLabel({}, now)).toBe('Untitled session')
  })

  it('cuts a long first message at a word with an ellipsis', () => {
    const long = 'please summarise the incident report from last night and list every follow-up action'
    const label = sessionLabel({ preview: long }, now)
    expect(label.endsWith('…')).toBe(true)
    expect([...label].length).toBeLessThanOrEqual(60)
    expect(long.startsWith(label.slice(0, -1))).toBe(true)
    expect(label.slice(0, -1).endsWith(' ')).toBe(false)
  })

  it('never splits a surrogate pair and hard-cuts a single long word', () => {
    expect(sessionLabel({ preview: '🦩'.repeat(70) }, now)).toBe('🦩'.repeat(59) + '…')
    expect(sessionLabel({ preview: 'x'.repeat(80) }, now)).toBe('x'.repeat(59) + '…')
    expect(sessionLabel({ preview: 'short' }, now)).toBe('short')
  })

  it("draws the control characters of upstream's preview as their pictures (scripts/golden/control_chars.py)", () => {
    const { previews } = JSON.parse(
      readFileSync(join(import.meta.dirname, '../../test/fixtures/upstream/control-chars/rows.json'), 'utf8')
    ) as { previews: Record<string, string> }
    const preview = previews['golden-control-preview']!
    expect(preview).toContain('\u001b[1m')
    expect(sessionLabel({ preview }, now)).toBe('\u241b[1mBold ask\u241b[0m with nul')
    expect(sessionLabel({ title: 'a\u0000b' }, now)).toBe('a\u2400b')
    // a search hit names its session by the title the row carries: the same pictures
    const hit = renderToStaticMarkup(
      createElement(
        QueryClientProvider,
        { client: new QueryClient() },
        createElement(SessionLabel, { profile: 'default', id: 'x', title: preview })
      )
    )
    expect(hit).toBe('\u241b[1mBold ask\u241b[0m with nul')
  })
})
