import { memo, useState, type ReactNode } from 'react'
import { splitMergedSummary, type Message } from '@shared/contract'
import { ChevronIcon } from '../../components/icons'
import { Highlighted } from '../../components/Snippet'
import { durationLabel, formatDateTime, messageTime } from '../../lib/format'
import { Markdown } from '../../components/markdown/Markdown'
import { editAsDiff, ToolOutput } from './ToolOutput'
import { DelegationCards, delegationIdOf } from './DelegationCards'
import { DelegationNoticeCard } from './DelegationNoticeCard'
import { ProcessNoticeCard } from './ProcessNoticeCard'
import { StoppedTurnCard } from './StoppedTurnCard'
import { classifyRow, mergedSummaryOf, unreadText } from '@shared/contract/notice-rows'
import { CallArguments, CutMergedRow, ToolResultOutput, UnreadMessage } from './ShowAll'
import { callDuration, useToolPairs } from './tool-pairs'
import { failureOf, parseToolResult, pathArg } from '@shared/contract/tool-result'
import { toolResultStatus } from '@shared/contract/tool-result-text'
import { Badge } from '../../components/Badge'
import { imageSegments } from './image-chips'
import { replyParts } from './reply-media'
import { argsAreJsonObject, argsPreview, decodeUnicodeEscapes } from '@shared/contract/tool-args'
import { parseJsonOr } from '@shared/contract/errors'
import { showControls } from '@shared/contract/control-chars'

function Fold({
  label,
  children,
  testId,
  defaultOpen = false
}: {
  label: React.ReactNode
  children: React.ReactNode
  testId?: string
  defaultOpen?: boolean
}) {
  const [open, setOpen] = useState(defaultOpen)
  return (
    <div className={`fold${open ? ' open' : ''}`} data-testid={testId}>
      <button
        className="fold-head"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        data-testid={testId ? `${testId}-toggle` : undefined}
      >
        <ChevronIcon open={open} />
        {label}
      </button>
      {open && <div className="fold-body">{children}</div>}
    </div>
  )
}

function prettyArgs(raw: string): string {
  const v = parseJsonOr(raw, undefined)
  return v === undefined ? raw : JSON.stringify(v, null, 2)
}

/** A call's arguments: an edit as its diff, else the JSON pretty-printed (only its start, readable, when cut). */
function ArgumentsView({ tool, args, cut }: { tool: string; args: string; cut: boolean }) {
  const diff = cut ? null : editAsDiff(args)
  // arguments that are not a JSON object: upstream answered with an error and did not run the tool
  const invalid = !cut && !argsAreJsonObject(args)
  return (
    <>
      <div className="tool-section-label" data-testid="tool-args-label">
        {diff ? 'edit' : invalid ? 'arguments · not valid JSON, as the model sent them' : 'arguments'}
      </div>
      {diff ? (
        <ToolOutput text={diff} tool={tool} />
      ) : (
        // focusable: a long argument scrolls sideways, and a keyboard must be able to scroll it
        <pre className="code" tabIndex={0}>
          {cut ? decodeUnicodeEscapes(args) : prettyArgs(args)}
        </pre>
      )}
    </>
  )
}

export function ToolCallView({
  id,
  name,
  args,
  call,
  index,
  argsBytes,
  live
}: {
  id: string
  name: string
  args: string
  /** The assistant row making the call: its timestamp starts the call's duration. */
  call?: Message
  /** Which of `call`'s calls this is, and the arguments' full size when the page holds only their start. */
  index?: number
  argsBytes?: number
  /** A streaming turn's result text (not saved yet, so not in the transcript's rows). */
  live?: string | null
}) {
  const pairs = useToolPairs()
  const saved = call ? pairs.resultOf(call, id) : undefined
  const result = saved ?? (live != null ? { content: live, toolName: name, id: undefined } : undefined)
  const took = call && saved ? callDuration(call, saved) : null
  const size = result ? (result.content ?? '').length : null
  const view = result ? parseToolResult(result.content ?? '', result.toolName ?? name) : null
  const failed = view ? failureOf(view) : null
  // the outcome on the folded row too (exit 0, 12 lines, 3 matches), as a reader scanning the calls wants it
  const outcome = view && !failed ? toolResultStatus(view) : null
  return (
    <Fold
      testId="tool-call"
      label={
        <>
          <span className="tool-name mono">{name}</span>
          <span className="muted mono tool-args-preview">{argsPreview(args)}</span>
          {failed && (
            <Badge tone="err" testId="tool-failed" title="The call failed: its result says why">
              {failed}
            </Badge>
          )}
          {outcome && (
            <span className="muted small tool-outcome" data-testid="tool-outcome">
              {outcome}
            </span>
          )}
          {took != null && (
            <span className="muted small tool-took" data-testid="tool-duration" title="From the call to its result">
              {durationLabel(took)}
            </span>
          )}
        </>
      }
    >
      {call && index !== undefined ? (
        <CallArguments
          call={call}
          index={index}
          args={args}
          bytes={argsBytes}
          view={(text, cut) => <ArgumentsView tool={name} args={text} cut={cut} />}
        />
      ) : (
        <ArgumentsView tool={name} args={args} cut={false} />
      )}
      {result && (
        <div data-testid="tool-result" data-message-id={result.id}>
          <div className="tool-section-label">result · {size!.toLocaleString()} chars</div>
          {'sessionId' in result ? (
            <ToolResultOutput m={result} tool={result.toolName ?? name} path={pathArg(args) ?? undefined} />
          ) : (
            <ToolOutput text={result.content ?? ''} tool={result.toolName ?? name} path={pathArg(args)} />
          )}
        </div>
      )}
    </Fold>
  )
}

