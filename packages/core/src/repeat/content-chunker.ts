/**
 * Cuts a character stream into content-defined chunks for the long-period rule.
 *
 * Text is normalised on the fly: whitespace runs become one space (or one newline when they
 * hold a line break), ASCII letters are lowercased, and in the *masked* view every digit run
 * becomes a single `0`, so copies whose numbers differ look the same. A chunk ends where a
 * gear hash of the last few masked characters hits a fixed bit pattern, or at a line break,
 * but never before MIN_CHUNK and always at MAX_CHUNK characters. The cut depends only on local
 * content and on the distance from the previous cut, so in a text that repeats a block the cuts
 * fall at the same offsets of every copy once one cut has happened inside a copy: the sequence
 * of chunk hashes becomes periodic, with the block's length in chunks as its period. That turns
 * "does a block of up to 8 000 characters repeat" into a period search over a few hundred
 * integers per chunk instead of per character.
 *
 * Each chunk carries two hash pairs (masked and raw), so the same cut serves the near-exact
 * and the exact view, and the hashes of the words completed in it (for the distinct-word test).
 */
import { isCjkCode, isWhitespaceCode } from "./tokenizer.js"

/** No cut before this many masked characters (short lines merge with the next). */
export const MIN_CHUNK = 16
/** A cut is forced here, so a run with no natural cut (`!!!!…`) still makes chunks. */
export const MAX_CHUNK = 96
// Four high bits of the gear hash: a natural cut every ~16 characters past MIN_CHUNK; those
// bits depend on the last ~30 characters, so cuts follow content, not position.
const CUT_MASK = 0x78000000

const GEAR: Int32Array = (() => {
  const table = new Int32Array(256)
  let x = 0x2545f491
  for (let i = 0; i < 256; i++) {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    table[i] = x
  }
  return table
})()

export interface Chunk {
  readonly masked1: number
  readonly masked2: number
  readonly raw1: number
  readonly raw2: number
  /** Hashes of the words (2+ characters, at least one letter) that ended inside this chunk. */
  readonly words: ReadonlyArray<number>
  /** SPEC §1 tokens that began inside this chunk. */
  readonly tokens: number
}

const SPACE = 0x20
const NEWLINE = 0x0a
const ZERO = 0x30

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39
const isLetter = (c: number): boolean => (c >= 0x61 && c <= 0x7a) || (c >= 0x80 && !isWhitespaceCode(c))
const isWordChar = (c: number): boolean => isLetter(c) || c === ZERO || c === 0x5f

export class ContentChunker {
  private pendingSpace = 0 // 0 none, 1 space, 2 line break
  private started = false
  private lastWasDigit = false
  private gear = 0
  private length = 0
  private masked1 = 0x811c9dc5
  private masked2 = 0x01000193
  private raw1 = 0x811c9dc5
  private raw2 = 0x01000193
  private word = 0
  private wordLength = 0
  private wordHasLetter = false
  private words: Array<number> = []
  private tokens = 0
  private inToken = false

  /** Feed one UTF-16 code unit; returns the chunk it closed, if any. */
  push(code: number): Chunk | null {
    this.countToken(code)
    if (isWhitespaceCode(code)) {
      if (code === NEWLINE || code === 0x0d || code === 0x2028 || code === 0x2029) this.pendingSpace = 2
      else if (this.pendingSpace === 0) this.pendingSpace = 1
      return null
    }
    let closed: Chunk | null = null
    if (this.pendingSpace !== 0) {
      const mark = this.pendingSpace === 2 ? NEWLINE : SPACE
      this.pendingSpace = 0
      this.lastWasDigit = false
      if (this.started) {
        this.mixRaw(mark)
        closed = this.emit(mark)
      }
    }
    this.started = true
    const lower = code >= 0x41 && code <= 0x5a ? code | 0x20 : code
    this.mixRaw(lower)
    if (isDigit(lower)) {
      if (this.lastWasDigit) return closed
      this.lastWasDigit = true
      return this.emit(ZERO) ?? closed
    }
    this.lastWasDigit = false
    return this.emit(lower) ?? closed
  }

  /** SPEC §1's token starts: whitespace separates, each CJK character is a token of its own. */
  private countToken(code: number): void {
    if (isWhitespaceCode(code)) this.inToken = false
    else if (isCjkCode(code)) {
      this.tokens++
      this.inToken = false
    } else if (!this.inToken) {
      this.tokens++
      this.inToken = true
    }
  }

  /** SPEC §1 tokens begun so far in the whole stream. */
  get tokensBegun(): number {
    return this.tokensTotal + this.tokens
  }
  private tokensTotal = 0

  private mixRaw(c: number): void {
    this.raw1 = Math.imul(this.raw1 ^ c, 0x01000193)
    this.raw2 = Math.imul(this.raw2 ^ c, 0x5bd1e995) ^ (this.raw2 >>> 15)
  }

  /** One masked character: word tracking, hashes, and the cut decision. */
  private emit(c: number): Chunk | null {
    if (isWordChar(c)) {
      this.word = Math.imul(this.word ^ c, 0x01000193)
      this.wordLength++
      if (c !== ZERO && c !== 0x5f) this.wordHasLetter = true
    } else this.endWord()
    this.masked1 = Math.imul(this.masked1 ^ c, 0x01000193)
    this.masked2 = Math.imul(this.masked2 ^ c, 0x5bd1e995) ^ (this.masked2 >>> 15)
    this.gear = ((this.gear << 1) + GEAR[(c ^ (c >>> 8)) & 255]!) | 0
    this.length++
    const cut = this.length >= MAX_CHUNK || (this.length >= MIN_CHUNK && (c === NEWLINE || (this.gear & CUT_MASK) === 0))
    return cut ? this.close() : null
  }

  private endWord(): void {
    if (this.wordLength >= 2 && this.wordHasLetter) this.words.push(this.word)
    this.word = 0
    this.wordLength = 0
    this.wordHasLetter = false
  }

  private close(): Chunk {
    const chunk: Chunk = { masked1: this.masked1, masked2: this.masked2, raw1: this.raw1, raw2: this.raw2, words: this.words, tokens: this.tokens }
    this.words = []
    this.tokensTotal += this.tokens
    this.tokens = 0
    this.length = 0
    this.masked1 = 0x811c9dc5
    this.masked2 = 0x01000193
    this.raw1 = 0x811c9dc5
    this.raw2 = 0x01000193
    return chunk
  }
}
