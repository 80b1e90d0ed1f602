import { GuardBuffers } from "./growable.js"

/**
 * The newest position of each token key among the last `capacity` tokens, for the short-period monitor:
 * an open-addressing table in typed arrays, so a token costs a probe or two and no allocation.
 * Keys of tokens that left the ring are dropped by rebuilding the table from the ring every
 * `capacity` tokens (O(1) amortized per token): it never holds more than 2 × capacity keys, in a
 * table of at least 4 × capacity slots. A slot is in use when its generation is the table's, so
 * `clear` is one increment, not a pass over the table.
 */
export class TokenPositions {
  private readonly keys: Float64Array
  private readonly positions: Float64Array
  private readonly generations: Uint32Array
  private readonly mask: number
  private readonly shift: number
  private generation = 1
  private used = 0

  constructor(capacity: number, private readonly buffers: GuardBuffers = new GuardBuffers()) {
    let bits = 4
    while (1 << bits < 4 * capacity) bits++
    this.mask = (1 << bits) - 1
    this.shift = 32 - bits
    this.keys = this.buffers.make(Float64Array, 1 << bits)
    this.positions = this.buffers.make(Float64Array, 1 << bits)
    this.generations = this.buffers.make(Uint32Array, 1 << bits)
  }

  /** Keys held (live and not yet dropped). */
  get size(): number {
    return this.used
  }

  /** Makes `position` the newest of `key`; returns the previous newest position, or -1. */
  record(key: number, position: number): number {
    let slot = Math.imul((key >>> 0) ^ ((key / 4294967296) | 0), 0x9e3779b1) >>> this.shift
    while (this.generations[slot] === this.generation) {
      if (this.keys[slot] === key) {
        const previous = this.positions[slot]!
        this.positions[slot] = position
        return previous
      }
      slot = (slot + 1) & this.mask
    }
    this.generations[slot] = this.generation
    this.keys[slot] = key
    this.positions[slot] = position
    this.used++
    return -1
  }

  clear(): void {
    this.used = 0
    if (++this.generation === 0xffffffff) {
      this.generations.fill(0)
      this.generation = 1
    }
  }
}
