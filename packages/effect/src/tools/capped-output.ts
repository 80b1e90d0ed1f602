/**
 * Output of a command kept within a fixed size while it streams: the first half of the budget
 * is kept as it arrives, the rest is a rolling tail. Memory stays bounded however much the
 * command writes (`yes` writes gigabytes), and the model still sees how it began and ended.
 *
 * With a redactor, secrets are removed before the cut, never after: a key the cut split in two
 * would no longer be recognised, and most of it would reach the model. So head and tail each keep
 * `REDACT_MARGIN_CHARS` more than they show; the redactor reads the head with its margin (and the
 * tail with its own), and only then is each cut to its share. A secret shorter than the margin is
 * therefore always whole when it is redacted.
 */
export interface CappedOutput {
  readonly push: (chunk: string) => void
  /** Head, a note of how many characters were dropped, and tail (redacted first, when a redactor was given). */
  readonly text: () => string
  readonly dropped: () => number
}

/** Characters kept beyond each cut for the redactor to see whole: longer than any key or PEM block. */
export const REDACT_MARGIN_CHARS = 8_192

/** Characters a token (a key, a base64 run) is made of: a cut inside a run of them may split one. */
const TOKEN_CHAR = /[A-Za-z0-9_\-+/=.~:%]/

/**
 * `text` without the run of token characters at its `side` (a token the raw cut split: its other
 * part is gone, so what is left could not be recognised). A run as long as the margin is left.
 */
const withoutSplitToken = (text: string, side: "start" | "end"): string => {
  const limit = Math.min(text.length, REDACT_MARGIN_CHARS)
  let n = 0
  while (n < limit && TOKEN_CHAR.test(side === "end" ? text[text.length - 1 - n]! : text[n]!)) n++
  if (n === limit) return text
  return side === "end" ? text.slice(0, text.length - n) : text.slice(n)
}

const withNote = (head: string, dropped: number, tail: string): string => (dropped === 0 ? head + tail : `${head}\n…[${dropped} characters of output dropped]…\n${tail}`)

/** An output buffer that keeps the head and the tail up to `maxChars` while the output streams, counting what it drops; `redact` runs before the cut. */
export const makeCappedOutput = (maxChars: number, redact?: (text: string) => string): CappedOutput => {
  const headLimit = Math.ceil(maxChars / 2)
  const tailLimit = maxChars - headLimit
  const margin = redact === undefined ? 0 : REDACT_MARGIN_CHARS
  const headKeep = headLimit + margin
  const tailKeep = tailLimit + margin
  let head = ""
  let tail = ""
  let dropped = 0
  const push = (chunk: string): void => {
    if (head.length < headKeep) {
      const room = headKeep - head.length
      head += chunk.slice(0, room)
      chunk = chunk.slice(room)
      if (chunk.length === 0) return
    }
    tail += chunk
    // Trim only when the tail is twice its budget, so a stream of small chunks costs O(n).
    if (tail.length > tailKeep * 2 || tail.length > tailKeep + 65_536) {
      const cut = tail.length - tailKeep
      dropped += cut
      tail = tail.slice(cut)
    }
  }
  const notShown = () => dropped + Math.max(0, head.length - headLimit) + Math.max(0, tail.length - tailLimit)
  const text = (): string => {
    const clean = redact ?? ((t: string) => t)
    // Nothing dropped yet: the whole output is here, redacted as one text, then cut.
    if (dropped === 0) {
      const whole = clean(head + tail)
      return whole.length <= maxChars ? whole : withNote(whole.slice(0, headLimit), whole.length - maxChars, whole.slice(whole.length - tailLimit))
    }
    const shownHead = redact === undefined ? head : clean(withoutSplitToken(head, "end"))
    const shownTail = redact === undefined ? tail : clean(withoutSplitToken(tail, "start"))
    return withNote(shownHead.slice(0, headLimit), notShown(), tailLimit === 0 ? "" : shownTail.slice(-tailLimit))
  }
  return { push, text, dropped: () => (dropped === 0 && head.length + tail.length <= maxChars ? 0 : notShown()) }
}
