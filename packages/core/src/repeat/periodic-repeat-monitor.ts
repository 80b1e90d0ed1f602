/**
 * Incremental decision of the in-stream repetition rule (docs/repetition.md), token by token.
 *
 * For every period p it keeps `runs[p]`: how many consecutive positions i, ending at the newest
 * one (k − p, where k is the newest token), satisfy t[i] == t[i + p]. One comparison per period
 * per token updates it. A run of p·(threshold − 1) positions spans p·threshold tokens, which fit
 * in the window because p ≤ floor(window / threshold), so the window start never cuts a run
 * short of qualifying. Inside one run the tokens are p-periodic, so every p-token block of it is
 * a rotation of the same block with the same distinct count: that count is taken once, when
 * the run reaches its length, not per token. `lastEnd[p]` remembers where the newest qualifying
 * stretch ends; the rule holds for p while that stretch is still inside the window. The result
 * is the same verdict as rescanning the window (docs/repetition.md has the argument; the tests
 * compare against `naive-rescan.ts` on thousands of inputs).
 *
 * Only periods p where the new token equals the token p back can extend a run; every other run
 * is 0. So instead of comparing every period, a chain of earlier positions of the same token
 * gives exactly those periods, and a run is continued only if it was extended at the previous
 * position (`matchEnd`), otherwise it restarts: the same counters, computed lazily. The verdict
 * needs a scan over the periods only while some qualifying stretch can still be in the window
 * (`liveUntil`), i.e. only around a loop.
 *
 * Cost per token: O(earlier occurrences of the token among the last maxPeriod tokens), a few on
 * prose, O(periods) only while a qualifying stretch is in the window, plus O(p) once per run
 * that reaches its length. Memory: O(window / threshold) — only the last
 * floor(window/threshold) + 1 tokens are kept, as 53-bit keys (`tokenKey`; two different tokens
 * share one with probability ~2⁻⁵³), with a table of their newest positions (token-positions.ts).
 */
import type { RepeatOptions } from "./repeat-options.js"
import { checkedRepeatOptions, maxRepeatPeriod } from "./repeat-options.js"
import { tokenKey } from "./token-keys.js"
import { TokenPositions } from "./token-positions.js"
import { GuardBuffers } from "./growable.js"

export interface RepeatTrip {
  /** 0-based index of the token whose arrival first made the rule hold. */
  readonly token: number
  /** The smallest block length for which the rule holds at that moment. */
  readonly period: number
  /** Back-to-back copies of that block inside the window at that moment. */
  readonly repeats: number
}

/** Plain-JSON state: `PeriodicRepeatMonitor.restore` continues exactly where `snapshot` was taken. */
export interface RepeatMonitorState {
  readonly version: 1
  readonly options: RepeatOptions
  readonly tokensSeen: number
  /** The last min(tokensSeen, floor(window/threshold) + 1) tokens, oldest first. */
  readonly recent: ReadonlyArray<string>
  /** Per period p = minBlock + index: current run length. */
  readonly runs: ReadonlyArray<number>
  /** Per period: whether the current run's block has enough distinct tokens (valid once it qualified). */
  readonly runQualifies: ReadonlyArray<boolean>
  /** Per period: position where the newest qualifying stretch ends, or null. */
  readonly lastQualifiedEnd: ReadonlyArray<number | null>
  readonly holdingPeriod: number | null
}

/** The incremental in-stream repetition rule (docs/repetition.md): push tokens, it says when a block repeats back to back. */
export class PeriodicRepeatMonitor {
  readonly options: RepeatOptions
  private readonly minBlock: number
  private readonly maxPeriod: number
  /** Ring buffer size: the newest token and the `maxPeriod` before it. */
  private readonly capacity: number
  /** Token keys (`tokenKey`) of the newest `capacity` tokens, and their text when fed strings. */
  private ring: Float64Array
  private readonly texts: Array<string> = []
  /** Some token came as a key only (`pushKey`): there is no text to snapshot. */
  private fedKeys = false
  private positions: TokenPositions
  /** Indexed by period p (entries below minBlock unused). */
  private runs: Int32Array
  /** Position at which runs[p] was last extended: the run goes on only from the position before. */
  private matchEnd: Float64Array
  /** Per ring slot, the previous position of the same token (or -1). */
  private prevPos: Float64Array
  /** No qualifying stretch is in the window after this position (no scan needed). */
  private liveUntil = -Infinity
  /** A run of period p qualifies at p · (threshold − 1) positions. */
  private readonly copiesAfterFirst: number
  private qualifies: Uint8Array
  private lastEnd: Float64Array
  private seen = 0
  private holding = 0

