/**
 * The numbers of the chunks the long-period rule keeps: where each chunk's values sit in the
 * chunker's ring of values, a hash of them, and the two comparisons the rule makes between
 * copies — the same values (an exact repeat) and values moving by the same step as in the copy
 * before (`v[j] − v[j−q] = v[j−q] − v[j−2q]`: a counter). Values that left the chunker's ring
 * read as missing, and a comparison needing them fails.
 */
import type { ContentChunker } from "./content-chunker.js"
import { NUMBER_RING } from "./content-chunker.js"
import { GuardBuffers } from "./growable.js"

export class ChunkNumbers {
  private hashes: Int32Array
  /** Values read up to the end of each kept chunk (running count). */
  private ends: Float64Array

  constructor(private readonly capacity: number, private readonly chunker: ContentChunker, private readonly buffers: GuardBuffers = new GuardBuffers()) {
    this.hashes = this.buffers.make(Int32Array, this.buffers.startLength(capacity))
    this.ends = this.buffers.make(Float64Array, this.hashes.length)
  }

  /** Record the chunk the chunker just closed as chunk j. */
  record(j: number): void {
    const slot = j % this.capacity
    if (slot >= this.hashes.length) {
      this.hashes = this.buffers.grown(this.hashes, slot, this.capacity)
      this.ends = this.buffers.grown(this.ends, slot, this.capacity)
    }
    this.hashes[slot] = this.chunker.lastNumbersHash
    this.ends[slot] = this.chunker.lastNumberEnd
  }

  /** The hash of kept chunk j's numbers (equal masked text and equal hashes: an exact repeat, but for a collision). */
  hashOf(j: number): number {
    return this.hashes[j % this.capacity]!
  }

  /** Numbers in the newest q chunks ending at chunk j. */
  countIn(q: number, j: number): number {
    return this.ends[j % this.capacity]! - (j - q < 0 ? 0 : this.ends[(j - q) % this.capacity]!)
  }

  /** Chunks j and back hold the same values (their masked text is known to be equal). */
  same(j: number, back: number): boolean {
    if (this.hashes[j % this.capacity] !== this.hashes[back % this.capacity]) return false
    const count = this.count(j)
    if (count === 0) return true
    if (!this.held(back) || count !== this.count(back)) return false
    const v = this.chunker.numbers
    const a = this.start(j)
    const b = this.start(back)
    for (let i = 0; i < count; i++) if (v[(a + i) % NUMBER_RING] !== v[(b + i) % NUMBER_RING]) return false
    return true
  }

  /** How many values of chunk j differ from chunk back's (Infinity when they cannot be compared). */
  differing(j: number, back: number): number {
    const count = this.count(j)
    if (!this.held(back) || count !== this.count(back)) return Infinity
    const v = this.chunker.numbers
    const a = this.start(j)
    const b = this.start(back)
    let differ = 0
    for (let i = 0; i < count; i++) if (v[(a + i) % NUMBER_RING] !== v[(b + i) % NUMBER_RING]) differ++
    return differ
  }

  /** Each value of chunk j moved from chunk j − q by what it moved from j − 2q to j − q. */
  progress(q: number, j: number): boolean {
    const at = this.threeCopies(q, j)
    if (at === null) return false
    const v = this.chunker.numbers
    for (let i = 0; i < at.count; i++) {
      const before = v[(at.b + i) % NUMBER_RING]!
      if (v[(at.a + i) % NUMBER_RING]! - before !== before - v[(at.c + i) % NUMBER_RING]!) return false
    }
    return true
  }

  /**
   * Over chunks j − 2q, j − q and j, no value went up and some value went down each time: a
   * countdown (by any steps: `3.8`, `3.7`, `3.6` are not equal steps in floating point).
   */
  countsDown(q: number, j: number): boolean {
    const at = this.threeCopies(q, j)
    if (at === null) return false
    const v = this.chunker.numbers
    let fellLast = false
    let fellBefore = false
    for (let i = 0; i < at.count; i++) {
      const now = v[(at.a + i) % NUMBER_RING]!
      const before = v[(at.b + i) % NUMBER_RING]!
      const first = v[(at.c + i) % NUMBER_RING]!
      if (now > before || before > first) return false
      if (now < before) fellLast = true
      if (before < first) fellBefore = true
    }
    return fellLast && fellBefore
  }

  /** Where the values of chunks j, j − q and j − 2q start in the ring; null when they cannot be compared. */
  private threeCopies(q: number, j: number): { readonly a: number; readonly b: number; readonly c: number; readonly count: number } | null {
    const count = this.count(j)
    if (!this.held(j - 2 * q) || count !== this.count(j - 2 * q)) return null
    return { a: this.start(j), b: this.start(j - q), c: this.start(j - 2 * q), count }
  }

  private held(j: number): boolean {
    return this.chunker.numberCount - this.start(j) <= NUMBER_RING
  }

  private start(j: number): number {
    return j === 0 ? 0 : this.ends[(j - 1) % this.capacity]!
  }

  private count(j: number): number {
    return this.ends[j % this.capacity]! - this.start(j)
  }
}
