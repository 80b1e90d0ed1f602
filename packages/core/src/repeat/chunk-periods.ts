/**
 * Period search over the chunk-hash sequence of the long-period rule. For a period q (in chunks)
 * up to `maxPeriod`, `runs[q]` counts the consecutive chunks, ending at the newest, that equal the
 * chunk q before them, in two views (numbers masked, and raw). Only periods with a run going on
 * are compared (one comparison each per chunk), and a run can only start at a recent occurrence
 * of the same chunk hash, so a new chunk costs O(active runs + RECENT_PER_HASH): a handful on
 * healthy text, bounded by maxPeriod on any text. Only the last maxPeriod + 2 chunks are kept, so
 * memory is O(maxPeriod) however long the stream runs. Inside one run the block is a rotation of
 * one block, so its size and words are measured once per run (O(q) once per run of at least q
 * chunks: O(1) amortized).
 */
import type { Chunk } from "./content-chunker.js"
import type { LongRepeatOptions } from "./long-repeat-options.js"

/** Copies beyond `copies` that a repeat whose numbers change needs. */
export const NEAR_EXTRA_COPIES = 3
/** Share of a near repeat's chunks that must match exactly for it to trip without a long stretch. */
export const STABLE_SHARE = 0.85
/** An enumeration-like near repeat must cover this many times `runChars` before it trips. */
export const ENUMERATION_CHARS_FACTOR = 8
/**
 * Positions kept per chunk hash. A run can start at any chunk of a copy, so even a block whose
 * chunks recur more often than this inside one copy is still found (a few chunks later).
 */
const RECENT_PER_HASH = 8
/** A block of fewer tokens is a whitespace-free run: one token that SPEC's rule cannot split. */
const RUN_TOKENS = 3

export interface PeriodHit {
  /** "exact": the characters repeat; "near": only with numbers masked. */
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
  /** Left to SPEC's rule, or cannot trip in this run. */
  Ignored = 1,
  /** Enough words and tokens: trips at `copies` (exact) or later (numbers changing). */
  Long = 2,
  /** A whitespace-free unit of at least minBlockChars: trips at `copies` when exact. */
  RunLine = 3,
  /** Few words: trips once an exact stretch covers `runChars`. */
  Short = 4,
  Tripped = 5
}

export class ChunkPeriods {
  private readonly maxPeriod: number
  private readonly capacity: number
  private readonly masked1: Int32Array
  private readonly masked2: Int32Array
  private readonly raw1: Int32Array
  private readonly raw2: Int32Array
  /** Characters and tokens consumed up to the end of each kept chunk. */
  private readonly endChars: Float64Array
  private readonly endTokens: Float64Array
  private readonly words: Array<ReadonlyArray<number>>
  /** Per period: near run, exact chunks inside it, the exact run, where the exact stretch began. */
  private readonly nearRuns: Int32Array
  private readonly stable: Int32Array
  private readonly exactRuns: Int32Array
  private readonly exactStart: Float64Array
  private readonly nearStart: Float64Array
  private readonly block: Uint8Array
  private chunks = 0
  private tokens = 0
  /** Periods whose near run is going on (the only ones compared per chunk), and a flag per period. */
  private readonly active: Array<number> = []
  private readonly isActive: Uint8Array
  /** Masked hash → its newest positions in the ring (candidate periods for a new run). */
  private readonly recent = new Map<number, Array<number>>()

  constructor(private readonly options: LongRepeatOptions, minChunkChars: number) {
    this.maxPeriod = Math.max(1, Math.ceil(options.maxBlockChars / minChunkChars))
    this.capacity = this.maxPeriod + 2
    this.masked1 = new Int32Array(this.capacity)
    this.masked2 = new Int32Array(this.capacity)
    this.raw1 = new Int32Array(this.capacity)
    this.raw2 = new Int32Array(this.capacity)
    this.endChars = new Float64Array(this.capacity)
    this.endTokens = new Float64Array(this.capacity)
    this.words = new Array(this.capacity).fill([])
    const size = this.maxPeriod + 1
    this.nearRuns = new Int32Array(size)
    this.stable = new Int32Array(size)
    this.exactRuns = new Int32Array(size)
    this.exactStart = new Float64Array(size)
    this.nearStart = new Float64Array(size)
    this.block = new Uint8Array(size)
    this.isActive = new Uint8Array(size)
  }

  /** Record a chunk that ended after `charsSoFar` characters; returns the first hit it completes. */
  push(chunk: Chunk, charsSoFar: number): PeriodHit | null {
    const j = this.chunks++
    const slot = j % this.capacity
    if (j >= this.capacity) this.forget(j - this.capacity, this.masked1[slot]!)
    this.tokens += chunk.tokens
    this.masked1[slot] = chunk.masked1
    this.masked2[slot] = chunk.masked2
    this.raw1[slot] = chunk.raw1
    this.raw2[slot] = chunk.raw2
    this.endChars[slot] = charsSoFar
    this.endTokens[slot] = this.tokens
    this.words[slot] = chunk.words
    this.continueRuns(slot, j, chunk)
    this.startRuns(j, chunk)
    this.remember(j, chunk.masked1)
    return this.judgeActive(j, charsSoFar)
  }

  /** Periods with a run going on: one comparison each; a mismatch ends the run. */
  private continueRuns(slot: number, j: number, chunk: Chunk): void {
    let kept = 0
    for (let k = 0; k < this.active.length; k++) {
      const q = this.active[k]!
      const back = (slot - q + this.capacity) % this.capacity
      const nearSame = this.masked1[back] === chunk.masked1 && this.masked2[back] === chunk.masked2
      const exactSame = nearSame && this.raw1[back] === chunk.raw1 && this.raw2[back] === chunk.raw2
      this.extend(q, j, nearSame, exactSame)
      if (nearSame) this.active[kept++] = q
      else this.isActive[q] = 0
    }
    this.active.length = kept
  }

