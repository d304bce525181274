import { useEffect, useState } from 'react'
import type { FollowUpEstimate, Subagent } from '@shared/contract'
import { Dialog } from '../../components/Dialog'
import { MoneyText } from '../../components/MoneyText'
import { clearSentDraft, useDraft } from '../../lib/drafts'
import { formatCount } from '../../lib/format'
import { LARGE_TRANSCRIPT_TOKENS, estimateFollowUp, followUp } from '../../stores/subagents'
import { clearFollowUpStream, followUpKey, useFollowUpStream } from '../../stores/follow-up-stream'
import { pushToast } from '../../stores/toasts'
import { useSessionLabel } from '../../stores/session-titles'
import { sessionLabel } from '../../lib/session-label'

/**
 * Follow up a retained (or running) child. The size and estimated cost of re-reading its transcript are
 * shown before sending, with a warning when large; a failed send keeps the text and shows why inline.
 */
export function FollowUpDialog({ child, onClose }: { child: Subagent; onClose: () => void }) {
  // closing the dialog (Esc, Cancel, a click outside) keeps what was typed for next time
  const draftKey = `followup:${child.profile}/${child.childId}`
  const [text, setText] = useDraft(draftKey)
  const [est, setEst] = useState<FollowUpEstimate | null>(null)
  const [estLoading, setEstLoading] = useState(true)
  const [error, setError] = useState<string | null>(null)
  const [sending, setSending] = useState(false)
  // The child's reply streams in here while it runs, and stays once it is done.
  const streamed = useFollowUpStream((s) => s[followUpKey(child.profile, child.childId)] ?? '')
  const [reply, setReply] = useState<string | null>(null)
  useEffect(() => {
    let live = true
    void estimateFollowUp(child.profile, child.childId).then((e) => {
      if (live) {
        setEst(e)
        setEstLoading(false)
      }
    })
    return () => {
      live = false
    }
  }, [child.profile, child.childId])
  // named like the child's session everywhere else (title, else the task it was given), never by its id
  const label = useSessionLabel(child.profile, child.childSessionId)
  const name =
    label && !label.startsWith('Untitled session')
      ? label
      : sessionLabel({ preview: child.goal, at: child.dispatchedAt })
  const large = !!est && est.estTokens >= LARGE_TRANSCRIPT_TOKENS

  const send = async () => {
    if (!text.trim() || sending) return
    setSending(true)
    setError(null)
    setReply(null)
    clearFollowUpStream(child.profile, child.childId)
    const r = await followUp(child.profile, child.childId, text)
    setSending(false)
    if (r.ok) {
      // the draft as it is now (the dialog may have been closed and opened again meanwhile), if still what was sent
      clearSentDraft(draftKey, text)
      if (r.result.mode === 'queued') {
        pushToast('info', 'Follow-up queued for the running child')
        onClose()
      } else setReply(r.result.summary ?? '(the child returned no text)')
    } else setError(r.error)
  }

  return (
    <Dialog
      title={`Follow up “${name}”`}
      onClose={onClose}
      testId="followup-dialog"
      footer={
        <>
          <button onClick={onClose} data-testid="followup-cancel">
            {reply !== null ? 'Close' : 'Cancel'}
          </button>
          <button
            className={large ? 'primary warn' : 'primary'}
            onClick={() => void send()}
            disabled={!text.trim() || sending}
            data-testid="followup-send"
          >
            {sending ? 'Sending…' : large ? 'Send anyway' : 'Send'}
          </button>
        </>
      }
    >
      <p className="muted clamp-2" title={child.goal}>
        Goal: {child.goal}
      </p>
      <div className="estimate" data-testid="followup-estimate" data-large={large || undefined}>
        {estLoading ? (
          'Estimating transcript size…'
        ) : est ? (
          <>
            Resuming re-reads <b>{est.messages}</b> messages (~{formatCount(est.chars)} chars, ~
            {formatCount(est.estTokens)} tokens), est. <MoneyText money={est.estCost} /> per call.
          </>
        ) : (
          'Size estimate unavailable.'
        )}
      </div>
      {large && (
        <div className="warn-box" role="alert" data-testid="followup-warning">
          Large transcript: this follow-up will cost noticeably more than a fresh task.
        </div>
      )}
      <textarea
        rows={5}
        value={text}
        onChange={(e) => setText(e.target.value)}
        placeholder="Message to the child (⌘/Ctrl+Enter sends)"
        data-testid="followup-input"
        onKeyDown={(e) => {
          if (e.key === 'Enter' && (e.metaKey || e.ctrlKey)) {
            e.preventDefault()
            void send()
          }
        }}
      />
      {error && (
        <div className="err-text" role="alert" data-testid="followup-error">
          {error}
        </div>
      )}
      {(sending || reply !== null) && (streamed || reply) ? (
        <div
          className="followup-reply"
          data-testid="followup-reply"
          data-done={reply !== null || undefined}
          aria-live="polite"
        >
          <div className="muted small">{reply !== null ? 'Reply' : 'Replying…'}</div>
          <div className="code">{reply ?? streamed}</div>
        </div>
      ) : null}
    </Dialog>
  )
}
