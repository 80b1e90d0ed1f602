/**
 * Period search over the chunk-hash sequence of the long-period rule. For a period q (in chunks)
 * up to `maxPeriod`, `nearRuns[q]` counts the consecutive chunks, ending at the newest, that
 * equal the chunk q before them with numbers masked. Beside it, per period: how many of those
 * chunks were exact (same numbers too), the exact run, and the *progression* run — chunks whose
 * numbers moved by the same step as in the copy before (`v[j] − v[j−q] = v[j−q] − v[j−2q]`: a
 * counter, an id going up by one; an exact chunk is the step-0 case). Only periods with a run
 * going on are compared (one comparison each per chunk), and a run can only start at a recent
 * occurrence of the same chunk hash, so a new chunk costs O(active runs + RECENT_PER_HASH).
 *
 * A run of a period of 4+ chunks survives up to 2 differing chunks in any q chunks once it has
 * covered a whole copy: a block whose one word varies (`msup` / `msub` / `msubsup`) still
 * repeats, and a differing chunk counts against the run's exact share.
 *
 * Memory: the last 2·maxPeriod + 3 chunks (a progression looks two copies back), so
 * O(maxBlockChars) however long the stream runs. Inside one run the block is a rotation of one
 * block, so its size and words are measured once per run (O(q) once per run: O(1) amortized).
 */
import type { ContentChunker } from "./content-chunker.js"
import { WORD_RING } from "./content-chunker.js"
import { ChunkNumbers } from "./chunk-numbers.js"
import { EMPTY_FLOAT64, EMPTY_INT32, EMPTY_UINT8, GuardBuffers } from "./growable.js"
import type { LongRepeatOptions } from "./long-repeat-options.js"

/** Copies beyond `copies` that a long repeat whose numbers change needs (verified on 3 copies at the default). */
export const NEAR_EXTRA_COPIES = 1
/** Share of a near repeat's chunks that must match exactly when its numbers follow no progression. */
export const STABLE_SHARE = 0.75
/** A near repeat whose numbers follow no progression and change often trips only over this many times `runChars`. */
export const ENUMERATION_CHARS_FACTOR = 8
/** A short block needs this many distinct words to count at all with its numbers changing. */
export const SHORT_MIN_WORDS = 3
/** Copies a progression must have held before it may survive a break (and the span 2 breaks may share). */
export const PROGRESSION_SETTLED = 8
/** Positions kept per chunk hash (a run can start at any chunk of a copy). */
const RECENT_PER_HASH = 8
/** A block of fewer tokens is a whitespace-free run: one token that the short-period rule cannot split. */
const RUN_TOKENS = 3
/** Shortest period (chunks) whose run tolerates differing chunks, and how many per q chunks. */
const TOLERANT_PERIOD = 4

export interface PeriodHit {
  /** "exact": the characters repeat; "near": only with numbers masked (or one chunk varying). */
  readonly view: "near" | "exact"
  /** Block length in chunks. */
  readonly period: number
  /** Characters of one copy of the block. */
  readonly blockChars: number
  /** Back-to-back copies of the block at this moment. */
  readonly copies: number
}

/** What a run's block is, measured once when the run first reaches `copies`. */
const enum Block {
  Unjudged = 0,
  /** Left to a shorter period, or cannot trip in this run. */
  Ignored = 1,
  /** ≥ minWords words and ≥ minBlockTokens tokens: trips at `copies` (exact) or `copies + 1` (near). */
  Long = 2,
  /** A whitespace-free unit of at least minBlockChars: trips at `copies` when exact. */
  RunLine = 3,
  /** Fewer than SHORT_MIN_WORDS words (`!`, `0.`, `| --- |`): trips once an exact stretch covers `runChars`. */
  WordPoor = 4,
  /** Few words or few tokens: exact repeats are the short-period rule's (or `runChars`); numbers progressing trip over `shortChars`. */
  Short = 5,
  Tripped = 6
}