  /**
   * `buffers`: made on demand (the default: the ring and the per-period state start small
   * and grow before the ring first wraps; growable.ts) or at full size (tests compare the two).
   */
  constructor(options: Partial<RepeatOptions> = {}, private readonly buffers: GuardBuffers = new GuardBuffers()) {
    this.options = checkedRepeatOptions(options)
    this.minBlock = this.options.minBlock
    this.maxPeriod = maxRepeatPeriod(this.options)
    this.capacity = this.maxPeriod + 1
    this.copiesAfterFirst = this.options.threshold - 1
    // Periods p ≤ the newest position < the ring's length (and ≤ maxPeriod): both start at one length.
    const start = this.buffers.startLength(this.capacity)
    this.ring = this.buffers.make(Float64Array, start)
    this.positions = new TokenPositions(start, this.buffers)
    this.runs = this.buffers.make(Int32Array, start)
    this.qualifies = this.buffers.make(Uint8Array, start)
    this.lastEnd = this.buffers.make(Float64Array, start, -Infinity)
    this.matchEnd = this.buffers.make(Float64Array, start, -1)
    this.prevPos = this.buffers.make(Float64Array, start, -1)
  }

  /**
   * Room for ring slot `slot` (before the first wrap: positions 0 … seen − 1 are all in the ring)
   * and for every period up to the ring's new length; the position table is made again, larger,
   * from the ring, as it was (no token has left it yet).
   */
  private grow(slot: number): void {
    const cap = this.capacity
    this.ring = this.buffers.grown(this.ring, slot, cap)
    this.prevPos = this.buffers.grown(this.prevPos, slot, cap, -1)
    const top = this.ring.length - 1
    this.runs = this.buffers.grown(this.runs, top, cap)
    this.qualifies = this.buffers.grown(this.qualifies, top, cap)
    this.lastEnd = this.buffers.grown(this.lastEnd, top, cap, -Infinity)
    this.matchEnd = this.buffers.grown(this.matchEnd, top, cap, -1)
    this.positions = new TokenPositions(this.ring.length, this.buffers)
    for (let k = 0; k < this.seen; k++) this.positions.record(this.ring[k]!, k)
  }

  /** Tokens pushed since construction or the last `reset`; the next token gets this index. */
  get tokensSeen(): number {
    return this.seen
  }

  /** Smallest period for which the rule holds after the last push, or null. */
  get holdingPeriod(): number | null {
    return this.holding === 0 ? null : this.holding
  }

  /** Distinct tokens currently held in the position table (at most 2 × (floor(window/threshold) + 1)). */
  get internedTokens(): number {
    return this.positions.size
  }

  /**
   * Feed one token. Returns a trip when this token makes the rule hold after it did not hold
   * before (so a loop that keeps going trips once); otherwise null.
   */
  push(token: string): RepeatTrip | null {
    this.texts[this.seen % this.capacity] = token
    return this.advance(tokenKey(token))
  }

  /**
   * `push` for a token given by its key (`tokenKey` / `StreamTokenKeys`): the guard's hot path,
   * with no token string. A monitor fed keys has no token text, so it cannot `snapshot`.
   */
  pushKey(key: number): RepeatTrip | null {
    this.fedKeys = true
    return this.advance(key)
  }

  private advance(key: number): RepeatTrip | null {
    const k = this.seen
    const cap = this.capacity
    const slot = k % cap
    if (slot >= this.ring.length) this.grow(slot)
    // Every `capacity` tokens, drop the keys that left the ring.
    if (slot === 0 && k > 0) this.rebuildPositions()
    this.prevPos[slot] = this.positions.record(key, k)
    this.ring[slot] = key
    this.seen = k + 1

    const window = this.options.window
    // Every earlier position of this token within maxPeriod is a period whose run goes on.
    for (let pos = this.prevPos[slot]!; pos >= 0 && k - pos <= this.maxPeriod; pos = this.prevPos[pos % cap]!) {
      const p = k - pos
      if (p >= this.minBlock) this.extend(p, k, window)
    }
    const smallest = k > this.liveUntil ? 0 : this.smallestHolding(k - window + 1, k < this.maxPeriod ? k : this.maxPeriod)
    const wasHolding = this.holding !== 0
    this.holding = smallest
    if (smallest === 0 || wasHolding) return null
    return { token: k, period: smallest, repeats: this.repeatsOf(smallest) }
  }

  /** t[k] == t[k − p]: the run of period p goes on if it went on at k − 1, else starts. */
  private extend(p: number, k: number, window: number): void {
    const before = this.matchEnd[p] === k - 1 ? this.runs[p]! : 0
    // Saturate: beyond `window` the length no longer matters and the counter cannot overflow.
    const run = before < window ? before + 1 : window
    this.runs[p] = run
    this.matchEnd[p] = k
    const need = p * this.copiesAfterFirst
    if (run < need) return
    if (run === need) this.qualifies[p] = this.distinctInLast(p) >= this.options.minDistinct ? 1 : 0
    if (this.qualifies[p] !== 1) return
    this.lastEnd[p] = k - p
    // That stretch stays in the window while its first position k − p − need + 1 ≥ k' − window + 1.
    const until = k - p - need + window
    if (until > this.liveUntil) this.liveUntil = until
  }

