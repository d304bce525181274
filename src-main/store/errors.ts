/** Store errors are contract errors, so the host maps them to `{code, message, field}` unchanged. */
import { CaduceusError } from '@shared/contract'

/** A session ended with `compression` is read-only; its continuation takes new messages (hermes-spec §1.6). */
export class CompressionSessionClosedError extends CaduceusError {
  constructor(readonly sessionId: string) {
    super(
      'refused',
      `Session ${sessionId} was closed by compression; append to its continuation instead (resolve the resume id first).`,
      'sessionId'
    )
    this.name = 'CompressionSessionClosedError'
  }
}

export const notFound = (id: string) => new CaduceusError('not_found', `Unknown session: ${id}`, 'sessionId')
export const invalid = (message: string, field?: string) => new CaduceusError('invalid_input', message, field)

export function requireId(id: unknown, field = 'sessionId'): string {
  if (typeof id !== 'string' || id.trim() === '') throw invalid('session id is required', field)
  if (id.length > 512) throw invalid('session id is too long (max 512)', field)
  return id
}

/**
 * A write, a read (or a registry open) after the store or its host closed: refused before anything touches the file, so
 * a late task (a background child, a debounce) never re-creates a state.db, or its folder, the user may have moved or
 * deleted since, and a late read is told why rather than failing inside the driver.
 */
export class StoreClosedError extends CaduceusError {
  constructor(
    readonly profile: string,
    use: 'write' | 'read' = 'write'
  ) {
    super(
      'unavailable',
      `Profile '${profile}': its state.db was closed (the host shut down, or the profile was removed); nothing was ${use === 'read' ? 'read' : 'written'}.`
    )
    this.name = 'StoreClosedError'
  }
}