export class ChunkPeriods {
  private readonly maxPeriod: number
  private readonly capacity: number
  private masked1: Int32Array
  private masked2: Int32Array
  /** The numbers of the kept chunks (ChunkEchoes reads their hashes and counts here too). */
  readonly numbers: ChunkNumbers
  private forced: Uint8Array
  /** Characters, tokens, words and numbers consumed up to the end of each kept chunk. */
  private endChars: Float64Array
  private endTokens: Float64Array
  private endWords: Float64Array
  private nearRuns: Int32Array = EMPTY_INT32
  private stable: Int32Array = EMPTY_INT32
  private exactRuns: Int32Array = EMPTY_INT32
  private progressRuns: Int32Array = EMPTY_INT32
  /** The two newest progression breaks a progression run survived (chunk indexes). */
  private breakNewer: Float64Array = EMPTY_FLOAT64
  private breakOlder: Float64Array = EMPTY_FLOAT64
  /** The two newest differing chunks a run tolerated (chunk indexes). */
  private missNewer: Float64Array = EMPTY_FLOAT64
  private missOlder: Float64Array = EMPTY_FLOAT64
  private exactStart: Float64Array = EMPTY_FLOAT64
  private progressStart: Float64Array = EMPTY_FLOAT64
  /** Chunks in a row whose values differ from the copy before in at most one place, and where that began. */
  private oneFieldRuns: Int32Array = EMPTY_INT32
  private oneFieldStart: Float64Array = EMPTY_FLOAT64
  private nearStart: Float64Array = EMPTY_FLOAT64
  private block: Uint8Array = EMPTY_UINT8
  /** Short blocks with fewer than minWords words: an exact repeat of them is not the short-period rule's. */
  private fewWords: Uint8Array = EMPTY_UINT8
  /** The block holds more distinct words than numbers, or 4 words per number (a table row does not). */
  private wordy: Uint8Array = EMPTY_UINT8
  /** The newest chunk of the run whose numbers changed counted down over the last three copies (`ChunkNumbers.countsDown`). */
  private countingDown: Uint8Array = EMPTY_UINT8
  private chunks = 0
  private tokens = 0
  private readonly active: Array<number> = []
  private isActive: Uint8Array = EMPTY_UINT8
  private readonly ready: Array<number> = []
  /** Masked hash → its newest position, and per slot the previous position of the same hash. */
  private readonly newest = new Map<number, number>()
  private prevSame: Float64Array

  constructor(private readonly options: LongRepeatOptions, minChunkChars: number, private readonly chunker: ContentChunker, private readonly buffers: GuardBuffers = new GuardBuffers()) {
    this.maxPeriod = Math.max(1, Math.ceil(options.maxBlockChars / minChunkChars))
    this.capacity = 2 * this.maxPeriod + 3
    const kept = this.buffers.startLength(this.capacity)
    this.masked1 = this.buffers.make(Int32Array, kept)
    this.masked2 = this.buffers.make(Int32Array, kept)
    this.numbers = new ChunkNumbers(this.capacity, chunker, buffers)
    this.forced = this.buffers.make(Uint8Array, kept)
    this.prevSame = this.buffers.make(Float64Array, kept)
    this.endChars = this.buffers.make(Float64Array, kept)
    this.endTokens = this.buffers.make(Float64Array, kept)
    this.endWords = this.buffers.make(Float64Array, kept)
    // Per period q: touched only once a chunk hash recurs within maxPeriod chunks (a run can
    // start), which a short healthy reply may never see; made then, for periods up to that chunk.
    if (this.buffers.preallocate) this.growPeriods(this.maxPeriod)
  }

