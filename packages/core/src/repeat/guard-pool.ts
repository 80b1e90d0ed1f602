/**
 * Repetition guards kept from finished streams for the next ones. A server that guards many
 * streams (the proxy) made a guard for each, and its buffers, grown to fit the reply, were about
 * 40 % of what a stream allocated: the collector's pauses, not the guard's arithmetic, are what
 * delayed the other streams' chunks (docs/proxy-cost-history.md). A guard given back is started
 * over on the buffers it holds (`RepeatGuard.reset`, `GuardBuffers.recycle`), so the next stream
 * reads as it would with a new guard and allocates next to nothing.
 */
import { RepeatGuard, type RepeatGuardOptions } from "./repeat-guard.js"

export interface GuardPoolLimits {
  /** Idle guards kept; a guard given back past this is let go. */
  readonly maxIdle: number
  /** A guard whose buffers grew past this many bytes (a long reply) is let go rather than kept idle. */
  readonly maxGuardBytes: number
}

/**
 * At most 256 idle guards of at most 128 KB each (a guard after a reply of a few kilobytes holds
 * about 40 KB): a burst of 200 streams finds its guards again, and an idle proxy holds a few MB.
 */
export const GUARD_POOL_LIMITS: GuardPoolLimits = { maxIdle: 256, maxGuardBytes: 128 * 1024 }

/** No guard kept: each `take` makes one (for callers with one stream at a time). */
export const NO_POOL: GuardPoolLimits = { maxIdle: 0, maxGuardBytes: 0 }

/** Guards of one set of options: `take` one for a stream, `give` it back when the stream has ended and nothing will feed it again. */
export class RepeatGuardPool {
  private readonly idle: Array<RepeatGuard> = []

  constructor(
    readonly options: RepeatGuardOptions,
    private readonly limits: GuardPoolLimits = GUARD_POOL_LIMITS
  ) {}

  /** Guards waiting for a stream. */
  get idleCount(): number {
    return this.idle.length
  }

  /** A guard that reads as a new one: kept from an earlier stream, or made now. */
  take(): RepeatGuard {
    return this.idle.pop() ?? new RepeatGuard(this.options)
  }

  /** The stream's guard, no longer fed: kept for the next stream (started over), or let go. Given twice, kept once. */
  give(guard: RepeatGuard): void {
    if (this.idle.length >= this.limits.maxIdle || guard.heldBytes > this.limits.maxGuardBytes || this.idle.includes(guard)) return
    guard.reset()
    this.idle.push(guard)
  }
}
