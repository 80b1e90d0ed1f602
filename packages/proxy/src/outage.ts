/**
 * Upstreams that have just worn out a request's whole retry budget on failures the policy retries
 * (resets, 5xx, overload, streams broken before content): until the mark runs out, each request to
 * them makes one attempt, not a budget of them. An agent retries a failed request itself, so with
 * the proxy's own retries under each of its attempts, an upstream that is down took several times
 * the requests it would have taken from the agent alone (a 503 or a reset every time: Gemini CLI
 * 35 upstream requests in 170 s through the proxy against 8 direct, Kilo 107 against 34). The first
 * request that is answered ends the mark.
 */

/** Keys kept at most: one per upstream (and client key tag); past it the expired go, then the oldest. */
const MAX_KEYS = 1024

export class OutageMemo {
  private readonly until = new Map<string, number>()

  /** Whether `key`'s upstream is marked as down now. */
  active(key: string, now = Date.now()): boolean {
    const until = this.until.get(key)
    if (until === undefined) return false
    if (until > now) return true
    this.until.delete(key)
    return false
  }

  /** Marks `key`'s upstream as down until `until` (a later mark replaces an earlier one). */
  mark(key: string, until: number, now = Date.now()): void {
    this.until.delete(key)
    if (this.until.size >= MAX_KEYS) this.evict(now)
    this.until.set(key, until)
  }

  /** An answer came: the upstream is up. */
  clear(key: string): void {
    this.until.delete(key)
  }

  get size(): number {
    return this.until.size
  }

  private evict(now: number): void {
    for (const [key, until] of this.until) if (until <= now) this.until.delete(key)
    // Still full: the oldest mark goes (a Map keeps the order marks were set in).
    if (this.until.size >= MAX_KEYS) this.until.delete(this.until.keys().next().value!)
  }
}
