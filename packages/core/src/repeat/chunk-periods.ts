/**
 * Period search over the chunk-hash sequence of the long-period rule. For every period q (in
 * chunks) up to `maxPeriod`, `runs[q]` counts the consecutive chunks, ending at the newest, that
 * equal the chunk q before them: one comparison per period per chunk, two views (masked and
 * raw). Only the last maxPeriod + 1 chunks are kept, so memory is O(maxPeriod) however long the
 * stream runs, and each period is judged once per run (the run's block is a rotation of one
 * block throughout, so one look is enough).
 */
import type { Chunk } from "./content-chunker.js"
import type { LongRepeatOptions } from "./long-repeat-options.js"

/** An enumeration-like near repeat must cover this many times `runChars` before it trips. */
export const ENUMERATION_CHARS_FACTOR = 8
/** Copies beyond `copies` that a repeat whose numbers change needs. */
export const NEAR_EXTRA_COPIES = 3
/** Share of a near repeat's chunks that must match exactly for it to trip at `copies`. */
export const STABLE_SHARE = 0.85

export interface PeriodHit {
  /** "near": numbers masked, words required; "exact": raw characters, any content. */
  readonly view: "near" | "exact"
  /** Block length in chunks. */
  readonly period: number
  /** Characters of one copy of the block. */
  readonly blockChars: number
  /** Back-to-back copies of the block at this moment. */
  readonly copies: number
}

/** Per view: one run length, the character offset where the run's stretch began, judged flag. */
class View {
  readonly runs: Int32Array
  /** Near view: chunks of the run that also match exactly (the numbers did not change). */
  readonly stable: Int32Array
  readonly stretchStart: Float64Array
  readonly judged: Uint8Array
  constructor(size: number) {
    this.runs = new Int32Array(size)
    this.stable = new Int32Array(size)
    this.stretchStart = new Float64Array(size)
    this.judged = new Uint8Array(size)
  }
}

export class ChunkPeriods {
  private readonly maxPeriod: number
  private readonly capacity: number
  private readonly masked1: Int32Array
  private readonly masked2: Int32Array
  private readonly raw1: Int32Array
  private readonly raw2: Int32Array
  /** Characters consumed up to the end of each kept chunk. */
  private readonly endChars: Float64Array
  private readonly words: Array<ReadonlyArray<number>>
  private readonly near: View
  private readonly exact: View
  private chunks = 0

  constructor(private readonly options: LongRepeatOptions, minChunkChars: number) {
    this.maxPeriod = Math.max(1, Math.ceil(options.maxBlockChars / minChunkChars))
    this.capacity = this.maxPeriod + 2
    this.masked1 = new Int32Array(this.capacity)
    this.masked2 = new Int32Array(this.capacity)
    this.raw1 = new Int32Array(this.capacity)
    this.raw2 = new Int32Array(this.capacity)
    this.endChars = new Float64Array(this.capacity)
    this.words = new Array(this.capacity).fill([])
    this.near = new View(this.maxPeriod + 1)
    this.exact = new View(this.maxPeriod + 1)
  }

  /** Record a chunk that ended after `charsSoFar` characters; returns the first hit it completes. */
  push(chunk: Chunk, charsSoFar: number): PeriodHit | null {
    const j = this.chunks++
    const slot = j % this.capacity
    this.masked1[slot] = chunk.masked1
    this.masked2[slot] = chunk.masked2
    this.raw1[slot] = chunk.raw1
    this.raw2[slot] = chunk.raw2
    this.endChars[slot] = charsSoFar
    this.words[slot] = chunk.words
    const top = Math.min(this.maxPeriod, j)
    let hit: PeriodHit | null = null
    for (let q = 1; q <= top; q++) {
      const back = (slot - q + this.capacity) % this.capacity
      const nearSame = this.masked1[back] === chunk.masked1 && this.masked2[back] === chunk.masked2
      const exactSame = nearSame && this.raw1[back] === chunk.raw1 && this.raw2[back] === chunk.raw2
      this.extend(this.near, q, nearSame, j)
      if (exactSame) this.near.stable[q]++
      else if (!nearSame) this.near.stable[q] = 0
      this.extend(this.exact, q, exactSame, j)
      if (hit === null) hit = this.judgeNear(q, j, charsSoFar) ?? this.judgeExact(q, j, charsSoFar)
    }
    return hit
  }

