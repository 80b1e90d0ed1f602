/**
 * Echoes of chunks, for a block that varies in a few places per copy (two or three words each
 * picked from a few values, one of 3 wordings of a sentence). A variation that changes a word's
 * length moves the cuts near it, so the copies do not all hold the same number of chunks and no
 * fixed period (ChunkPeriods) lines them up. Here each chunk is matched, numbers masked, against
 * the newest earlier occurrence of its hash within maxBlockChars, whatever the distance. Its
 * *depth* counts the copies back to back: the source's depth + 1 when the source repeated its own
 * source from about as far back (a steady distance), else 1.
 *
 * A chunk at depth ≥ copies + ECHO_EXTRA_COPIES is *deep*. It trips when a deep chunk ends a copy
 * (from just after its source) that is at least ECHO_SHARE deep chunks by characters, whose other
 * chunks all came back exactly (numbers too) within maxBlockChars — a loop's varying part is a
 * few values written again and again, an enumeration's (is_dir, is_file, …; Int8Array,
 * Int16Array, …) is new in every entry — and that holds `minBlockTokens` tokens and more distinct
 * words than numbers (and at least `minWords`).
 *
 * Cost: a few steps along ChunkPeriods' chain of equal masked hashes per chunk, plus a
 * distinct-word count over a copy at most once per copy of a given length (O(1) amortized).
 * Memory: a ring of 2·maxPeriod + 3 chunks, like ChunkPeriods, holding only what is the echoes' own
 * (depth, distance, deep and fresh counts): each chunk's masked hashes, numbers and the characters,
 * tokens and words up to its end are read from ChunkPeriods, which keeps them once for both.
 */
import type { ContentChunker } from "./content-chunker.js"
import { WORD_RING } from "./content-chunker.js"
import type { LongRepeatOptions } from "./long-repeat-options.js"
import type { ChunkPeriods, PeriodHit } from "./chunk-periods.js"
import { GuardBuffers } from "./growable.js"

/** Deep chunks must cover at least this share of a copy's characters (the varying part is the smaller one). */
export const ECHO_SHARE = 0.6
/** Copies beyond `copies` an echo needs: its evidence is weaker than a fixed period's. */
export const ECHO_EXTRA_COPIES = 3
/** A varying part must have come back exactly within this many copies (a rotation among a few values). */
export const ECHO_RECUR_COPIES = 4
/** Depth is counted up to here (enough for any `copies`). */
const MAX_DEPTH = 1 << 20

export class ChunkEchoes {
  private readonly maxPeriod: number
  private readonly capacity: number
  private depth: Int32Array
  /** Chunks back to each kept chunk's source (0: none). */
  private distance: Int32Array
  /** Characters of deep chunks (depth ≥ copies + ECHO_EXTRA_COPIES) up to the end of each kept chunk. */
  private endDeep: Float64Array
  /** Chunks outside the steady repeat and not seen before exactly, up to the end of each kept chunk. */
  private endFresh: Float64Array
  /** Chunks per copy of the newest steady repeat (a chunk at depth 2 or more): how far back "a few copies" reach. */
  private period = 0
  /** A copy length whose words were counted without a trip, and the chunk from which to count again. */
  private checkedPeriod = 0
  private checkedUntil = 0
  private chunks = 0
  private tripped = false

  constructor(
    private readonly options: LongRepeatOptions,
    minChunkChars: number,
    private readonly chunker: ContentChunker,
    private readonly periods: ChunkPeriods,
    private readonly buffers: GuardBuffers = new GuardBuffers()
  ) {
    this.maxPeriod = Math.max(1, Math.ceil(options.maxBlockChars / minChunkChars))
    this.capacity = 2 * this.maxPeriod + 3
    const kept = this.buffers.startLength(this.capacity)
    this.depth = this.buffers.make(Int32Array, kept)
    this.distance = this.buffers.make(Int32Array, kept)
    this.endDeep = this.buffers.make(Float64Array, kept)
    this.endFresh = this.buffers.make(Float64Array, kept)
  }

  /** Room for chunk slot `slot` in the ring (before its first wrap). */
  private grow(slot: number): void {
    const cap = this.capacity
    this.depth = this.buffers.grown(this.depth, slot, cap)
    this.distance = this.buffers.grown(this.distance, slot, cap)
    this.endDeep = this.buffers.grown(this.endDeep, slot, cap)
    this.endFresh = this.buffers.grown(this.endFresh, slot, cap)
  }

