import { Fragment, type ReactNode } from 'react'
import { Badge } from '../../components/Badge'
import { Highlighted } from '../../components/Snippet'
import { highlightAs, type HastNode } from '../../components/markdown/code-highlight'
import type { FileLine, ListItem } from './tool-result'

/** hast from the highlighter as React: spans with their token classes, text as is. */
function hastToReact(nodes: HastNode[]): ReactNode {
  return nodes.map((n, i) => {
    if (n.type === 'text') return <Fragment key={i}>{n.value}</Fragment>
    const cls = n.properties?.className
    return (
      <span key={i} className={Array.isArray(cls) ? cls.join(' ') : undefined}>
        {hastToReact(n.children ?? [])}
      </span>
    )
  })
}

export function TerminalView({
  output,
  exitCode,
  error,
  terms
}: {
  output: string
  exitCode: number | null
  error: string | null
  terms?: string[]
}) {
  return (
    <>
      {exitCode != null && (
        <div className="tool-meta">
          <Badge tone={exitCode === 0 ? 'ok' : 'err'} testId="exit-code" title="Exit code of the command">
            exit {exitCode}
          </Badge>
        </div>
      )}
      <pre className="code terminal" tabIndex={0} data-testid="terminal-output">
        {output ? <Highlighted text={output} terms={terms} /> : <span className="terminal-empty">(no output)</span>}
      </pre>
      {error && (
        <div className="tool-error" role="note">
          {error}
        </div>
      )}
    </>
  )
}

/** A file as read: line numbers in their own gutter column (never part of the text), code highlighted by extension. */
export function FileView({
  lines,
  path,
  error = null,
  similar = []
}: {
  lines: FileLine[]
  path: string | null
  /** The read failed: shown instead of an empty file, with the paths upstream suggested. */
  error?: string | null
  similar?: string[]
}) {
  if (error && !lines.length) {
    return (
      <div className="file-view" data-testid="file-view" data-state="error">
        {path && <div className="file-path mono">{path}</div>}
        <div className="tool-error" role="note" data-testid="tool-error">
          {error}
        </div>
        {similar.length > 0 && (
          <div className="small" data-testid="similar-files">
            <span className="muted">Similar files:</span>
            <ul className="tool-list">
              {similar.map((f) => (
                <li key={f} className="mono">
                  {f}
                </li>
              ))}
            </ul>
          </div>
        )}
      </div>
    )
  }
  const ext = path && /\.([A-Za-z0-9]+)$/.exec(path)?.[1]
  const code = lines.map((l) => l.text).join('\n')
  const hast = ext ? highlightAs(ext, code) : null
  return (
    <div className="file-view" data-testid="file-view" data-lang={hast ? ext : undefined}>
      {path && <div className="file-path mono">{path}</div>}
      <div className="file-body code" tabIndex={0}>
        <pre className="file-gutter" aria-hidden data-testid="file-gutter">
          {lines.map((l) => l.n).join('\n')}
        </pre>
        <pre className={`file-code${hast ? ' hljs' : ''}`} data-testid="file-code">
          {hast ? hastToReact(hast) : code}
        </pre>
      </div>
    </div>
  )
}

export function DiffLines({ text }: { text: string }) {
  return (
    <>
      {text.split('\n').map((l, i) => {
        const cls =
          l.startsWith('+') && !l.startsWith('+++')
            ? 'diff-add'
            : l.startsWith('-') && !l.startsWith('---')
              ? 'diff-del'
              : l.startsWith('@@')
                ? 'diff-hunk'
                : l.startsWith('+++') || l.startsWith('---')
                  ? 'diff-file'
                  : undefined
        return (
          <span key={i} className={cls}>
            {l}
            {'\n'}
          </span>
        )
      })}
    </>
  )
}

export function ListView({ items, total, empty }: { items: ListItem[]; total: number | null; empty: string }) {
  if (!items.length) return <div className="muted pad-s">{empty}</div>
  return (
    <>
      {total != null && total > items.length && (
        <div className="tool-meta muted">
          {items.length} of {total.toLocaleString()}
        </div>
      )}
      <ul className="tool-list" data-testid="tool-list">
        {items.map((it, i) => (
          <li key={i}>
            {it.href ? (
              <a href={it.href} target="_blank" rel="noreferrer noopener">
                {it.text}
              </a>
            ) : (
              <span className="mono">{it.text}</span>
            )}
            {it.detail && <span className="muted small"> · {it.detail}</span>}
            {it.snippet && <div className="tool-list-snippet mono">{it.snippet}</div>}
          </li>
        ))}
      </ul>
    </>
  )
}
