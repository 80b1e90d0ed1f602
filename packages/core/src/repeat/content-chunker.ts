/**
 * Cuts a character stream into content-defined chunks for the long-period rule.
 *
 * Text is normalised on the fly into the *masked* view: whitespace runs become one space (or one
 * newline when they hold a line break), ASCII letters are lowercased, and every number becomes a
 * single `0`. A number is a run of digits, or a run of hex characters (`0-9`, `a-f`) holding a
 * digit that begins a word (or follows a number), so decimal counters, hex ids and UUID parts all
 * mask the same way while `sha256` stays `sha0`. A chunk ends where a
 * gear hash of the last few masked characters hits a fixed bit pattern, or at a line break, but
 * never before MIN_CHUNK and always at MAX_CHUNK masked characters. The cut depends only on
 * local content and on the distance from the previous cut, so in a text that repeats a block
 * (numbers aside) the cuts fall at the same offsets of every copy once one cut has happened
 * inside a copy: the sequence of chunk hashes becomes periodic, with the block's length in chunks
 * as its period.
 *
 * The numbers themselves are not lost: their values go to a ring (`numbers`), and each chunk
 * carries a hash of its values, so "exact" (same masked text and same values) and "numbers
 * follow a progression" are both decided from the same cut. Words (2+ letters or `_`, no number
 * in them) go to a ring of word hashes for the distinct-word test. The chunker works
 * on char codes with no per-character allocation; it calls `onChunk` once per chunk.
 */
import { isCjkCode, isWhitespaceCode } from "./tokenizer.js"
import { GuardBuffers } from "./growable.js"

/** No cut before this many masked characters (short lines merge with the next). */
export const MIN_CHUNK = 16
/**
 * A CJK full stop, exclamation or question mark cuts from this many masked characters on: a CJK
 * character is about a word, so a short CJK sentence is a chunk of its own and short lines that
 * rotate at random recur as chunks instead of as random pairs of lines.
 */
export const MIN_CJK_CHUNK = 4
/** A cut is forced here, so a run with no natural cut (`!!!!…`) still makes chunks. */
export const MAX_CHUNK = 96
/** Word hashes kept (ring): enough for any block the rule looks at (≤ 8 000 characters by default). */
export const WORD_RING = 8192
/** Number values kept (ring). Older values read as missing: a progression then simply fails. */
export const NUMBER_RING = 8192
// Four high bits of the gear hash: a natural cut every ~16 characters past MIN_CHUNK; those
// bits depend on the last ~30 characters, so cuts follow content, not position.
const CUT_MASK = 0x78000000
/** Hex letters held back while waiting to see whether a digit makes them part of a number. */
const MAX_PENDING_LETTERS = 16
/** Past this many digits a number's value is a hash: equal text still gives an equal value. */
const EXACT_DIGITS = 15
/**
 * Past this many digits a number's further digits are emitted as they are, not masked: a number
 * this long is not a count or an id but a digit run (`0.4444…`, `0101…`), which the rule must see
 * repeat. A SHA-256 in hex (64) still masks its first 32; its tail is random and never repeats.
 */
export const RAW_DIGITS = 32

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

const SPACE = 0x20
const NEWLINE = 0x0a
const ZERO = 0x30
const UNDERSCORE = 0x5f
const BACKTICK = 0x60
/** Longest inline code span (characters) whose symbols are discounted. */
const MAX_INLINE_CODE = 80

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39
const isHexLetter = (c: number): boolean => c >= 0x61 && c <= 0x66
const isLetter = (c: number): boolean => (c >= 0x61 && c <= 0x7a) || (c >= 0x80 && !isWhitespaceCode(c))
/** `lower` (a code unit with bit 0x20 set) continues a word's run of letters: g–z, or a–f once the word has a non-hex letter. */
const continuesLetters = (lower: number, wordPlain: boolean): boolean => (lower >= 0x67 && lower <= 0x7a) || (lower >= 0x61 && lower <= 0x66 && wordPlain)
/**
 * Weight of each character of code and markup, rare in prose: 2 for `{ } [ ] < > = ; | \ @`, 1
 * for `( * # / + $ % ^ & ~` (prose has some: a parenthesis, a call `f()`, a path, a bullet). Backticks
 * are left out, and so is everything inside inline code (`endBackticks`): reasoning about code quotes
 * identifiers, calls and paths. A line indented by INDENT_CHARS or more weighs 2 as well.
 */