/** A user message; its "[screenshot]" lines (images upstream's flush left out of state.db) as image chips. */
function UserBody({ text, terms }: { text: string; terms: string[] | undefined }) {
  const segments = imageSegments(text)
  if (!segments) return <Highlighted text={text} terms={terms} />
  return (
    <>
      {segments.map((s, i) =>
        s.kind === 'image' ? (
          <div key={i}>
            <span
              className="badge image-chip"
              data-testid="image-chip"
              title="An image sent with this message; the session keeps a placeholder, not the image"
            >
              image
            </span>
          </div>
        ) : (
          <div key={i}>
            <Highlighted text={s.text} terms={terms} />
          </div>
        )
      )}
    </>
  )
}

export function Reasoning({ text }: { text: string }) {
  return (
    <Fold testId="reasoning" label={<span className="muted">Reasoning · {text.length.toLocaleString()} chars</span>}>
      <div className="reasoning-text">{showControls(text)}</div>
    </Fold>
  )
}

/** A row compaction took out of the model's context: shown, as upstream's own display shows it, and marked. */
function CompactedBadge() {
  return (
    <span className="badge" data-testid="compacted-badge" title="Compacted: no longer part of what the model is sent">
      compacted
    </span>
  )
}

/** A compression summary, folded: what the compressor kept of the earlier conversation, not anyone's words. */
function SummaryFold({ text, terms, cut }: { text: string; terms: string[] | undefined; cut?: ReactNode }) {
  return (
    <Fold
      testId="compaction-summary"
      label={<span className="muted">Compaction summary · {text.length.toLocaleString()} chars</span>}
    >
      <Markdown text={text} terms={terms} saved />
      {cut}
    </Fold>
  )
}

/** A message's role and time, and what else its head shows (`children`). */
function MessageHead({ m, children }: { m: Pick<Message, 'role' | 'timestamp'>; children?: ReactNode }) {
  return (
    <div className="msg-head">
      <span className="msg-role">{m.role}</span>
      <time className="muted" title={formatDateTime(m.timestamp)}>
        {messageTime(m.timestamp)}
      </time>
      {children}
    </div>
  )
}

const AUDIO = /\.(?:ogg|opus|mp3|wav|m4a|flac)$/i

/** A reply as Markdown; the files it sent through a messaging gateway (`MEDIA:` lines) as attachment chips. */
function ReplyBody({ text, terms }: { text: string; terms: string[] | undefined }) {
  const parts = replyParts(text)
  if (parts.length === 1 && parts[0]!.kind === 'text') return <Markdown text={parts[0]!.text} terms={terms} saved />
  return (
    <>
      {parts.map((p, i) =>
        p.kind === 'text' ? (
          <Markdown key={i} text={p.text} terms={terms} saved />
        ) : (
          <div key={i}>
            <span
              className="badge image-chip"
              data-testid="reply-media"
              title="A file this reply sent as an attachment through the messaging gateway"
            >
              {p.voice && AUDIO.test(p.path) ? 'voice message' : 'attachment'} · <span className="mono">{p.path}</span>
            </span>
          </div>
        )
      )}
    </>
  )
}

/** A message's own words: a user's as typed, anyone else's as Markdown. */
function MessageBody({ role, text, terms }: { role: string; text: string; terms: string[] | undefined }) {
  return (
    <div className="msg-body">
      {role === 'user' ? <UserBody text={text} terms={terms} /> : <ReplyBody text={text} terms={terms} />}
    </div>
  )
}

/** What a steer is, as the composer offers it (Composer.tsx). */
const STEER_TITLE = 'Steer: sent while a turn ran and added to it at its next step'

