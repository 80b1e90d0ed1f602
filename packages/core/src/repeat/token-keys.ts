/**
 * The short-period rule's tokens as numbers, for the guard's hot path. `StreamTokenKeys` cuts deltas exactly
 * as `StreamTokenizer` does (whitespace separates, each CJK character is a token, tokens are
 * lowercased) but hands out a 53-bit hash of each lowercased token instead of the string, so a
 * token costs no slice, no lowercase copy and no string-keyed map lookup. Tokens of ASCII
 * characters are hashed as they are read; a token with any other character is built as a string
 * and lowercased as a whole, exactly like the tokenizer does (`İ`, final sigma), then hashed. Equal
 * tokens always get equal keys; two different tokens share one with probability ~2⁻⁵³, so
 * The short-period monitor fed keys gives the verdicts it gives on the strings (the equivalence tests
 * compare them).
 */
import { isCjkCode, isWhitespaceCode } from "./tokenizer.js"

const SEED1 = 0x811c9dc5
const SEED2 = 0x01000193

/** 53-bit key of a token's lowercased code units (the same for the ASCII and the string path). */
const keyOf = (h1: number, h2: number): number => (h1 >>> 0) * 2097152 + (h2 >>> 11)

const mix1 = (h: number, c: number): number => Math.imul(h ^ c, 0x01000193)
const mix2 = (h: number, c: number): number => Math.imul(h ^ c, 0x5bd1e995) ^ (h >>> 15)

/** Key of a token given as a (lowercased) string. */
export const tokenKey = (token: string): number => {
  let h1 = SEED1
  let h2 = SEED2
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i)
    h1 = mix1(h1, c)
    h2 = mix2(h2, c)
  }
  return keyOf(h1, h2)
}

/** Deltas in, token keys out; a trailing partial word is held until whitespace, CJK or `flush`. */
export class StreamTokenKeys {
  private h1 = SEED1
  private h2 = SEED2
  private length = 0
  /** The held word has a non-ASCII character: it is keyed from its string at the end. */
  private slow = false
  /**
   * The held word's pieces in earlier deltas, as the deltas and where the word began in each: read
   * only when the word turns out slow, so an ASCII word that spans deltas costs no slice or copy.
   */
  private readonly heldDeltas: Array<string> = []
  private readonly heldStarts: Array<number> = []

  /** Calls `emit` with the key of each token the delta completed, in order. */
  each(delta: string, emit: (key: number) => void): void {
    // The hashes live in locals inside the loop (fields are written back at each token's end and
    // at the delta's end): this loop runs once per character of every reply.
    let h1 = this.h1
    let h2 = this.h2
    let length = this.length
    let wordStart = 0
    for (let i = 0; i < delta.length; i++) {
      const c = delta.charCodeAt(i)
      if (c < 128) {
        if (c <= 32 && isWhitespaceCode(c)) {
          if (length > 0) {
            emit(this.end(h1, h2, delta, wordStart, i))
            h1 = SEED1
            h2 = SEED2
            length = 0
          }
          wordStart = i + 1
          continue
        }
        const lower = c >= 65 && c <= 90 ? c | 0x20 : c
        h1 = mix1(h1, lower)
        h2 = mix2(h2, lower)
        length++
      } else if (isWhitespaceCode(c)) {
        if (length > 0) {
          emit(this.end(h1, h2, delta, wordStart, i))
          h1 = SEED1
          h2 = SEED2
          length = 0
        }
        wordStart = i + 1
      } else if (c >= 0x3000 && isCjkCode(c)) {
        if (length > 0) {
          emit(this.end(h1, h2, delta, wordStart, i))
          h1 = SEED1
          h2 = SEED2
          length = 0
        }
        // Lowercasing changes only the fullwidth capitals A–Z in these ranges.
        const lower = c >= 0xff21 && c <= 0xff3a ? c + 0x20 : c
        emit(keyOf(mix1(SEED1, lower), mix2(SEED2, lower)))
        wordStart = i + 1
      } else {
        this.slow = true
        length++
      }
    }
    this.h1 = h1
    this.h2 = h2
    this.length = length
    if (length > 0 && wordStart < delta.length) {
      this.heldDeltas.push(delta)
      this.heldStarts.push(wordStart)
    }
  }

  /** Ends the held word, if any: its key, or null. */
  flush(): number | null {
    if (this.length === 0) return null
    const key = this.end(this.h1, this.h2, "", 0, 0)
    this.reset()
    return key
  }

  reset(): void {
    this.h1 = SEED1
    this.h2 = SEED2
    this.length = 0
    this.slow = false
    this.heldDeltas.length = 0
    this.heldStarts.length = 0
  }

  /**
   * Key of the word ending at `end` of `delta` (begun at `start`, or in an earlier delta), hashed
   * so far into `h1`/`h2`. Clears the held pieces; the caller resets the hashes.
   */
  private end(h1: number, h2: number, delta: string, start: number, end: number): number {
    if (!this.slow) {
      if (this.heldDeltas.length > 0) ((this.heldDeltas.length = 0), (this.heldStarts.length = 0))
      return keyOf(h1, h2)
    }
    let word = ""
    for (let k = 0; k < this.heldDeltas.length; k++) word += this.heldDeltas[k]!.slice(this.heldStarts[k])
    word += delta.slice(start, end)
    this.reset()
    return tokenKey(word.toLowerCase())
  }
}