  /**
   * A run of period q can only start where this chunk equals the one q before it, i.e. at a
   * recent occurrence of the same hash: those distances are the only new periods to try.
   */
  private startRuns(j: number, chunk: Chunk): void {
    const seen = this.recent.get(chunk.masked1)
    if (seen === undefined) return
    for (let k = seen.length - 1; k >= 0; k--) {
      const q = j - seen[k]!
      if (q > this.maxPeriod) break
      if (this.isActive[q] === 1) continue
      const back = seen[k]! % this.capacity
      if (this.masked2[back] !== chunk.masked2) continue
      this.extend(q, j, true, this.raw1[back] === chunk.raw1 && this.raw2[back] === chunk.raw2)
      this.isActive[q] = 1
      this.active.push(q)
    }
  }

  /** The newest RECENT_PER_HASH positions of each hash still in the ring. */
  private remember(j: number, key: number): void {
    const seen = this.recent.get(key)
    if (seen === undefined) this.recent.set(key, [j])
    else {
      seen.push(j)
      if (seen.length > RECENT_PER_HASH) seen.shift()
    }
  }

  private forget(j: number, key: number): void {
    const seen = this.recent.get(key)
    if (seen === undefined || seen[0] !== j) return
    seen.shift()
    if (seen.length === 0) this.recent.delete(key)
  }

  /** After every run is up to date: the smallest period that trips now, if any. */
  private judgeActive(j: number, charsSoFar: number): PeriodHit | null {
    let best: number | null = null
    for (const q of this.active) if (this.nearRuns[q]! >= (this.options.copies - 1) * q && (best === null || q < best)) best = q
    if (best === null) return null
    // Judge in ascending order so a block is measured after its divisors (smallest first).
    const ready = this.active.filter((q) => this.nearRuns[q]! >= (this.options.copies - 1) * q).sort((a, b) => a - b)
    for (const q of ready) {
      const hit = this.judge(q, j, charsSoFar)
      if (hit !== null) return hit
    }
    return null
  }

  private extend(q: number, j: number, nearSame: boolean, exactSame: boolean): void {
    if (!nearSame) {
      this.nearRuns[q] = 0
      this.stable[q] = 0
      this.block[q] = Block.Unjudged
    } else {
      if (this.nearRuns[q]++ === 0) this.nearStart[q] = this.stretchStart(q, j)
      if (exactSame) this.stable[q]++
    }
    if (!exactSame) this.exactRuns[q] = 0
    else if (this.exactRuns[q]++ === 0) this.exactStart[q] = this.stretchStart(q, j)
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
    const enough = exact ? this.exactEnough(kind, q, charsSoFar) : kind === Block.Long && this.nearEnough(q, run, charsSoFar)
    if (!enough) return null
    this.block[q] = Block.Tripped
    return { view: exact ? "exact" : "near", period: q, blockChars: this.sizeOf(this.endChars, q, j), copies: Math.floor(run / q) + 1 }
  }

  private exactEnough(kind: Block, q: number, charsSoFar: number): boolean {
    if (kind === Block.Long || kind === Block.RunLine) return true
    return charsSoFar - this.exactStart[q]! >= this.options.runChars
  }

  // Numbers changed between copies. Healthy code is full of enumerations (SHA1, SHA256, …;
  // m11, m12, …; unrolled rounds), a handful of copies each: such a repeat needs
  // NEAR_EXTRA_COPIES more copies, and when the numbers change in more than a few chunks of each
  // copy it must also cover ENUMERATION_CHARS_FACTOR × runChars. A loop that only bumps a
  // counter keeps most chunks identical.
  private nearEnough(q: number, run: number, charsSoFar: number): boolean {
    if (run < (this.options.copies - 1 + NEAR_EXTRA_COPIES) * q) return false
    if (this.stable[q]! >= STABLE_SHARE * run) return true
    return charsSoFar - this.nearStart[q]! >= ENUMERATION_CHARS_FACTOR * this.options.runChars
  }

  private classify(q: number, j: number): Block {
    // A block that is itself several copies of a shorter one is that shorter block's business.
    const run = this.nearRuns[q]!
    for (let d = 1; d * 2 <= q; d++) if (q % d === 0 && this.nearRuns[d]! >= run) return Block.Ignored
    const tokens = this.sizeOf(this.endTokens, q, j)
    if (tokens < RUN_TOKENS && this.sizeOf(this.endChars, q, j) >= this.options.minBlockChars) return Block.RunLine
    if (this.distinctWords(q, j) < this.options.minWords) return Block.Short
    // Fewer tokens than minBlockTokens: SPEC's rule sees this block; leave it to it.
    return tokens >= this.options.minBlockTokens ? Block.Long : Block.Ignored
  }

  /** Growth of a cumulative ring over the newest q (≤ maxPeriod) chunks ending at chunk j. */
  private sizeOf(cumulative: Float64Array, q: number, j: number): number {
    const before = j - q < 0 ? 0 : cumulative[(j - q) % this.capacity]!
    return cumulative[j % this.capacity]! - before
  }

  /** Distinct words of the newest q chunks, counted up to `minWords`. */
  private distinctWords(q: number, j: number): number {
    const need = this.options.minWords
    const seen = new Set<number>()
    for (let i = 0; i < q && seen.size < need; i++) {
      for (const w of this.words[(j - i) % this.capacity]!) seen.add(w)
    }
    return seen.size
  }
}