const CODE_SYMBOLS: Uint8Array = (() => {
  const table = new Uint8Array(128)
  for (const c of "{}[]<>=;|\\@") table[c.charCodeAt(0)] = 2
  for (const c of "(*#/+$%^&~") table[c.charCodeAt(0)] = 1
  return table
})()
/** Spaces or tabs before a line's first character that make it an indented (code) line. */
const INDENT_CHARS = 4
const isCjkStop = (c: number): boolean => c === 0x3002 || c === 0xff01 || c === 0xff1f
const isLineBreak = (c: number): boolean => c === NEWLINE || c === 0x0d || c === 0x2028 || c === 0x2029

/** Called once per chunk, while the chunker's `last*` fields describe it. */
export type ChunkSink = () => void
/** Called when a run of whitespace reaches the chunker's limit, with `chars` at the character that reached it. */
export type BlankSink = () => void

export class ContentChunker {
  // The chunk that just closed (valid inside `onChunk`).
  lastMasked1 = 0
  lastMasked2 = 0
  lastNumbersHash = 0
  /** Tokens of the token-window rule (its word tokenizer) that began inside the chunk. */
  lastTokens = 0
  /** Running counts of words and numbers at the chunk's end (indexes into the rings). */
  lastWordEnd = 0
  /** Running count of `terms` at the chunk's end. */
  lastTermEnd = 0
  lastNumberEnd = 0
  /** Running weight of code and markup symbols (CODE_SYMBOLS) at the chunk's end. */
  lastSymbolEnd = 0
  /** Masked characters (whitespace runs as one) up to the chunk's end. */
  lastMaskedEnd = 0
  /** The chunk was cut at MAX_CHUNK, not by its content (a run like `!!!!…` or `////…`). */
  lastForced = false

  // The rings below grow on demand until they first wrap (growable.ts): readers take them afresh
  // from these getters each time, never keep one across a `feed`.
  private wordRing: Int32Array
  private cjkRing: Uint8Array
  private numberRing: Float64Array
  private termRing: Int32Array
  /** Word hashes, by word index modulo WORD_RING. */
  get words(): Int32Array {
    return this.wordRing
  }
  /** The word is one CJK character (a token of its own), not a run of letters. */
  get wordIsCjk(): Uint8Array {
    return this.cjkRing
  }
  /** Number values, by number index modulo NUMBER_RING. */
  get numbers(): Float64Array {
    return this.numberRing
  }
  wordCount = 0
  /**
   * Every word of 2+ characters, identifiers with a number included (masked: `x0_req_new`), and
   * every CJK character: what the word-shingle recurrence reads, so a list of identifiers that
   * differ only past a number is not one shingle repeated.
   */
  get terms(): Int32Array {
    return this.termRing
  }
  termCount = 0
  numberCount = 0
  symbolCount = 0
  /** Characters consumed so far, and token-window tokens begun so far. */
  chars = 0
  private tokensClosed = 0

  /** Token-window tokens begun so far in the whole stream. */
  get tokensBegun(): number {
    return this.tokensClosed + this.tokens
  }

  private pendingSpace = 0 // 0 none, 1 space, 2 line break
  private started = false
  private inToken = false
  private gear = 0
  private length = 0
  private masked1 = 0x811c9dc5
  private numbersHash = 0
  private tokens = 0
  private wordStartGear = 0
  private wordLength = 0
  private wordHasNumber = false
  /**
   * The word so far has a letter outside a–f: hex letters after it are letters, not the start of
   * a number (`sha256` masks to `sha0`, `the1` to `the0`); only a hex run at a word's start is held.
   */
  private wordPlain = false
  // The number being read: decimal and hex readings (a hex letter decides), and its length.
  private inNumber = false
  private numberHex = false
  private decimal = 0
  private hex = 0
  private digits = 0
  private readonly pending = new Int32Array(MAX_PENDING_LETTERS)
  private pendingCount = 0