  /** Room for chunk slot `slot` in the ring (before its first wrap). */
  private grow(slot: number): void {
    const cap = this.capacity
    this.masked1 = this.buffers.grown(this.masked1, slot, cap)
    this.masked2 = this.buffers.grown(this.masked2, slot, cap)
    this.forced = this.buffers.grown(this.forced, slot, cap)
    this.prevSame = this.buffers.grown(this.prevSame, slot, cap)
    this.endChars = this.buffers.grown(this.endChars, slot, cap)
    this.endTokens = this.buffers.grown(this.endTokens, slot, cap)
    this.endWords = this.buffers.grown(this.endWords, slot, cap)
  }

  /** Room for every period up to q. */
  private growPeriods(q: number): void {
    const size = this.maxPeriod + 1
    this.nearRuns = this.buffers.grown(this.nearRuns, q, size)
    this.stable = this.buffers.grown(this.stable, q, size)
    this.exactRuns = this.buffers.grown(this.exactRuns, q, size)
    this.progressRuns = this.buffers.grown(this.progressRuns, q, size)
    this.breakNewer = this.buffers.grown(this.breakNewer, q, size, -Infinity)
    this.breakOlder = this.buffers.grown(this.breakOlder, q, size, -Infinity)
    this.missNewer = this.buffers.grown(this.missNewer, q, size)
    this.missOlder = this.buffers.grown(this.missOlder, q, size)
    this.exactStart = this.buffers.grown(this.exactStart, q, size)
    this.progressStart = this.buffers.grown(this.progressStart, q, size)
    this.oneFieldRuns = this.buffers.grown(this.oneFieldRuns, q, size)
    this.oneFieldStart = this.buffers.grown(this.oneFieldStart, q, size)
    this.nearStart = this.buffers.grown(this.nearStart, q, size)
    this.block = this.buffers.grown(this.block, q, size)
    this.fewWords = this.buffers.grown(this.fewWords, q, size)
    this.wordy = this.buffers.grown(this.wordy, q, size)
    this.countingDown = this.buffers.grown(this.countingDown, q, size)
    this.isActive = this.buffers.grown(this.isActive, q, size)
  }

  /** Record the chunk the chunker just closed, after `charsSoFar` characters; returns the first hit it completes. */
  push(charsSoFar: number): PeriodHit | null {
    const c = this.chunker
    const j = this.chunks++
    const slot = j % this.capacity
    if (slot >= this.masked1.length) this.grow(slot)
    if (j >= this.capacity) this.forget(j - this.capacity, this.masked1[slot]!)
    this.tokens += c.lastTokens
    this.masked1[slot] = c.lastMasked1
    this.masked2[slot] = c.lastMasked2
    this.numbers.record(j)
    this.forced[slot] = c.lastForced ? 1 : 0
    this.endChars[slot] = charsSoFar
    this.endTokens[slot] = this.tokens
    this.endWords[slot] = c.lastWordEnd
    this.continueRuns(j)
    this.startRuns(j)
    return this.judgeReady(j, charsSoFar)
  }

  /**
   * The previous chunk, before kept chunk `pos`, with the same masked hash, or -1 (chunk echoes
   * walk this chain instead of keeping a map of their own). Valid within maxPeriod of the newest.
   */
  previousSame(pos: number): number {
    return this.prevSame[pos % this.capacity]!
  }

  /** Kept chunks j and back have the same text with numbers masked (both hashes equal). */
  nearSame(j: number, back: number): boolean {
    const a = j % this.capacity
    const b = back % this.capacity
    return this.masked1[a] === this.masked1[b] && this.masked2[a] === this.masked2[b]
  }

  /**
   * Characters, tokens and words read up to the end of kept chunk j (0 before the first chunk).
   * Kept once here for the chunks both rules look back over; ChunkEchoes reads them too.
   */
  charsThrough(j: number): number {
    return j < 0 ? 0 : this.endChars[j % this.capacity]!
  }

  tokensThrough(j: number): number {
    return j < 0 ? 0 : this.endTokens[j % this.capacity]!
  }