  /** Record the chunk the chunker just closed, after `charsSoFar` characters; a hit once, when it trips. */
  push(charsSoFar: number): PeriodHit | null {
    const j = this.chunks++
    const slot = j % this.capacity
    if (slot >= this.depth.length) this.grow(slot)
    const src = this.sourceOf(j)
    this.distance[slot] = src < 0 ? 0 : j - src
    this.depth[slot] = src < 0 ? 0 : this.steady(j - src, src) ? Math.min(MAX_DEPTH, this.depth[src % this.capacity]! + 1) : 1
    const deep = this.depth[slot]! >= this.options.copies + ECHO_EXTRA_COPIES
    const chunkChars = charsSoFar - this.periods.charsThrough(j - 1)
    this.endDeep[slot] = (j > 0 ? this.endDeep[(j - 1) % this.capacity]! : 0) + (deep ? chunkChars : 0)
    if (this.depth[slot]! >= 2) this.period = j - src
    // A chunk that is not part of the steady repeat must come back exactly, numbers too, and
    // within a few copies: a loop rotates among a few values; a listing written out twice (a
    // type that spells the same record of 8 keys in two places) comes back only after all of them.
    const fresh = !deep && (src < 0 || !this.seenExactly(j, src, ECHO_RECUR_COPIES * this.period))
    this.endFresh[slot] = (j > 0 ? this.endFresh[(j - 1) % this.capacity]! : 0) + (fresh ? 1 : 0)
    if (!deep || this.tripped) return null
    return this.judge(j, src)
  }

  /** The newest earlier occurrence of chunk j within maxPeriod chunks (so depth counts back-to-back copies), or -1. */
  private sourceOf(j: number): number {
    // ChunkPeriods has linked chunk j into its chain of equal masked hashes already.
    let pos = this.periods.previousSame(j)
    for (let n = 0; n < 4 && pos >= 0 && j - pos <= this.maxPeriod; n++, pos = this.periods.previousSame(pos)) {
      if (this.periods.nearSame(j, pos)) return pos
    }
    return -1
  }

  /**
   * The copies come back to back: the source repeated its own source from about as far back
   * (a varying part may add or drop a chunk or two per copy). The same example written in
   * several doc comments, or a line every few entries of a listing, comes back at irregular gaps.
   */
  private steady(distance: number, src: number): boolean {
    const before = this.distance[src % this.capacity]!
    return before > 0 && Math.abs(distance - before) <= Math.max(2, distance >> 3)
  }

  /** An earlier chunk within `within` chunks (and maxPeriod), from `src` (the newest with j's masked text) back, has j's numbers too. */
  private seenExactly(j: number, src: number, within: number): boolean {
    const numbers = this.periods.numbers.hashOf(j)
    const reach = Math.min(this.maxPeriod, within)
    let pos = src
    for (let n = 0; n < 8 && pos >= 0 && j - pos <= reach; n++, pos = this.periods.previousSame(pos)) {
      if (this.periods.nearSame(j, pos) && this.periods.numbers.hashOf(pos) === numbers) return true
    }
    return false
  }

  /** Chunk j is deep and repeats chunk `src`: is the copy between them mostly deep chunks, and prose? */
  private judge(j: number, src: number): PeriodHit | null {
    const from = src + 1
    const copyChars = this.periods.charsThrough(j) - this.periods.charsThrough(from - 1)
    if (copyChars > this.options.maxBlockChars || this.since(this.endDeep, from, j) < ECHO_SHARE * copyChars) return null
    // A loop's varying part comes back exactly (a few file names, 3 wordings); an enumeration's
    // (is_dir, is_file, …; Int8Array, Int16Array, …) is new in every entry.
    if (this.since(this.endFresh, from, j) > 0) return null
    if (this.periods.tokensThrough(j) - this.periods.tokensThrough(from - 1) < this.options.minBlockTokens) return null
    const numbers = this.periods.numbers.countIn(j - from + 1, j)
    // Counting distinct words is O(copy): for the same copy length, once per copy (O(1) amortized).
    if (j - src === this.checkedPeriod && j < this.checkedUntil) return null
    if (this.distinctWords(from, j, Math.max(this.options.minWords, numbers + 1)) <= Math.max(this.options.minWords - 1, numbers)) {
      this.checkedPeriod = j - src
      this.checkedUntil = j + (j - src)
      return null
    }
    this.tripped = true
    return { view: "near", period: j - src, blockChars: copyChars, copies: this.depth[j % this.capacity]! + 1 }
  }

  /** Growth of a cumulative ring from the start of chunk `from` to the end of chunk j. */
  private since(cumulative: Float64Array, from: number, j: number): number {
    const before = from - 1 < 0 ? 0 : cumulative[(from - 1) % this.capacity]!
    return cumulative[j % this.capacity]! - before
  }

  /** Distinct non-CJK words of chunks from..j, counted up to `need`. */
  private distinctWords(from: number, j: number, need: number): number {
    const last = this.periods.wordsThrough(j)
    const first = Math.max(this.periods.wordsThrough(from - 1), last - WORD_RING)
    const seen = new Set<number>()
    const { words, wordIsCjk } = this.chunker
    for (let w = last - 1; w >= first && seen.size < need; w--) if (wordIsCjk[w % WORD_RING] === 0) seen.add(words[w % WORD_RING]!)
    return seen.size
  }
}