  // Markdown code spans (`endBackticks`): backticks in the current run, and where the text is.
  private backticks = 0
  private inFence = false
  /** Symbols before this character are inside inline code (0: none open). */
  private inlineCodeUntil = 0
  /** Where the newest line began (just after its line break). */
  private lineStart = 0
  /** Where the current run of whitespace began (valid while `pendingSpace` is set). */
  private blankStart = 0
  /** Whitespace characters in a row, less one, that call `onBlank`. */
  private readonly blankLimit: number

  /** `blankChars`: a run of this many whitespace characters calls `onBlank` (a flood: spaces, line breaks, tabs). */
  constructor(
    private readonly onChunk: ChunkSink,
    blankChars = Infinity,
    private readonly onBlank: BlankSink = () => {},
    private readonly buffers: GuardBuffers = new GuardBuffers()
  ) {
    this.blankLimit = blankChars - 1
    this.wordRing = this.buffers.make(Int32Array, this.buffers.startLength(WORD_RING))
    this.cjkRing = this.buffers.make(Uint8Array, this.wordRing.length)
    this.termRing = this.buffers.make(Int32Array, this.buffers.startLength(WORD_RING))
    this.numberRing = this.buffers.make(Float64Array, this.buffers.startLength(NUMBER_RING))
  }

  /** Set (by the sink) to stop reading: the rest of the delta is ignored. */
  halted = false

  /** Feed a delta, char code by char code. */
  feed(delta: string): void {
    let i = 0
    while (i < delta.length && !this.halted) {
      // Most characters are letters inside a word with nothing held back: a run of them is hashed
      // in one tight loop.
      const code = delta.charCodeAt(i)
      const lower = code | 0x20
      if (continuesLetters(lower, this.wordPlain) && this.inToken && this.pendingSpace === 0 && this.pendingCount === 0 && !this.inNumber) {
        i = this.letterRun(delta, i)
        if (i >= delta.length || this.halted) return
        continue
      }
      if (code === SPACE) {
        this.inToken = false
        if (this.pendingSpace === 0) {
          this.pendingSpace = 1
          this.blankStart = this.chars
        } else if (this.chars - this.blankStart >= this.blankLimit) this.onBlank()
      } else this.push(code)
      this.chars++
      i++
    }
  }

  /**
   * `emit` for a run of letters (not hex digits) continuing a word, from `from`: the common case,
   * inlined by hand, with the state in locals (written back at a cut and at the run's end), since
   * this loop runs once per character of every reply. Returns the index of the first character
   * it did not take; `chars` counts the ones it took.
   */
  private letterRun(delta: string, from: number): number {
    const base = this.chars - from
    let i = from
    for (;;) {
      let gear = this.gear
      let masked1 = this.masked1
      let length = this.length
      let wordLength = this.wordLength
      let wordStartGear = this.wordStartGear
      let wordPlain = this.wordPlain
      // 0: the run ended; 1: a natural cut at character i; 2: a cut forced at MAX_CHUNK.
      let cut = 0
      for (; i < delta.length; i++) {
        const lower = delta.charCodeAt(i) | 0x20
        if (!continuesLetters(lower, wordPlain)) break
        const before = gear
        gear = ((before << 1) + GEAR[lower]!) | 0
        if (wordLength++ === 0) wordStartGear = before
        wordPlain = true
        masked1 = Math.imul(masked1 ^ lower, 0x01000193)
        length++
        if (length >= MIN_CHUNK && (gear & CUT_MASK) === 0) cut = 1
        else if (length >= MAX_CHUNK) cut = 2
        if (cut !== 0) break
      }
      this.gear = gear
      this.masked1 = masked1
      this.length = length
      this.wordLength = wordLength
      this.wordStartGear = wordStartGear
      this.wordPlain = wordPlain
      // The sink reads `chars` as the characters before the one that closed the chunk.
      this.chars = base + i
      if (cut === 0) return i
      this.close(cut === 2)
      i++
      this.chars = base + i
      if (this.halted) return i
    }
  }

