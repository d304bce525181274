import { useEffect, useState } from 'react'
import type { FollowUpEstimate, Subagent } from '@shared/contract'
import { Dialog } from '../../components/Dialog'
import { MoneyText } from '../../components/MoneyText'
import { useDraft } from '../../lib/drafts'
import { formatCount } from '../../lib/format'
import { LARGE_TRANSCRIPT_TOKENS, estimateFollowUp, followUp } from '../../stores/subagents'
import { pushToast } from '../../stores/toasts'

/**
 * Follow up a retained (or running) child. The size and estimated cost of re-reading its transcript are
 * shown before sending, with a warning when large; a failed send keeps the text and shows why inline.
 */
export function FollowUpDialog({ child, onClose }: { child: Subagent; onClose: () => void }) {
  // closing the dialog (Esc, Cancel, a click outside) keeps what was typed for next time
  const [text, setText] = useDraft(`followup:${child.profile}/${child.childId}`)
  const [est, setEst] = useState<FollowUpEstimate | null>(null)
  const [estLoading, setEstLoading] = useState(true)
  const [error, setError] = useState<string | null>(null)
  const [sending, setSending] = useState(false)
  useEffect(() => {
    let live = true
    void estimateFollowUp(child.profile, child.childId).then((e) => { if (live) { setEst(e); setEstLoading(false) } })
    return () => { live = false }
  }, [child.profile, child.childId])
  const large = !!est && est.estTokens >= LARGE_TRANSCRIPT_TOKENS

  const send = async () => {
    if (!text.trim() || sending) return
    setSending(true)
    setError(null)
    const r = await followUp(child.profile, child.childId, text)
    setSending(false)
    if (r.ok) {
      setText('')
      pushToast('info', r.result.mode === 'queued' ? 'Follow-up queued for the running child' : 'Follow-up delivered')
      onClose()
    } else setError(r.error)
  }

  return (
    <Dialog title={`Follow up ${child.childId}`} onClose={onClose} testId="followup-dialog"
      footer={<>
        <button onClick={onClose} data-testid="followup-cancel">Cancel</button>
        <button className={large ? 'primary warn' : 'primary'} onClick={() => void send()} disabled={!text.trim() || sending} data-testid="followup-send">
          {sending ? 'Sending…' : large ? 'Send anyway' : 'Send'}
        </button>
      </>}>
      <p className="muted clamp-2" title={child.goal}>Goal: {child.goal}</p>
      <div className="estimate" data-testid="followup-estimate" data-large={large || undefined}>
        {estLoading ? 'Estimating transcript size…' : est ? (
          <>Resuming re-reads <b>{est.messages}</b> messages (~{formatCount(est.chars)} chars, ~{formatCount(est.estTokens)} tokens), est. <MoneyText money={est.estCost} /> per call.</>
        ) : 'Size estimate unavailable.'}
      </div>
      {large && <div className="warn-box" role="alert" data-testid="followup-warning">Large transcript: this follow-up will cost noticeably more than a fresh task.</div>}
      <textarea rows={5} value={text} onChange={(e) => setText(e.target.value)} placeholder="Message to the child (⌘/Ctrl+Enter sends)" data-testid="followup-input"
        onKeyDown={(e) => { if (e.key === 'Enter' && (e.metaKey || e.ctrlKey)) { e.preventDefault(); void send() } }} />
      {error && <div className="err-text" role="alert" data-testid="followup-error">{error}</div>}
    </Dialog>
  )
}