  private extend(view: View, q: number, same: boolean, j: number): void {
    if (!same) {
      view.runs[q] = 0
      view.judged[q] = 0
      return
    }
    // A new run's stretch begins with the chunk before its first copy (j − q − 1), if kept.
    if (view.runs[q]++ === 0) view.stretchStart[q] = j - q - 1 < 0 ? 0 : this.endChars[(j - q - 1) % this.capacity]!
  }

  private charsOf(q: number, j: number): number {
    const before = j - q < 0 ? 0 : this.endChars[(j - q) % this.capacity]!
    return this.endChars[j % this.capacity]! - before
  }

  /** judged: 0 not looked at in this run, 2 block qualifies (waiting on the stretch), 1 done. */
  private judgeNear(q: number, j: number, charsSoFar: number): PeriodHit | null {
    const view = this.near
    const run = view.runs[q]!
    if (view.judged[q] === 1 || run < (this.options.copies - 1) * q) return null
    if (view.judged[q] === 0) {
      view.judged[q] = 1
      // A block that is itself several copies of a shorter one is that shorter block's business.
      for (let d = 1; d * 2 <= q; d++) if (q % d === 0 && view.runs[d]! >= run) return null
      if (this.charsOf(q, j) < this.options.minBlockChars || this.distinctWords(q, j) < this.options.minWords) return null
      view.judged[q] = 2
    }
    // Numbers changed between copies. Healthy code is full of enumerations (SHA1, SHA256, …;
    // m11, m12, …; unrolled rounds), a handful of copies each: such a repeat needs
    // NEAR_EXTRA_COPIES more copies, and when the numbers change in more than a few chunks of
    // each copy it must also cover ENUMERATION_CHARS_FACTOR × runChars. A loop that only bumps a
    // counter keeps most chunks identical; an exact repeat trips at `copies`.
    if (view.stable[q]! < run) {
      if (run < (this.options.copies - 1 + NEAR_EXTRA_COPIES) * q) return null
      const enumeration = view.stable[q]! < STABLE_SHARE * run
      if (enumeration && charsSoFar - view.stretchStart[q]! < ENUMERATION_CHARS_FACTOR * this.options.runChars) return null
    }
    view.judged[q] = 1
    const kind: PeriodHit["view"] = view.stable[q]! >= run ? "exact" : "near"
    return { view: kind, period: q, blockChars: this.charsOf(q, j), copies: Math.floor(run / q) + 1 }
  }

  private judgeExact(q: number, j: number, charsSoFar: number): PeriodHit | null {
    const view = this.exact
    const run = view.runs[q]!
    if (view.judged[q] === 1 || run < (this.options.copies - 1) * q) return null
    // An exact copy of a long block needs no words (a repeated base64 line); a short unit
    // (`!`, `0.`) must cover `runChars` first, since short exact runs occur in healthy text.
    const blockChars = this.charsOf(q, j)
    if (blockChars < this.options.minBlockChars && charsSoFar - view.stretchStart[q]! < this.options.runChars) return null
    view.judged[q] = 1
    return { view: "exact", period: q, blockChars, copies: Math.floor(run / q) + 1 }
  }

  /** Distinct words of the newest q chunks, counted up to `minWords` (O(block), once per run). */
  private distinctWords(q: number, j: number): number {
    const need = this.options.minWords
    const seen = new Set<number>()
    for (let i = 0; i < q && seen.size < need; i++) {
      for (const w of this.words[(j - i) % this.capacity]!) seen.add(w)
    }
    return seen.size
  }
}
