import { Fragment, type ReactNode } from 'react'
import { Badge } from '../../components/Badge'
import { Highlighted } from '../../components/Snippet'
import { highlightAs, type HastNode } from '../../components/markdown/code-highlight'
import { markedParts, type Fact, type FileLine, type ListItem, type ToolView } from '@shared/contract/tool-result'

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
  facts = [],
  terms
}: {
  output: string
  exitCode: number | null
  error: string | null
  /** What upstream says beside the output: a background process's id and pid, a script's run time. */
  facts?: Fact[]
  terms?: string[]
}) {
  return (
    <>
      {(exitCode != null || facts.length > 0) && (
        <div className="tool-meta">
          {exitCode != null && (
            <Badge tone={exitCode === 0 ? 'ok' : 'err'} testId="exit-code" title="Exit code of the command">
              exit {exitCode}
            </Badge>
          )}
          {facts.map((f) => (
            <span key={f.label} className="muted small" data-testid="tool-fact">
              {f.label} <span className="mono">{f.value}</span>
            </span>
          ))}
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

/** The notes a tool put beside its result, one a line (tool-result.ts `notesOf`). */
function NoteLines({ note, testId }: { note: string; testId: string }) {
  return (
    <div className="muted small" role="note" data-testid={testId}>
      {note.split('\n').map((l, i) => (
        <Fragment key={i}>
          {i > 0 && <br />}
          {l}
        </Fragment>
      ))}
    </div>
  )
}

/** A file as read: line numbers in their own gutter column (never part of the text), code highlighted by extension. */
export function FileView({
  lines,
  path,
  error = null,
  similar = [],
  note = null
}: {
  lines: FileLine[]
  path: string | null
  /** What the tool said beside the lines: where to read on, a repeated read. */
  note?: string | null
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
      {note && <NoteLines note={note} testId="tool-file-note" />}
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

export function ListView({
  items,
  total,
  empty,
  note
}: {
  items: ListItem[]
  total: number | null
  empty: string
  /** What the tool said beside the list (hits left out, a repeated search, a cut), one note a line. */
  note?: string
}) {
  const noteLine = note ? <NoteLines note={note} testId="tool-list-note" /> : null
  if (!items.length)
    return (
      <>
        <div className="muted pad-s">{empty}</div>
        {noteLine}
      </>
    )
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
            {it.snippet && (
              <div className="tool-list-snippet mono">
                {markedParts(it.snippet).map((p, k) =>
                  p.hit ? <mark key={k}>{p.text}</mark> : <Fragment key={k}>{p.text}</Fragment>
                )}
              </div>
            )}
          </li>
        ))}
      </ul>
      {noteLine}
    </>
  )
}

/**
 * A result no other view fits, field by field: its message first, then each value beside its name (long text as a
 * block), lists of objects (skills, sessions, jobs) as lists. What upstream's tools return for memory, cronjob,
 * skills, session_search, write_file… reads as what happened, not as a JSON dump.
 */
export function FieldsView({ v, terms }: { v: Extract<ToolView, { kind: 'fields' }>; terms?: string[] }) {
  const empty = !v.message && !v.fields.length && !v.lists.length
  return (
    <div className="tool-fields" data-testid="tool-fields">
      {v.message && (
        <div className="tool-fields-message" data-testid="tool-fields-message">
          <Highlighted text={v.message} terms={terms} />
        </div>
      )}
      {v.fields.length > 0 && (
        <dl className="tool-fields-list">
          {v.fields.map((f) => (
            <div key={f.key} className={f.block ? 'tool-field block' : 'tool-field'}>
              <dt className="muted small">{f.key}</dt>
              <dd>
                {f.block ? (
                  <pre className="code text" tabIndex={0}>
                    <Highlighted text={f.value} terms={terms} />
                  </pre>
                ) : (
                  <span className="mono">
                    <Highlighted text={f.value} terms={terms} />
                  </span>
                )}
              </dd>
            </div>
          ))}
        </dl>
      )}
      {v.lists.map((l) => (
        <div key={l.key}>
          <div className="tool-section-label">{l.key}</div>
          <ListView items={l.items} total={null} empty="None" />
        </div>
      ))}
      {empty && <div className="muted pad-s">(nothing returned)</div>}
    </div>
  )
}
