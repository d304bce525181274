import { useEffect, useRef, useState } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { Badge } from '../components/Badge'
import { MoneyText } from '../components/MoneyText'
import { openTranscript, useTranscript } from '../stores/transcript'
import { refreshTranscriptMeta } from '../stores/transcript-live'
import { useMessageWindow } from '../stores/transcript-window'
import { useTranscriptMeta } from '../stores/transcript-meta'
import { sendMessage, turnsForSession, useTurns } from '../stores/turns'
import { updateSession } from '../stores/sessions'
import { useBusyInputMode } from '../stores/settings'
import { ChildrenPanel } from './session/ChildrenPanel'
import { ExportSessionButton } from '../components/ExportImport'
import { Composer } from './session/Composer'
import { CostBreakdown } from './session/CostBreakdown'
import { ChainCost, chainTotal } from './session/ChainCost'
import { Lineage } from './session/Lineage'
import { MetaPanel } from './session/MetaPanel'
import { Transcript } from './session/Transcript'
import { SessionNotFound } from './session/NotFound'
import { TitleEditor, type TitleRefusal } from './session/TitleEditor'
import { titleRefusal } from './session/title-refusal'
import { DeleteButton } from './session/DeleteButton'
import { useConnection } from '../stores/connection'
import { getApi } from '../api'
import { navigate } from '../app/router'
import { dialogOpen } from '../components/Dialog'
import { sessionLabel } from '../lib/session-label'

interface Props {
  profile: string
  sessionId: string
  messageId: number | null
}

