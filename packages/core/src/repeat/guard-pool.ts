/**
 * Repetition guards kept from finished streams for the next ones. A server that guards many
 * streams (the proxy) made a guard for each, and its buffers, grown to fit the reply, were about
 * 40 % of what a stream allocated: the collector's pauses, not the guard's arithmetic, are what
 * delayed the other streams' chunks (docs/proxy-cost-history.md). A guard given back is started
 * over on the buffers it holds (`RepeatGuard.reset`, `GuardBuffers.recycle`), so the next stream
 * reads as it would with a new guard and allocates next to nothing.
 */
import { RepeatGuard, type GuardTrip, type RepeatGuardOptions } from "./repeat-guard.js"

export interface GuardPoolLimits {
  /** Idle guards kept; a guard given back past this is let go. */
  readonly maxIdle: number
  /** Bytes of buffers the idle guards hold together; a guard that would pass this is let go. */
  readonly maxIdleBytes: number
  /** A guard whose buffers grew past this (a long reply read with large custom options) is let go. */
  readonly maxGuardBytes: number
}

/**
 * At most 256 idle guards holding at most 16 MiB together, none past 1 MiB. With the default options
 * a guard holds about 50 KB after a short reply, about 126 KB once its chunk ring is full (after about
 * 2 KB of prose) and at most about 330 KB: a burst of 200 short streams finds all its guards again,
 * long replies find some, and a pool holds at most 16 MiB of them (the proxy has two per route: its
 * replies' guards and its calls' arguments').
 */
export const GUARD_POOL_LIMITS: GuardPoolLimits = { maxIdle: 256, maxIdleBytes: 16 * 1024 * 1024, maxGuardBytes: 1024 * 1024 }

/** No guard kept: each `take` makes one (for callers with one stream at a time). */
export const NO_POOL: GuardPoolLimits = { maxIdle: 0, maxIdleBytes: 0, maxGuardBytes: 0 }

/** Guards of one set of options: `take` one for a stream, `give` it back when the stream has ended and nothing will feed it again. */
export class RepeatGuardPool {
  private readonly idle: Array<RepeatGuard> = []
  /** Bytes the idle guards hold (a guard's buffers do not change while it is idle). */
  private idleBytes = 0

  constructor(
    readonly options: RepeatGuardOptions,
    private readonly limits: GuardPoolLimits = GUARD_POOL_LIMITS
  ) {}

  /** Guards waiting for a stream. */
  get idleCount(): number {
    return this.idle.length
  }

  /** Bytes of buffers the idle guards hold. */
  get idleHeldBytes(): number {
    return this.idleBytes
  }

  /** A guard that reads as a new one: kept from an earlier stream, or made now. */
  take(): RepeatGuard {
    const kept = this.idle.pop()
    if (kept === undefined) return new RepeatGuard(this.options)
    this.idleBytes -= kept.heldBytes
    return kept
  }

  /** The stream's guard, no longer fed: kept for the next stream (started over), or let go. Given twice, kept once. */
  give(guard: RepeatGuard): void {
    const bytes = guard.heldBytes
    if (this.idle.length >= this.limits.maxIdle || bytes > this.limits.maxGuardBytes || this.idleBytes + bytes > this.limits.maxIdleBytes) return
    if (this.idle.includes(guard)) return
    guard.reset()
    this.idle.push(guard)
    this.idleBytes += guard.heldBytes
  }
}

/**
 * One stream's guard on a pool: taken at the first push (a stream that never feeds it takes none),
 * given back by `release` when the stream has ended. A push under another key than the one before
 * (text after reasoning, another call's arguments) ends the word in progress first, and a trip that
 * ending finds is returned in place of the push.
 */
export class PooledGuard {
  private guard: RepeatGuard | null = null
  private key: string | null = null

  constructor(private readonly pool: RepeatGuardPool) {}

  push(key: string, text: string): GuardTrip | null {
    this.guard ??= this.pool.take()
    const switched = this.key !== null && this.key !== key ? this.guard.flush() : null
    this.key = key
    return switched ?? this.guard.push(text)
  }

  release(): void {
    if (this.guard !== null) this.pool.give(this.guard)
    this.guard = null
    this.key = null
  }
}
