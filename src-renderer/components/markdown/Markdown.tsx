import { memo, useMemo, useState, type ComponentProps } from 'react'
import ReactMarkdown, { type Components } from 'react-markdown'
import remarkGfm from 'remark-gfm'
import rehypeHighlight from 'rehype-highlight'
import { hastText, rehypeMarkTerms, remarkHtmlAsText } from './plugins'

function CopyButton({ text }: { text: string }) {
  const [done, setDone] = useState(false)
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text)
      setDone(true)
      setTimeout(() => setDone(false), 1500)
    } catch {
      /* clipboard refused (insecure context): nothing to do */
    }
  }
  return (
    <button
      type="button"
      className="small copy-code"
      onClick={() => void copy()}
      data-testid="copy-code"
      aria-label="Copy code"
    >
      {done ? 'Copied' : 'Copy'}
    </button>
  )
}

const components: Components = {
  pre({ node, children, ...rest }: ComponentProps<'pre'> & { node?: unknown }) {
    const code = (node as { children?: Array<{ properties?: { className?: string[] } }> } | undefined)?.children?.[0]
    const lang = code?.properties?.className?.find((c) => c.startsWith('language-'))?.slice(9)
    return (
      <div className="code-block" data-testid="code-block">
        <div className="code-block-head">
          <span className="muted mono">{lang ?? 'text'}</span>
          <CopyButton text={hastText(node as never)} />
        </div>
        <pre {...rest}>{children}</pre>
      </div>
    )
  },
  // Links leave the app: never navigate the dashboard window itself.
  a({ node: _n, ...rest }: ComponentProps<'a'> & { node?: unknown }) {
    return <a {...rest} target="_blank" rel="noopener noreferrer" />
  },
  // GFM task-list boxes are read-only ticks; give them a name so a screen reader says which state they show
  input({ node: _n, ...rest }: ComponentProps<'input'> & { node?: unknown }) {
    return rest.type === 'checkbox' ? (
      <input {...rest} aria-label={rest.checked ? 'done' : 'not done'} />
    ) : (
      <input {...rest} />
    )
  },
  table({ node: _n, ...rest }: ComponentProps<'table'> & { node?: unknown }) {
    return (
      <div className="md-table-wrap">
        <table {...rest} />
      </div>
    )
  }
}

/**
 * A message body as GitHub-flavoured Markdown: tables, task lists, strikethrough, autolinks, highlighted code
 * with a copy button. Re-parses on every change, which is what lets a streamed reply render as it arrives.
 */
export const Markdown = memo(function Markdown({ text, terms }: { text: string; terms?: string[] }) {
  const rehype = useMemo(() => [[rehypeHighlight, { detect: false }], rehypeMarkTerms(terms ?? [])] as never, [terms])
  return (
    <div className="markdown" data-testid="markdown">
      <ReactMarkdown remarkPlugins={[remarkGfm, remarkHtmlAsText]} rehypePlugins={rehype} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  )
})
