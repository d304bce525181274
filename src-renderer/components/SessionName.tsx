import { sessionHref } from '../app/routes'
import { shortId } from '../lib/format'
import { useSessionTitle } from '../stores/session-titles'

/** A link to a session by its name (title or first words), the id only as a tooltip and while the name loads. */
export function SessionName({ profile, id, testId }: { profile: string; id: string; testId?: string }) {
  const title = useSessionTitle(profile, id)
  return (
    <a href={sessionHref(profile, id)} className={title ? 'session-name' : 'mono'} title={id} data-testid={testId}>
      {title ?? shortId(id, 12)}
    </a>
  )
}
