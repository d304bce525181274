/**
 * files/ — writing a file whole: a temp file renamed over it, so a reader (or upstream Hermes in another process) never
 * sees half of it, with the mode each file's owner rule gives it and, where asked, a symlink kept. Every writer of a
 * home's or the app's files that replaces one whole goes through it.
 */
export { replaceFile } from './replace-file'
