/**
 * Buffers that start small and grow to their capacity on demand. A guard is made for every reply,
 * and most replies are short and healthy: allocating (and zeroing) every buffer at full capacity up
 * front cost more than feeding a short reply through it. A buffer starts with INITIAL_ENTRIES
 * entries (or its capacity, if smaller) and grows GROWTH-fold, by copy, when an index past its
 * length is about to be written. A ring indexed `i % capacity` reaches its capacity before its first wrap,
 * so indexes already written keep their meaning; the owners only ever read indexes they wrote.
 */

/** Entries a buffer starts with: a reply of about a kilobyte fits in most of them unchanged. */
export const INITIAL_ENTRIES = 64
/**
 * Factor a buffer grows by. Each growth leaves the old copy behind (held for the guard's next
 * stream by `GuardBuffers`; before that, left to the GC, whose allocator kept much of it resident):
 * sixteenfold, a guard after 100 KB of reply holds as much as one made at full size (doubling or
 * quadrupling held 5–15 % more), while a reply of about 1 KB still keeps its buffers small
 * (test/bench/repeat-guard-made.ts).
 */
export const GROWTH = 16

export type NumericArray = Float64Array | Int32Array | Uint8Array | Uint32Array

type NumericArrayType = new (length: number) => NumericArray

/** Shared empty buffers for state that may never be needed: grown into a new buffer, never written. */
export const EMPTY_INT32 = new Int32Array(0)
export const EMPTY_FLOAT64 = new Float64Array(0)
export const EMPTY_UINT8 = new Uint8Array(0)

/** Length of the buffer that `array` grows into to hold `index`: GROWTH-fold steps from INITIAL_ENTRIES, at most `capacity`. */
const grownLength = (length: number, index: number, capacity: number): number => {
  let next = Math.max(INITIAL_ENTRIES, length)
  while (next <= index) next *= GROWTH
  return Math.min(capacity, next)
}

/**
 * Where a guard's buffers come from: made on demand (the default) or at full capacity from the start
 * (`preallocate`; tests compare the two). Every buffer handed out is kept, so a guard started over
 * for another stream (`recycle`, then its parts made anew) takes the same buffers back, cleared,
 * instead of allocating them again: a proxy makes a guard for every stream, and those allocations
 * were about 40 % of what a stream allocated (docs/proxy-cost-history.md). A buffer replaced by a
 * larger one stays held too (at most 1/GROWTH of the larger), since a later stream asks for its
 * length first.
 */
export class GuardBuffers {
  private handed: Array<NumericArray> = []
  /** Buffers free again, per type and length (lengths are the few steps of `grownLength`). */
  private readonly free = new Map<NumericArrayType, Map<number, Array<NumericArray>>>()
  private bytes = 0

  constructor(readonly preallocate = false) {}

  /** Bytes of every buffer held, handed out or free. */
  get heldBytes(): number {
    return this.bytes
  }

  /** Length a buffer of `capacity` entries starts with. */
  startLength(capacity: number): number {
    return this.preallocate ? capacity : Math.min(capacity, INITIAL_ENTRIES)
  }

  /** A buffer of `length` entries, each `fill`. */
  make<T extends NumericArray>(type: new (length: number) => T, length: number, fill = 0): T {
    const kept = this.free.get(type)?.get(length)?.pop() as T | undefined
    const array = kept ?? new type(length)
    if (kept !== undefined) array.fill(fill)
    else {
      this.bytes += array.byteLength
      if (fill !== 0) array.fill(fill)
    }
    this.handed.push(array)
    return array
  }

  /**
   * `array` if index `index` is in it, else a buffer grown GROWTH-fold until it fits (at most
   * `capacity` entries) holding `array`'s entries; the new entries are `fill` (the value the buffer
   * would have held, made at full size).
   */
  grown<T extends NumericArray>(array: T, index: number, capacity: number, fill = 0): T {
    if (index < array.length || array.length >= capacity) return array
    const type = array.constructor as new (length: number) => T
    const next = this.make(type, grownLength(array.length, index, capacity), fill)
    next.set(array)
    return next
  }

  /** Every buffer handed out is free again: the parts that held them must not be used after this. */
  recycle(): void {
    for (const array of this.handed) {
      const type = array.constructor as NumericArrayType
      let byLength = this.free.get(type)
      if (byLength === undefined) this.free.set(type, (byLength = new Map()))
      const list = byLength.get(array.length)
      if (list === undefined) byLength.set(array.length, [array])
      else list.push(array)
    }
    this.handed = []
  }
}