  wordsThrough(j: number): number {
    return j < 0 ? 0 : this.endWords[j % this.capacity]!
  }

  /** Periods with a run going on: one comparison each; a mismatch ends the run unless tolerated. */
  private continueRuns(j: number): void {
    let kept = 0
    for (let k = 0; k < this.active.length; k++) {
      const q = this.active[k]!
      const near = this.nearSame(j, j - q)
      if (near) this.extend(q, j)
      else if (this.tolerates(q, j)) this.miss(q, j)
      else {
        this.isActive[q] = 0
        this.endRun(q)
        continue
      }
      this.active[kept++] = q
    }
    this.active.length = kept
  }

  private tolerates(q: number, j: number): boolean {
    return q >= TOLERANT_PERIOD && this.nearRuns[q]! >= q && this.missOlder[q]! <= j - q
  }

  private miss(q: number, j: number): void {
    this.nearRuns[q]++
    this.exactRuns[q] = 0
    this.progressRuns[q] = 0
    this.oneFieldRuns[q] = 0
    this.missOlder[q] = this.missNewer[q]!
    this.missNewer[q] = j
  }

  private endRun(q: number): void {
    this.nearRuns[q] = 0
    this.countingDown[q] = 0
    this.stable[q] = 0
    this.exactRuns[q] = 0
    this.progressRuns[q] = 0
    this.oneFieldRuns[q] = 0
    this.block[q] = Block.Unjudged
  }

  /**
   * A run of period q can only start at a recent occurrence of the same hash: the newest
   * RECENT_PER_HASH of them, along the chain of earlier positions. Then j joins the chain.
   */
  private startRuns(j: number): void {
    const key = this.chunker.lastMasked1
    const newest = this.newest.get(key)
    this.prevSame[j % this.capacity] = newest ?? -1
    this.newest.set(key, j)
    let pos = newest ?? -1
    const top = j < this.maxPeriod ? j : this.maxPeriod
    if (pos >= 0 && top >= this.isActive.length) this.growPeriods(top)
    for (let n = 0; n < RECENT_PER_HASH && pos >= 0 && j - pos <= this.maxPeriod; n++, pos = this.prevSame[pos % this.capacity]!) {
      const q = j - pos
      if (this.isActive[q] === 1 || !this.nearSame(j, pos)) continue
      this.missNewer[q] = -Infinity
      this.missOlder[q] = -Infinity
      this.breakNewer[q] = -Infinity
      this.breakOlder[q] = -Infinity
      this.extend(q, j)
      this.isActive[q] = 1
      this.active.push(q)
    }
  }

  /** Chunk j leaves the ring: if it was its hash's newest occurrence, the hash is dropped. */
  private forget(j: number, key: number): void {
    if (this.newest.get(key) === j) this.newest.delete(key)
  }

  private extend(q: number, j: number): void {
    const exact = this.numbers.same(j, j - q)
    const progressing = exact || this.progresses(q, j)
    if (this.nearRuns[q]++ === 0) this.nearStart[q] = this.stretchStart(q, j)
    if (exact) {
      this.stable[q]++
      if (this.exactRuns[q]++ === 0) this.exactStart[q] = this.stretchStart(q, j)
    } else {
      this.exactRuns[q] = 0
      this.countingDown[q] = this.numbers.countsDown(q, j) ? 1 : 0
    }
    if (progressing || this.skipsBreak(q, j)) {
      if (this.progressRuns[q]++ === 0) this.progressStart[q] = this.stretchStart(q, j)
    } else this.progressRuns[q] = 0
    if (exact || this.numbers.differing(j, j - q) <= 1) {
      if (this.oneFieldRuns[q]++ === 0) this.oneFieldStart[q] = this.stretchStart(q, j)
    } else this.oneFieldRuns[q] = 0
  }

