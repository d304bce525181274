import { useState } from 'react'
import { Highlighted } from '../../components/Snippet'

/** Lines shown before "Show all": long outputs would push the conversation off screen. */
const HEAD_LINES = 40
const HEAD_CHARS = 4000

type Kind = 'json' | 'diff' | 'terminal' | 'text'

function kindOf(text: string, tool: string | null): { kind: Kind; text: string } {
  const t = text.trim()
  if ((t.startsWith('{') || t.startsWith('[')) && t.length < 200_000) {
    try {
      return { kind: 'json', text: JSON.stringify(JSON.parse(t), null, 2) }
    } catch {
      /* not JSON */
    }
  }
  if (/^(diff --git|--- |\+\+\+ |@@ )/m.test(t) && /^[+-]/m.test(t)) return { kind: 'diff', text }
  if (tool && /terminal|shell|bash|process|exec/.test(tool)) return { kind: 'terminal', text }
  return { kind: 'text', text }
}

function DiffLines({ text }: { text: string }) {
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

/**
 * A tool's output by what it is: JSON pretty-printed, diffs coloured by line, terminal output on a terminal
 * background, anything long cut to its head with a "Show all" button.
 */
export function ToolOutput({ text, tool, terms }: { text: string; tool: string | null; terms?: string[] }) {
  const [all, setAll] = useState(false)
  const { kind, text: shown } = kindOf(text, tool)
  const lines = shown.split('\n')
  const long = lines.length > HEAD_LINES || shown.length > HEAD_CHARS
  const body = long && !all ? lines.slice(0, HEAD_LINES).join('\n').slice(0, HEAD_CHARS) : shown
  return (
    <div className="tool-output" data-kind={kind} data-testid="tool-output">
      <pre className={`code ${kind}`} tabIndex={0}>
        {kind === 'diff' ? <DiffLines text={body} /> : <Highlighted text={body} terms={terms} />}
      </pre>
      {long && (
        <button
          type="button"
          className="small link"
          onClick={() => setAll(!all)}
          data-testid="tool-output-expand"
          aria-expanded={all}
        >
          {all
            ? 'Show less'
            : `Show all (${lines.length.toLocaleString()} lines, ${shown.length.toLocaleString()} chars)`}
        </button>
      )}
    </div>
  )
}

/** Arguments of a file edit rendered as a diff (old → new), when the call has that shape. */
export function editAsDiff(args: string): string | null {
  try {
    const a = JSON.parse(args) as Record<string, unknown>
    const oldS = a.old_string ?? a.old_text ?? a.old
    const newS = a.new_string ?? a.new_text ?? a.new
    if (typeof oldS === 'string' && typeof newS === 'string') {
      const path = typeof a.path === 'string' ? a.path : typeof a.file_path === 'string' ? a.file_path : 'file'
      return [
        `--- ${path}`,
        `+++ ${path}`,
        ...oldS.split('\n').map((l) => `-${l}`),
        ...newS.split('\n').map((l) => `+${l}`)
      ].join('\n')
    }
    if (typeof a.patch === 'string') return a.patch
  } catch {
    /* not JSON */
  }
  return null
}