  /** One UTF-16 code unit of the raw text. */
  push(code: number): void {
    if (code <= SPACE ? isWhitespaceCode(code) : code >= 0x85 && isWhitespaceCode(code)) {
      this.inToken = false
      if (this.pendingSpace === 0) this.blankStart = this.chars
      else if (this.chars - this.blankStart >= this.blankLimit) this.onBlank()
      if (isLineBreak(code)) {
        this.pendingSpace = 2
        this.lineStart = this.chars + 1
      } else if (this.pendingSpace === 0) this.pendingSpace = 1
      return
    }
    this.countToken(code)
    if (this.pendingSpace !== 0) {
      this.endNumber()
      this.flushPending()
      this.flushSpace()
    }
    const lower = code >= 0x41 && code <= 0x5a ? code | 0x20 : code
    if (isDigit(lower)) return this.digit(lower)
    if (isHexLetter(lower)) {
      if (this.inNumber) return this.hexLetter(lower)
      if (!this.wordPlain && this.pendingCount < MAX_PENDING_LETTERS) {
        this.pending[this.pendingCount++] = lower
        return
      }
    }
    this.endNumber()
    this.flushPending()
    this.emit(lower)
  }

  private countToken(code: number): void {
    if (code >= 0x3000 && isCjkCode(code)) {
      this.tokens++
      this.inToken = false
    } else if (!this.inToken) {
      this.tokens++
      this.inToken = true
    }
  }

  private digit(c: number): void {
    if (!this.inNumber) {
      this.inNumber = true
      this.numberHex = this.pendingCount > 0
      this.decimal = 0
      this.hex = 0
      this.digits = 0
      // Held hex letters right before a digit are the number's first characters.
      for (let k = 0; k < this.pendingCount; k++) this.addHexDigit(this.pending[k]! - 0x57)
      this.pendingCount = 0
    }
    const d = c - ZERO
    this.decimal = this.digits < EXACT_DIGITS ? this.decimal * 10 + d : (this.decimal * 31 + d) % 2147483647
    this.addHexDigit(d)
    if (this.digits > RAW_DIGITS) this.emit(c)
  }

  private hexLetter(c: number): void {
    this.numberHex = true
    this.addHexDigit(c - 0x57)
    if (this.digits > RAW_DIGITS) this.emit(c)
  }

  private addHexDigit(d: number): void {
    this.hex = this.digits < EXACT_DIGITS - 2 ? this.hex * 16 + d : (this.hex * 31 + d) % 2147483647
    this.digits++
  }

  /** A number ends at any character that cannot continue it: its value is kept, `0` emitted. */
  private endNumber(): void {
    if (!this.inNumber) return
    this.inNumber = false
    const value = this.numberHex ? this.hex : this.decimal
    const slot = this.numberCount++ % NUMBER_RING
    if (slot >= this.numberRing.length) this.numberRing = this.buffers.grown(this.numberRing, slot, NUMBER_RING)
    this.numberRing[slot] = value
    this.numbersHash = Math.imul(this.numbersHash ^ (value | 0), 0x5bd1e995) ^ Math.imul((value / 4294967296) | 0, 0x01000193)
    this.emit(ZERO)
  }

  private flushPending(): void {
    for (let k = 0; k < this.pendingCount; k++) this.emit(this.pending[k]!)
    this.pendingCount = 0
  }

  private flushSpace(): void {
    if (this.pendingSpace === 0) return
    // A line indented by 4 or more is code (or a quoted block): it weighs as a code symbol.
    if (this.pendingSpace === 2 && this.chars - this.lineStart >= INDENT_CHARS) this.symbolCount += 2
    const mark = this.pendingSpace === 2 ? NEWLINE : SPACE
    this.pendingSpace = 0
    if (this.started) this.emit(mark)
  }