  /**
   * A progression that has held for PROGRESSION_SETTLED copies survives a rare break: a clock
   * rolling over (`12:00:59` → `12:01:00`) breaks the step in two copies, once a minute. At most
   * 2 breaks in any PROGRESSION_SETTLED copies; an enumeration that restarts every few copies
   * (`m11 … m14`, `m21 …`) never gets that far.
   */
  private skipsBreak(q: number, j: number): boolean {
    const settled = PROGRESSION_SETTLED * q
    if (this.progressRuns[q]! < settled || this.breakOlder[q]! > j - settled) return false
    this.breakOlder[q] = this.breakNewer[q]!
    this.breakNewer[q] = j
    return true
  }

  /**
   * Whether chunk j's numbers moved by the same step as chunk j − q's did. Not decidable in the
   * first copy of a run, or when the copy before differed there (a tolerated chunk): counted as
   * going on, since the later copies decide.
   */
  private progresses(q: number, j: number): boolean {
    if (this.nearRuns[q]! < q || j - 2 * q < 0 || !this.nearSame(j, j - 2 * q)) return true
    return this.numbers.progress(q, j)
  }

  /** After every run is up to date: the smallest period that trips now, if any. */
  private judgeReady(j: number, charsSoFar: number): PeriodHit | null {
    if (this.active.length === 0) return null
    const need = this.options.copies - 1
    const ready = this.ready
    ready.length = 0
    for (const q of this.active) if (this.nearRuns[q]! >= need * q) ready.push(q)
    if (ready.length === 0) return null
    // Smallest first: a block is measured after its divisors.
    if (ready.length > 1) ready.sort((a, b) => a - b)
    for (const q of ready) {
      const hit = this.judge(q, j, charsSoFar)
      if (hit !== null) return hit
    }
    return null
  }

  /** A stretch whose first repeat is chunk j begins with the chunk before its first copy (j − q − 1). */
  private stretchStart(q: number, j: number): number {
    return j - q - 1 < 0 ? 0 : this.endChars[(j - q - 1) % this.capacity]!
  }

  private judge(q: number, j: number, charsSoFar: number): PeriodHit | null {
    if (this.block[q] === Block.Unjudged) this.block[q] = this.classify(q, j)
    const kind = this.block[q]!
    if (kind === Block.Ignored || kind === Block.Tripped) return null
    const run = this.nearRuns[q]!
    const exact = this.exactRuns[q]! >= run
    const enough = exact ? this.exactEnough(kind, q, charsSoFar) : this.nearEnough(kind, q, run, charsSoFar)
    if (!enough) return null
    this.block[q] = Block.Tripped
    return { view: exact ? "exact" : "near", period: q, blockChars: this.sizeOf(this.endChars, q, j), copies: Math.floor(run / q) + 1 }
  }

  private exactEnough(kind: Block, q: number, charsSoFar: number): boolean {
    if (kind === Block.Long || kind === Block.RunLine) return true
    if (kind === Block.Short && this.fewWords[q] === 0) return false
    return charsSoFar - this.exactStart[q]! >= this.options.runChars
  }

