/**
 * Redaction that keeps two hidden values apart. A detector compares what it reads: two calls that
 * differ only in a page token (`&pageToken=…`, a fresh cursor each time) are two calls, and once each
 * token reads `[REDACTED]` they look like one call made again. `distinctRedactions` marks each hidden
 * value with a letter of its own (`[REDACTED:g]`, the same value the same letter for the life of the
 * function); `plainRedactions` turns the marks back into `[REDACTED]` for what people read. The
 * letters come from the order values were first seen, never from the values.
 */
import { REDACTED } from "./redact.js"

/** Letters past the hex digits, so a mark is never masked as an id. */
const LETTERS = "ghijklmnopqrstuvwxyz"

const letterOf = (n: number): string => {
  let out = ""
  let k = n
  do {
    out = LETTERS[k % LETTERS.length]! + out
    k = Math.floor(k / LETTERS.length) - 1
  } while (k >= 0)
  return out
}

/**
 * The values `redact` hid in `text`, in order, read from where its output and `text` part: null when
 * the output is not `text` with some spans replaced by the mark (the letters are then left out).
 */
const hiddenValues = (text: string, redacted: string): Array<string> | null => {
  const pieces = redacted.split(REDACTED)
  const last = pieces[pieces.length - 1]!
  if (!text.startsWith(pieces[0]!) || !text.endsWith(last)) return null
  const values: Array<string> = []
  let at = pieces[0]!.length
  for (let i = 1; i < pieces.length; i++) {
    const end = i === pieces.length - 1 ? text.length - last.length : text.indexOf(pieces[i]!, at)
    if (end < at) return null
    values.push(text.slice(at, end))
    at = end + pieces[i]!.length
  }
  return values
}

/** `redact`, with each hidden value marked by its own letter (see the module's comment). */
export const distinctRedactions = (redact: (text: string) => string): ((text: string) => string) => {
  const letters = new Map<string, string>()
  return (text) => {
    const redacted = redact(text)
    if (!redacted.includes(REDACTED)) return redacted
    const values = hiddenValues(text, redacted)
    if (values === null) return redacted
    const pieces = redacted.split(REDACTED)
    return pieces.reduce((out, piece, i) => {
      const value = values[i - 1]!
      let letter = letters.get(value)
      if (letter === undefined) letters.set(value, (letter = letterOf(letters.size)))
      return `${out}[REDACTED:${letter}]${piece}`
    })
  }
}

/** A mark of `distinctRedactions`, whole or cut short at its end. */
const MARK = /\[REDACTED:[g-z]*\]?/g

/** The marks of `distinctRedactions` as the plain `[REDACTED]`. */
export const plainRedactions = (text: string): string => (text.includes("[REDACTED:") ? text.replace(MARK, REDACTED) : text)
