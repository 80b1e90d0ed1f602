/**
 * The repetition tokenizer (docs/repetition.md): collapse whitespace, split on it, and make every CJK
 * character a token of its own, also inside a word ("abc中def" → "abc", "中", "def").
 * Tokens are lowercased.
 *
 * Whitespace is exactly what JavaScript's `\s` matches, so U+3000 (ideographic space) separates
 * words although it lies in the CJK range, as in the reference implementation.
 *
 * Each token is lowercased on its own once it is complete, rather than lowercasing the whole
 * text first. The two only differ for Greek final sigma next to a fullwidth letter, and
 * per-token lowercasing is what makes the streaming tokenizer exact for every chunking: a
 * delta can end mid-word, and lowercasing a fragment could pick the wrong sigma form.
 */

/** Code units JavaScript's `\s` matches: WhiteSpace (incl. every Zs) and LineTerminator. */
export const isWhitespaceCode = (c: number): boolean => {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d)
  if (c < 0xa0) return false
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  )
}

/** The CJK ranges of the repetition rule; each character in them is a token. All lie in the BMP. */
export const isCjkCode = (c: number): boolean =>
  (c >= 0x3000 && c <= 0x30ff) ||
  (c >= 0x3400 && c <= 0x4dbf) ||
  (c >= 0x4e00 && c <= 0x9fff) ||
  (c >= 0xf900 && c <= 0xfaff) ||
  (c >= 0xff00 && c <= 0xffef)

/**
 * Tokenizes text that arrives in deltas. `push` returns the tokens a delta completed and holds
 * a trailing partial word until whitespace, a CJK character or `flush` ends it, so the tokens
 * of any chunking equal `tokenize` of the whole text.
 */
export class StreamTokenizer {
  private partial: string
  /** The held partial word may hold a character that lowercasing changes. */
  private partialUpper = true

  /** `pending` restores a held partial word (see the `pending` getter). */
  constructor(pending = "") {
    this.partial = pending
  }

  /** The partial word held so far (raw, not lowercased): the tokenizer's whole state. */
  get pending(): string {
    return this.partial
  }

  push(delta: string): Array<string> {
    const out: Array<string> = []
    this.each(delta, (t) => void out.push(t))
    return out
  }

  /**
   * `push` without the array: calls `emit` for each completed token, in order. The hot path of
   * the repetition guard (one call per delta of every generation).
   */
  each(delta: string, emit: (token: string) => void): void {
    let wordStart = 0
    // Lowercasing is skipped for words with no character that could change (most of them).
    let upper = false
    for (let i = 0; i < delta.length; i++) {
      const c = delta.charCodeAt(i)
      if (c <= 32 ? isWhitespaceCode(c) : c >= 0x85 && isWhitespaceCode(c)) {
        this.endWord(delta, wordStart, i, upper, emit)
        wordStart = i + 1
        upper = false
      } else if (c >= 0x3000 && isCjkCode(c)) {
        this.endWord(delta, wordStart, i, upper, emit)
        emit(delta.charAt(i).toLowerCase())
        wordStart = i + 1
        upper = false
      } else if ((c >= 65 && c <= 90) || c > 127) upper = true
    }
    if (wordStart < delta.length) {
      this.partial += delta.slice(wordStart)
      this.partialUpper ||= upper
    }
  }

  /** Ends the held word, if any (end of stream, or a boundary between parts). */
  flush(): Array<string> {
    const word = this.partial
    this.partial = ""
    this.partialUpper = false
    return word.length > 0 ? [word.toLowerCase()] : []
  }

  reset(): void {
    this.partial = ""
    this.partialUpper = false
  }

  private endWord(delta: string, start: number, end: number, upper: boolean, emit: (token: string) => void): void {
    const word = start >= end ? this.partial : this.partial.length === 0 ? delta.slice(start, end) : this.partial + delta.slice(start, end)
    const lower = upper || this.partialUpper
    this.partial = ""
    this.partialUpper = false
    if (word.length > 0) emit(lower ? word.toLowerCase() : word)
  }
}

/** All tokens of a complete text. */
export const tokenize = (text: string): Array<string> => {
  const tokenizer = new StreamTokenizer()
  const tokens = tokenizer.push(text)
  for (const last of tokenizer.flush()) tokens.push(last)
  return tokens
}
