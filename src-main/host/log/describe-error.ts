/** One line for the log: the message, and the stack's first frame only (full stacks are noise, see log.ts). */
export function describeError(err: unknown): string {
  if (err instanceof Error) {
    const frame = err.stack
      ?.split('\n')
      .find((l) => l.trim().startsWith('at '))
      ?.trim()
    return `${err.name}: ${err.message}${frame ? ` (${frame})` : ''}`
  }
  try {
    return String(err)
  } catch {
    // a thrown object whose toString itself throws
    return 'non-printable error'
  }
}