  /**
   * The block changed between copies (numbers, or a chunk that differs). Only a block with
   * more distinct words than numbers (or 4 words per number) counts: a row of a table (code points, byte values,
   * versions) is mostly numbers. A long block trips one copy later than an exact one when its
   * numbers follow a progression (a counter) or most of its chunks stay exact; healthy
   * enumerations (SHA1, SHA256, …; p1 … p4) do neither, or stop within 4 copies. A short block
   * carries little evidence per copy, and healthy lists of numbered lines run to a few dozen:
   * its numbers must progress over `shortChars` characters.
   */
  private nearEnough(kind: Block, q: number, run: number, charsSoFar: number): boolean {
    if (this.wordy[q] === 0) return false
    if (kind === Block.Short) {
      const stretch = (this.options.copies - 1) * q
      if (this.exactRuns[q]! >= stretch) return false
      if (this.progressRuns[q]! >= stretch && charsSoFar - this.progressStart[q]! >= this.options.shortChars) return true
      // One value at random per chunk (a request id, a timing) in a line of words: twice as long.
      return this.oneFieldRuns[q]! >= stretch && charsSoFar - this.oneFieldStart[q]! >= 2 * this.options.shortChars
    }
    if (kind !== Block.Long) return false
    // The cuts fall into step only some chunks into the loop (where the first copy ends on a
    // short line they may step out once more), so `copies + 1` whole copies can give a few
    // comparisons fewer than the full span: up to an eighth of a copy (3 chunks at least) is spared.
    const span = (this.options.copies - 1 + NEAR_EXTRA_COPIES) * q - Math.min(q - 1, Math.max(3, Math.ceil(q / 8)))
    if (run < span) return false
    const listing = charsSoFar - this.nearStart[q]! >= ENUMERATION_CHARS_FACTOR * this.options.runChars
    if (this.progressRuns[q]! < span && this.stable[q]! < STABLE_SHARE * run) return listing
    // A listing newest first (versions 3.8, 3.7, 3.6 under one body) counts down where a runaway's counter counts up.
    return listing || this.countingDown[q] === 0
  }

  private classify(q: number, j: number): Block {
    // A block that is itself several copies of a shorter one is that shorter block's business.
    const run = this.nearRuns[q]!
    for (let d = 1; d * 2 <= q; d++) if (q % d === 0 && this.nearRuns[d]! >= run) return Block.Ignored
    const tokens = this.sizeOf(this.endTokens, q, j)
    // One chunk cut at MAX_CHUNK is a run of one short unit (`!!!!…`, `////…`): runChars decides.
    const unitRun = q === 1 && this.forced[j % this.capacity] === 1
    if (tokens < RUN_TOKENS && !unitRun && this.sizeOf(this.endChars, q, j) >= this.options.minBlockChars) return Block.RunLine
    const numbers = this.numbers.countIn(q, j)
    const { all, letters } = this.distinctWords(q, j, Math.max(this.options.minWords, numbers + 1))
    if (all < SHORT_MIN_WORDS) return Block.WordPoor
    // CJK characters count as words for "is it prose" but not for the long class: a chunk-level
    // block of CJK text may be several copies of a short sentence, which is the short-period rule's business.
    this.fewWords[q] = letters < this.options.minWords ? 1 : 0
    // Or, counted with repeats, 4 words per number: a long paragraph with a number on every line
    // is still mostly words even when it uses few distinct ones (a collation row holds ~2.5).
    this.wordy[q] = all > numbers || this.sizeOf(this.endWords, q, j) >= 4 * numbers ? 1 : 0
    return letters >= this.options.minWords && tokens >= this.options.minBlockTokens ? Block.Long : Block.Short
  }

  /** Growth of a cumulative ring over the newest q chunks ending at chunk j. */
  private sizeOf(cumulative: Float64Array, q: number, j: number): number {
    const before = j - q < 0 ? 0 : cumulative[(j - q) % this.capacity]!
    return cumulative[j % this.capacity]! - before
  }

  /** Distinct words of the newest q chunks (all, and runs of letters only), counted up to `need`. */
  private distinctWords(q: number, j: number, need: number): { readonly all: number; readonly letters: number } {
    const last = this.endWords[j % this.capacity]!
    const first = Math.max(j - q < 0 ? 0 : this.endWords[(j - q) % this.capacity]!, last - WORD_RING)
    const all = new Set<number>()
    const letters = new Set<number>()
    const { words, wordIsCjk } = this.chunker
    for (let w = last - 1; w >= first && (all.size < need || letters.size < need); w--) {
      const word = words[w % WORD_RING]!
      all.add(word)
      if (wordIsCjk[w % WORD_RING] === 0) letters.add(word)
    }
    return { all: all.size, letters: letters.size }
  }
}
