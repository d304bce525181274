import type { SessionDetail, SessionRef } from '@shared/contract'
import { sessionHref } from '../../app/routes'
import { sessionLabel } from '../../lib/session-label'
import { useSessionLabel } from '../../stores/session-titles'
import { useSessionChildren } from '../../stores/transcript-meta'

// a segment without a title of its own is named like any untitled session (never by its id)
const label = (r: SessionRef) => sessionLabel({ title: r.title, at: r.startedAt })

/** Breadcrumb: parent › compression chain (root first) › this; branches, delegate and other children beside it. */
export function Lineage({ profile, detail }: { profile: string; detail: SessionDetail }) {
  const { chain, parent, branches, delegateChildren, otherChildren } = detail.lineage
  const self = detail.summary.id
  // Compression continuations are untitled upstream: name them after the chain ("<title> · part 2"), not by id.
  const chainName = chain.find((r) => r.title)?.title ?? detail.summary.preview ?? null
  const crumb = (r: SessionRef, i: number) => r.title || (chainName ? `${chainName} · part ${i + 1}` : label(r))
  // A plain root session has no lineage to show; repeating its title under the heading is noise.
  if (!parent && chain.length <= 1 && !branches.length && !delegateChildren.length && !otherChildren.length) return null
  return (
    <nav className="lineage" aria-label="Lineage" data-testid="lineage">
      {parent && (
        <>
          <a href={sessionHref(profile, parent.id)} data-testid="lineage-parent" title={`parent (${parent.kind})`}>
            ↑ <RefName profile={profile} r={parent} />
          </a>
          <span className="sep">›</span>
        </>
      )}
      {chain.length > 1 ? (
        chain.map((r, i) => (
          <span key={r.id} className="crumb">
            {r.id === self ? (
              <strong data-testid="lineage-self">{crumb(r, i)}</strong>
            ) : (
              <a
                href={sessionHref(profile, r.id)}
                data-testid="lineage-chain"
                title={`${r.id}${r.endReason ? ` · ${r.endReason}` : ''}`}
              >
                {crumb(r, i)}
              </a>
            )}
            {i < chain.length - 1 && (
              <span className="sep" title="compressed into">
                ⟶
              </span>
            )}
          </span>
        ))
      ) : (
        <strong data-testid="lineage-self">
          {sessionLabel({
            title: detail.summary.title,
            preview: detail.summary.preview,
            at: detail.summary.lastActiveAt
          })}
        </strong>
      )}
      {branches.length > 0 && (
        <span className="lineage-group">
          branches:{' '}
          {branches.map((b) => (
            <a key={b.id} href={sessionHref(profile, b.id)} data-testid="lineage-branch">
              <RefName profile={profile} r={b} />
            </a>
          ))}
        </span>
      )}
      {delegateChildren.length > 0 && (
        <span className="lineage-group">
          delegates:{' '}
          {delegateChildren.map((b) => (
            <DelegateLink key={b.id} profile={profile} parentId={self} child={b} />
          ))}
        </span>
      )}
      {otherChildren.length > 0 && (
        <span
          className="lineage-group"
          title="Child sessions upstream's list leaves out: a tool's, a reset's, unmarked ones"
        >
          other children:{' '}
          {otherChildren.map((b) => (
            <a key={b.id} href={sessionHref(profile, b.id)} data-testid="lineage-other" title={`${b.id} (${b.kind})`}>
              {label(b)}
            </a>
          ))}
        </span>
      )}
    </nav>
  )
}

/**
 * A parent or branch by the name the list, the heading and the Subagents page give it: its title, else its first
 * message. A lineage ref carries no preview, and an untitled parent is the usual case (upstream's CLI titles a
 * session only on `/title`), so "Untitled session" alone would name a session everything else names by its prompt.
 */
function RefName({ profile, r }: { profile: string; r: SessionRef }) {
  const named = useSessionLabel(profile, r.title ? null : r.id)
  return <>{r.title || named || label(r)}</>
}

/**
 * A delegate child by its name: its title, else its first message (upstream leaves children untitled; the first
 * message is the task it was given), else the subagent's goal; "Untitled session" only when it has none of them.
 */
function DelegateLink({ profile, parentId, child }: { profile: string; parentId: string; child: SessionRef }) {
  const named = useSessionLabel(profile, child.title ? null : child.id)
  const goal = useSessionChildren(profile, parentId).find((c) => c.childSessionId === child.id)?.goal ?? null
  const fromSession = named && !named.startsWith('Untitled session') ? named : null
  const text = child.title || fromSession || (goal ? sessionLabel({ preview: goal }) : label(child))
  return (
    <a href={sessionHref(profile, child.id)} data-testid="lineage-delegate" title={child.id}>
      {text}
    </a>
  )
}