export function SessionPage({ profile, sessionId, messageId }: Props) {
  useEffect(() => {
    void openTranscript(profile, sessionId, messageId)
  }, [profile, sessionId, messageId])
  const { error, pageNotFound } = useTranscript(
    useShallow((s) => ({
      error: s.error,
      pageNotFound: s.profile === profile && s.sessionId === sessionId && s.notFound
    }))
  )
  // the first page is on its way (a failed one leaves an empty window and the error)
  const loading = !useMessageWindow(profile, sessionId, () => true)
  const { detail, cost, chainCosts, costSettled, children, gone } = useTranscriptMeta(profile, sessionId)
  const notFound = pageNotFound || gone
  const connected = useConnection((s) => s.state === 'connected')
  const running = useTurns((s) => turnsForSession(s, profile, sessionId).find((t) => t.status === 'running') ?? null)
  const busyMode = useBusyInputMode(profile)
  // a queued message about to start (its agent being built) holds the session though no turn shows running yet
  const queuedAhead = useTurns((s) => turnsForSession(s, profile, sessionId).some((t) => t.status === 'queued'))
  const [showCosts, setShowCosts] = useState(false)
  // Narrow windows fold the side panel into a drawer; the button only shows there (CSS).
  const [sideOpen, setSideOpen] = useState(false)
  const sideToggle = useRef<HTMLButtonElement>(null)
  // Escape closes the drawer (focus back on its button) before it means "back to the list" (app/keyboard.ts, which
  // listens later, in the bubbling phase). In a wide window the details are a column, not a drawer, and the button is
  // hidden: Escape keeps its page meaning there.
  useEffect(() => {
    if (!sideOpen) return
    const onKey = (e: KeyboardEvent) => {
      const toggle = sideToggle.current
      if (e.key !== 'Escape' || dialogOpen() || !toggle || getComputedStyle(toggle).display === 'none') return
      e.preventDefault()
      e.stopPropagation()
      setSideOpen(false)
      toggle.focus()
    }
    window.addEventListener('keydown', onKey, true)
    return () => window.removeEventListener('keydown', onKey, true)
  }, [sideOpen])
  const summary = detail?.summary
  const title = summary
    ? sessionLabel({ title: summary.title, preview: summary.preview, at: summary.lastActiveAt })
    : sessionId
  // a compression chain is one conversation: its header shows what the whole of it cost
  const chain = detail?.lineage.chain ?? []
  const whole = chainCosts && chain.length > 1 ? chainTotal(chainCosts) : null
  const headCost = whole ?? cost?.inclusive ?? summary?.cost
  const rename = async (t: string | null): Promise<true | TitleRefusal> => {
    try {
      await getApi().call('sessions.update', { profile, sessionId, title: t })
      await refreshTranscriptMeta()
      return true
    } catch (err) {
      return titleRefusal(err, profile, t)
    }
  }
  if (notFound) return <SessionNotFound profile={profile} sessionId={sessionId} />

  return (
    <div className={`session-page${sideOpen ? ' side-open' : ''}`}>
      <div className="session-main">
        <div className="session-head">
          <div className="session-title">
            {summary ? (
              <TitleEditor title={title} onSave={rename} />
            ) : (
              <h1 data-testid="session-title" title={title}>
                {title}
              </h1>
            )}
            <Badge tone="accent">{profile}</Badge>
            {summary && <Badge>{summary.source}</Badge>}
            {summary?.archived && <Badge tone="warn">archived</Badge>}
            {summary && costSettled && headCost && headCost.status !== 'none' && (
              <MoneyText
                money={headCost}
                testId="session-head-cost"
                custom={whole ? chainCosts!.some((c) => c.customPrice) : cost ? cost.customPrice : summary.customPrice}
              />
            )}
            {whole && (
              <span className="muted small" data-testid="session-head-cost-scope">
                all {chain.length} parts
              </span>
            )}
            <span className="spacer" />
            <button
              ref={sideToggle}
              className="small side-toggle"
              aria-expanded={sideOpen}
              onClick={() => setSideOpen(!sideOpen)}
              data-testid="session-details-toggle"
            >
              {sideOpen ? 'Hide details' : 'Details'}
              {children.length > 0 && <span className="count">{children.length}</span>}
            </button>
            {summary && <ExportSessionButton profile={profile} sessionId={sessionId} lineage={chain.length > 1} />}
            {summary && (
              <button
                className="small"
                data-testid="session-pin"
                aria-pressed={summary.pinned}
                onClick={() =>
                  void updateSession({ profile, sessionId, pinned: !summary.pinned }).then(refreshTranscriptMeta)
                }
              >
                {summary.pinned ? '★ Pinned' : '☆ Pin'}
              </button>
            )}
            {summary && (
              <button
                className="small"
                data-testid="session-archive"
                onClick={() =>
                  void updateSession({ profile, sessionId, archived: !summary.archived }).then(refreshTranscriptMeta)
                }
              >
                {summary.archived ? 'Unarchive' : 'Archive'}
              </button>
            )}
            {summary && <DeleteButton profile={profile} sessionId={sessionId} title={title} />}
          </div>
          {detail && <Lineage profile={profile} detail={detail} />}
        </div>
        {error && !loading && (
          <div className="err-text pad-s" role="alert">
            {error}
          </div>
        )}
        <Transcript profile={profile} sessionId={sessionId} />
        <Composer
          key={`${profile}/${sessionId}`}
          draftKey={`session:${profile}/${sessionId}`}
          running={running}
          busyMode={busyMode}
          queuedAhead={queuedAhead}
          disabled={!connected || !summary}
          placeholder={!connected ? 'Not connected to the host — messages cannot be sent right now' : undefined}
          onSend={async (text, o) => {
            const handle = await sendMessage(profile, sessionId, text, o)
            // an earlier part of a compressed conversation goes on in its latest part (the host resumes the tip):
            // follow the message there, or it and its reply would happen out of sight
            if (handle && handle.sessionId !== sessionId)
              navigate({ page: 'session', profile: handle.profile, sessionId: handle.sessionId, messageId: null })
            return handle != null
          }}
        />
      </div>
      <aside className="session-side" aria-label="Session details">
        {/* drawer mode only (CSS): the drawer covers the header's Details button */}
        <button
          className="small side-close"
          onClick={() => {
            setSideOpen(false)
            sideToggle.current?.focus()
          }}
          data-testid="session-details-close"
        >
          Hide details
        </button>
        {detail ? (
          <MetaPanel detail={detail} cost={cost} />
        ) : (
          loading && <div className="panel muted pad-s">Loading details…</div>
        )}
        {whole && <ChainCost profile={profile} chain={chain} costs={chainCosts!} current={sessionId} />}
        <ChildrenPanel items={children} />
        {cost &&
          (showCosts ? (
            <CostBreakdown cost={cost} onHide={() => setShowCosts(false)} />
          ) : (
            <button className="link" onClick={() => setShowCosts(true)} data-testid="show-cost-breakdown">
              Show cost breakdown
            </button>
          ))}
      </aside>
    </div>
  )
}