  /**
   * One masked character: hashes, word tracking and the cut decision. The gear hash doubles as
   * the word hash (its growth over a word depends on the word's characters only) and, at a cut,
   * as the chunk's second hash: one multiply per character in all.
   */
  private emit(c: number): void {
    this.started = true
    const before = this.gear
    this.gear = ((before << 1) + GEAR[(c ^ (c >>> 8)) & 255]!) | 0
    if (c >= 0x3000 && isCjkCode(c)) {
      // Each CJK character is a word of its own, as it is a token of its own for the token-window rule.
      if (this.wordLength > 0) this.endWord(before)
      this.wordPlain = false
      this.addWord(c, 1)
      this.addTerm(c)
    } else if (isLetter(c) || c === ZERO || c === UNDERSCORE) {
      if (this.wordLength++ === 0) this.wordStartGear = before
      if (c === ZERO) this.wordHasNumber = true
      else if (c !== UNDERSCORE && !isHexLetter(c)) this.wordPlain = true
    } else {
      if (this.wordLength > 0) this.endWord(before)
      if (c === BACKTICK) this.backticks++
      else {
        if (this.backticks > 0) this.endBackticks()
        // Inline code is taken to end at whitespace: a stray backtick (a reply cut off inside a
        // span) then cannot turn the rest of the text inside out.
        if (c === NEWLINE || c === SPACE) this.inlineCodeUntil = 0
        else if (c < 0x80 && this.chars >= this.inlineCodeUntil) this.symbolCount += CODE_SYMBOLS[c]!
      }
    }
    this.masked1 = Math.imul(this.masked1 ^ c, 0x01000193)
    this.length++
    if ((this.length >= MIN_CHUNK && (c === NEWLINE || (this.gear & CUT_MASK) === 0)) || (c >= 0x3002 && isCjkStop(c) && this.length >= MIN_CJK_CHUNK)) this.close(false)
    else if (this.length >= MAX_CHUNK) this.close(true)
  }

  /**
   * A run of backticks ended at `c`: three or more open or close a fenced block, fewer open or
   * close inline code outside one. Symbols inside inline code are quoted, not written: reasoning
   * about code names `render()` and `src/a.ts`. An inline span counts up to whitespace and for
   * MAX_INLINE_CODE characters at most: a template literal on a long line of minified code is not a
   * quoted name.
   */
  private endBackticks(): void {
    if (this.backticks >= 3) this.inFence = !this.inFence
    else if (!this.inFence) this.inlineCodeUntil = this.chars < this.inlineCodeUntil ? 0 : this.chars + MAX_INLINE_CODE
    this.backticks = 0
  }

  /** `gearAtEnd`: the gear hash right after the word's last character. */
  private endWord(gearAtEnd: number): void {
    const length = this.wordLength
    if (length >= 2) {
      const hash = length >= 32 ? gearAtEnd : (gearAtEnd - (this.wordStartGear << length)) | 0
      this.addTerm(hash)
      // Identifiers with a number in them (`u0`, `x0`, `step_0`) are codes, not words.
      if (!this.wordHasNumber) this.addWord(hash, 0)
    }
    this.wordLength = 0
    this.wordHasNumber = false
    this.wordPlain = false
  }

  private addWord(hash: number, cjk: number): void {
    const slot = this.wordCount++ % WORD_RING
    if (slot >= this.wordRing.length) {
      this.wordRing = this.buffers.grown(this.wordRing, slot, WORD_RING)
      this.cjkRing = this.buffers.grown(this.cjkRing, slot, WORD_RING)
    }
    this.cjkRing[slot] = cjk
    this.wordRing[slot] = hash
  }

  private addTerm(hash: number): void {
    const slot = this.termCount++ % WORD_RING
    if (slot >= this.termRing.length) this.termRing = this.buffers.grown(this.termRing, slot, WORD_RING)
    this.termRing[slot] = hash
  }

  private close(forced: boolean): void {
    this.lastForced = forced
    this.lastMasked1 = this.masked1
    this.lastMasked2 = (this.gear ^ Math.imul(this.length, 0x9e3779b1)) | 0
    this.lastNumbersHash = this.numbersHash
    this.lastTokens = this.tokens
    this.lastWordEnd = this.wordCount
    this.lastTermEnd = this.termCount
    this.lastNumberEnd = this.numberCount
    this.lastSymbolEnd = this.symbolCount
    this.lastMaskedEnd += this.length
    this.tokensClosed += this.tokens
    this.tokens = 0
    this.length = 0
    this.masked1 = 0x811c9dc5
    this.numbersHash = 0
    this.onChunk()
  }
}
