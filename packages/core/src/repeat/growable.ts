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
 * Factor a buffer grows by. Each growth leaves the old copy to the GC, and the allocator keeps
 * much of that memory resident: sixteenfold, a guard after 100 KB of reply holds as much as one
 * made at full size (doubling or quadrupling held 5–15 % more), while a reply of about 1 KB still
 * keeps its buffers small (test/bench/repeat-guard-made.ts).
 */
export const GROWTH = 16

/** How a guard's buffers are sized: on demand (the default), or at full capacity from the start (tests compare the two). */
export interface BufferSizing {
  readonly preallocate?: boolean
}

export type NumericArray = Float64Array | Int32Array | Uint8Array

/** Length a buffer of `capacity` entries starts with. */
export const startLength = (capacity: number, sizing: BufferSizing): number =>
  sizing.preallocate === true ? capacity : Math.min(capacity, INITIAL_ENTRIES)

/** Shared empty buffers for state that may never be needed: `grown` copies out of them, nothing writes into them. */
export const EMPTY_INT32 = new Int32Array(0)
export const EMPTY_FLOAT64 = new Float64Array(0)
export const EMPTY_UINT8 = new Uint8Array(0)

/**
 * `array` if index `index` is in it, else a copy grown GROWTH-fold until it fits, at most `capacity`
 * entries; the new entries are `fill` (the value the buffer would have held, made at full size).
 */
export const grown = <T extends NumericArray>(array: T, index: number, capacity: number, fill = 0): T => {
  if (index < array.length || array.length >= capacity) return array
  let length = Math.max(INITIAL_ENTRIES, array.length)
  while (length <= index) length *= GROWTH
  const next = new (array.constructor as new (length: number) => T)(Math.min(capacity, length))
  next.set(array)
  if (fill !== 0) next.fill(fill, array.length)
  return next
}