  private smallestHolding(windowStart: number, top: number): number {
    for (let p = this.minBlock; p <= top; p++) if (this.lastEnd[p]! - p * this.copiesAfterFirst + 1 >= windowStart) return p
    return 0
  }

  /** Current run of period p (0 unless it was extended at the newest position). */
  private runOf(p: number): number {
    return this.matchEnd[p] === this.seen - 1 ? this.runs[p]! : 0
  }

  /** Bytes of the buffers it holds (growable.ts). */
  get heldBytes(): number {
    return this.buffers.heldBytes
  }

  reset(): void {
    this.runs.fill(0)
    this.matchEnd.fill(-1)
    this.positions.clear()
    this.prevPos.fill(-1)
    this.fedKeys = false
    this.liveUntil = -Infinity
    this.qualifies.fill(0)
    this.lastEnd.fill(-Infinity)
    this.seen = 0
    this.holding = 0
  }

  snapshot(): RepeatMonitorState {
    // Every period's state is read: the arrays at full size (entries not reached yet hold their start values).
    if (this.ring.length < this.capacity) this.grow(this.capacity - 1)
    const count = Math.min(this.seen, this.capacity)
    const recent: Array<string> = []
    if (this.fedKeys) throw new RangeError("snapshot needs the token text: this monitor was fed keys (pushKey)")
    for (let k = this.seen - count; k < this.seen; k++) recent.push(this.texts[k % this.capacity]!)
    const runs: Array<number> = []
    const runQualifies: Array<boolean> = []
    const lastQualifiedEnd: Array<number | null> = []
    for (let p = this.minBlock; p <= this.maxPeriod; p++) {
      runs.push(this.runOf(p))
      runQualifies.push(this.qualifies[p] === 1)
      const end = this.lastEnd[p]
      lastQualifiedEnd.push(end === -Infinity ? null : end)
    }
    return {
      version: 1,
      options: this.options,
      tokensSeen: this.seen,
      recent,
      runs,
      runQualifies,
      lastQualifiedEnd,
      holdingPeriod: this.holdingPeriod
    }
  }

  static restore(state: RepeatMonitorState): PeriodicRepeatMonitor {
    const monitor = new PeriodicRepeatMonitor(state.options, new GuardBuffers(true))
    const periods = monitor.maxPeriod - monitor.minBlock + 1
    const expectedRecent = Math.min(state.tokensSeen, monitor.capacity)
    if (
      state.version !== 1 ||
      state.recent.length !== expectedRecent ||
      state.runs.length !== periods ||
      state.runQualifies.length !== periods ||
      state.lastQualifiedEnd.length !== periods
    ) {
      throw new RangeError("repeat monitor state does not match its options")
    }
    for (let i = 0; i < state.recent.length; i++) {
      const k = state.tokensSeen - state.recent.length + i
      monitor.ring[k % monitor.capacity] = tokenKey(state.recent[i]!)
      monitor.texts[k % monitor.capacity] = state.recent[i]!
    }
    monitor.seen = state.tokensSeen
    for (let i = 0; i < periods; i++) {
      const p = monitor.minBlock + i
      monitor.runs[p] = state.runs[i]
      monitor.matchEnd[p] = state.runs[i] > 0 ? state.tokensSeen - 1 : -1
      monitor.qualifies[p] = state.runQualifies[i] ? 1 : 0
      const end = state.lastQualifiedEnd[i] ?? -Infinity
      monitor.lastEnd[p] = end
      monitor.liveUntil = Math.max(monitor.liveUntil, end - p * monitor.copiesAfterFirst + monitor.options.window)
    }
    monitor.rebuildChains()
    monitor.holding = state.holdingPeriod ?? 0
    return monitor
  }

  /** Copies of the period-p block in the current run, counting only positions inside the window. */
  private repeatsOf(p: number): number {
    const positions = Math.min(this.runOf(p), this.options.window - p)
    return Math.floor(positions / p) + 1
  }

  /** Distinct tokens among the last p tokens (p ≤ maxPeriod < capacity; once per run reaching its length). */
  private distinctInLast(p: number): number {
    const seen = new Set<number>()
    const cap = this.capacity
    let slot = (this.seen - 1) % cap
    for (let n = 0; n < p; n++) {
      seen.add(this.ring[slot]!)
      slot = slot === 0 ? cap - 1 : slot - 1
    }
    return seen.size
  }

  /** The position table from the tokens still in the ring. */
  private rebuildPositions(): void {
    this.positions.clear()
    const held = Math.min(this.seen, this.capacity - 1)
    for (let k = this.seen - held; k < this.seen; k++) this.positions.record(this.ring[k % this.capacity]!, k)
  }

  /** Position table and chains from the ring (after a restore). */
  private rebuildChains(): void {
    this.positions.clear()
    const held = Math.min(this.seen, this.capacity)
    for (let k = this.seen - held; k < this.seen; k++) {
      const slot = k % this.capacity
      this.prevPos[slot] = this.positions.record(this.ring[slot]!, k)
    }
  }
}