/** One persisted message; tool results and notices are compact, reasoning is folded. */
export const MessageItem = memo(function MessageItem({
  m,
  focused,
  terms
}: {
  m: Message
  focused: boolean
  /** Search terms to mark (the hit that opened this page). */ terms?: string[]
}) {
  const cls = `message role-${m.role}${focused ? ' focused' : ''}`
  const common = {
    'data-testid': 'message',
    'data-message-id': m.id,
    'data-role': m.role,
    'data-focused': focused || undefined,
    // j/k and Home/End move focus from message to message
    tabIndex: -1
  } as const
  // a message whose text the page did not read (over its bound): said so, and shown as read in full once read whole
  // (with its reasoning or calls, the row's own view: they were read, and show beside the cut notice-less text)
  const unread = m.reasoning || m.toolCalls?.length ? null : unreadText(m)
  if (unread)
    return (
      <UnreadMessage
        m={m}
        what={unread}
        shell={(children) => (
          <div className={cls} {...common}>
            <MessageHead m={m} />
            {children}
          </div>
        )}
        whole={(text) => (
          <MessageItem m={{ ...m, content: text, contentBytes: undefined }} focused={focused} terms={terms} />
        )}
      />
    )
  // what the row is when not simply a message of its role: one reading shared with the exports (notice-rows.ts)
  const row = classifyRow(m)
  if (row?.kind === 'summary') {
    return (
      <div className={`${cls} compaction-summary`} {...common}>
        <SummaryFold text={m.content ?? ''} terms={terms} />
      </div>
    )
  }
  // A summary the compressor merged into a kept message: the message's own words, then the summary folded.
  const merged = mergedSummaryOf(m)
  const body = merged ? merged.kept : m.content
  if (row?.kind === 'resumed') {
    return (
      <div className={`${cls} notice`} {...common} data-kind="auto_continue" title={m.content ?? ''}>
        <span className="notice-icon" aria-hidden>
          ◆
        </span>
        <span className="notice-text">Resumed an interrupted turn</span>
      </div>
    )
  }
  if (row?.kind === 'delegation') {
    return (
      <>
        <DelegationNoticeCard m={m} notice={row.notice} common={common} terms={terms} />
        <DelegationCards delegationId={row.notice.delegationId} />
      </>
    )
  }
  if (row?.kind === 'process') return <ProcessNoticeCard m={m} notice={row.notice} common={common} terms={terms} />
  if (row?.kind === 'stopped') return <StoppedTurnCard m={m} stop={row.stop} common={common} terms={terms} />
  // a note to the model reaches a transcript only by a path that does not hide it (the store's reads do): its text
  if (row?.kind === 'notice' || row?.kind === 'system_note') {
    const delegation = delegationIdOf(m.content)
    return (
      <>
        <div
          className={`${cls} notice`}
          {...common}
          data-kind={m.displayKind ?? (m.role === 'user' ? 'upstream_delegation' : undefined)}
        >
          <span className="notice-icon" aria-hidden>
            ◆
          </span>
          <span className="notice-text">
            <Highlighted text={m.content ?? ''} terms={terms} />
          </span>
        </div>
        {delegation && <DelegationCards delegationId={delegation} />}
      </>
    )
  }
  if (m.role === 'tool') {
    return (
      <div className={cls} {...common}>
        {/* A search hit inside a tool result opens unfolded: the match is what the user came for. */}
        <Fold
          testId="tool-result"
          defaultOpen={focused}
          label={
            <>
              <span className="muted">result of</span> <span className="tool-name mono">{m.toolName ?? 'tool'}</span>
              <span className="muted"> · {(m.content ?? '').length.toLocaleString()} chars</span>
              {m.compacted && <CompactedBadge />}
            </>
          }
        >
          <ToolResultOutput m={m} terms={terms} />
        </Fold>
      </div>
    )
  }
  return (
    <div className={cls} {...common}>
      <MessageHead m={m}>
        {m.finishReason && !['stop', 'tool_calls', 'end_turn', 'tool_use'].includes(m.finishReason) && (
          <span className="badge badge-warn">{m.finishReason}</span>
        )}
        {row?.kind === 'steer' && (
          <span className="badge badge-neutral" data-testid="steer-badge" title={STEER_TITLE}>
            steer
          </span>
        )}
        {m.compacted && <CompactedBadge />}
      </MessageHead>
      {m.reasoning && <Reasoning text={m.reasoning} />}
      {merged && m.contentBytes !== undefined ? (
        // cut by the host: the kept words and the summary's start, and "Show all" under the summary for the rest
        <CutMergedRow
          m={m}
          view={(text, cut) => {
            const parts = splitMergedSummary(text) ?? merged
            return (
              <>
                {parts.kept && <MessageBody role={m.role} text={parts.kept} terms={terms} />}
                <SummaryFold text={parts.summary} terms={terms} cut={cut} />
              </>
            )
          }}
        />
      ) : (
        <>
          {body && <MessageBody role={m.role} text={body} terms={terms} />}
          {merged && <SummaryFold text={merged.summary} terms={terms} />}
        </>
      )}
      {m.toolCallsMalformed && (
        <div className="msg-body muted" data-testid="message-malformed-calls">
          (a tool-call record was stored here in a form that cannot be read as calls)
        </div>
      )}
      {!body && !m.reasoning && !merged && !m.toolCalls?.length && !m.toolCallsMalformed && (
        <div className="msg-body muted" data-testid="message-empty">
          (empty message)
        </div>
      )}
      {m.toolCalls?.map((c, i) => (
        <ToolCallView
          key={c.id}
          id={c.id}
          name={c.name}
          args={c.arguments}
          call={m}
          index={i}
          argsBytes={c.argumentsBytes}
        />
      ))}
    </div>
  )
})
