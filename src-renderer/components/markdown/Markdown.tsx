import { Fragment, memo, useMemo, useState, type ComponentProps, type ReactElement } from 'react'
import renderMarkdown, { type Components } from 'react-markdown'
import remarkGfm from 'remark-gfm'
import { rehypeCodeHighlight } from './code-highlight'
import { hastText, rehypeMarkTerms, remarkHtmlAsText } from './plugins'
import { markdownAffordable } from './markdown-guard'
import { markdownBlocks } from './markdown-blocks'
import { showControls } from '@shared/contract/control-chars'

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

/**
 * A heading in a message is an h2 whatever its depth: the page's one h1 is its title, and text the model wrote may
 * open with `#` or jump from `#` to `###`, which as real levels would add a second h1 or skip one (axe
 * page-has-heading-one, heading-order). Every message heading stays a heading to jump to; its depth is kept as a
 * data attribute for styling.
 */
function messageHeading(depth: number) {
  return function MessageHeading({ node: _n, ...rest }: ComponentProps<'h2'> & { node?: unknown }) {
    return <h2 {...rest} data-md-depth={depth} />
  }
}

const components: Components = {
  h1: messageHeading(1),
  h2: messageHeading(2),
  h3: messageHeading(3),
  h4: messageHeading(4),
  h5: messageHeading(5),
  h6: messageHeading(6),
  pre({ node, children, ...rest }: ComponentProps<'pre'> & { node?: unknown }) {
    const code = (node as { children?: Array<{ properties?: { className?: string[] } }> } | undefined)?.children?.[0]
    const lang = code?.properties?.className?.find((c) => c.startsWith('language-'))?.slice(9)
    return (
      <div className="code-block" data-testid="code-block">
        <div className="code-block-head">
          <span className="muted mono">{lang ?? 'text'}</span>
          <CopyButton text={hastText(node as never)} />
        </div>
        {/* focusable: a long line scrolls sideways, and a keyboard must be able to scroll it */}
        <pre {...rest} tabIndex={0}>
          {children}
        </pre>
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

const remarkPlugins = [remarkGfm, remarkHtmlAsText]
const noTerms: string[] = []

/**
 * react-markdown's `Markdown` is a plain function (no hooks): call it to get the element tree we can keep. Text it fails
 * on (a stack overflow on deep nesting) is shown as plain text, whole: never a blank page. Its callers have checked
 * the whole body with markdown-guard.ts (markdownBody), which holds for every block of it.
 */
const render = (text: string, terms: string[]): ReactElement => {
  try {
    return renderMarkdown({
      children: text,
      remarkPlugins,
      rehypePlugins: terms.length ? [rehypeCodeHighlight, rehypeMarkTerms(terms)] : [rehypeCodeHighlight],
      components
    }) as ReactElement
  } catch {
    // a text the markdown pipeline chokes on still shows, as plain text
    return plain(text)
  }
}

const plain = (text: string): ReactElement => (
  <p className="md-plain" data-testid="markdown-plain">
    {text}
  </p>
)

/**
 * Build the highlighter (~37 grammars) and run the parser once while the app is idle, so the first transcript a
 * user opens does not pay for it (~80 ms on a slow machine).
 */
export function warmMarkdown(): void {
  render('**a**\n\n```ts\nconst a = 1\n```\n\n| a |\n|---|\n| 1 |\n\n- [x] b', noTerms)
}

/**
 * Rendered Markdown blocks by text (and marked terms), most recently used last. A saved message never changes, and a
 * streamed one only grows at its end, so reopening a transcript, scrolling a row back into view or the next delta of
 * a stream reuses the trees instead of parsing and highlighting again. Bounded: about two long transcripts' worth
 * of visited rows.
 */
const rendered = new Map<string, ReactElement>()
const RENDERED_MAX = 4000
/** Text held as keys, in characters: a few huge replies must not keep hundreds of MB alive. */
const RENDERED_MAX_CHARS = 8_000_000
/** Blocks above this are parsed each time they mount (rare, and their tree is the expensive thing to keep). */
const CACHE_BODY_MAX = 100_000
let renderedChars = 0

function renderCached(text: string, terms: string[]): ReactElement {
  if (text.length > CACHE_BODY_MAX) return render(text, terms)
  const key = terms.length ? `${terms.join('\u0000')}\u0001${text}` : text
  const hit = rendered.get(key)
  if (hit) {
    rendered.delete(key)
    rendered.set(key, hit)
    return hit
  }
  const el = render(text, terms)
  rendered.set(key, el)
  renderedChars += key.length
  while (rendered.size > RENDERED_MAX || renderedChars > RENDERED_MAX_CHARS) {
    const oldest = rendered.keys().next().value!
    rendered.delete(oldest)
    renderedChars -= oldest.length
  }
  return el
}

/**
 * A body's element tree, block by block (markdown-blocks.ts): every block but a streamed body's last (the one still
 * growing) comes from the cache. A body the parser cannot take in about linear time is plain text, whole. Checked once
 * here: a block is some of the body's lines, cut outside fenced code, so its counts are within the body's.
 */
export function markdownBody(text: string, terms: string[], saved: boolean): ReactElement {
  if (!markdownAffordable(text)) return plain(text)
  const blocks = markdownBlocks(text)
  if (blocks.length === 1) return saved ? renderCached(text, terms) : render(text, terms)
  const last = blocks.length - 1
  return (
    <>
      {blocks.map((b, i) => (
        <Fragment key={i}>
          {i > 0 && '\n' /* what the parser puts between top-level blocks: the same DOM as a whole parse */}
          {saved || i < last ? renderCached(b, terms) : render(b, terms)}
        </Fragment>
      ))}
    </>
  )
}

/**
 * A message body as GitHub-flavoured Markdown: tables, task lists, strikethrough, autolinks, highlighted code
 * with a copy button. A streamed reply re-renders on every change, parsing only its last block again; `saved`
 * bodies (persisted messages, which never change) come from the cache whole.
 */
export const Markdown = memo(function Markdown({
  text,
  terms = noTerms,
  saved = false
}: {
  text: string
  terms?: string[]
  saved?: boolean
}) {
  // a NUL or a colour sequence in a reply is drawn as its picture (␀, ␛), not as an empty box
  const body = useMemo(() => markdownBody(showControls(text), terms, saved), [text, terms, saved])
  return (
    <div className="markdown" data-testid="markdown">
      {body}
    </div>
  )
})
