/**
 * Fleet-wide backoff: when an upstream says "wait" (Retry-After on a 429/503/529), every
 * conversation that uses it waits, not just the one that was told; with a shared store, every
 * proxy replica waits too. The board keeps one time per upstream and key: nobody calls it before then.
 */
import { createHash } from "node:crypto"

export interface BackoffBoard {
  /** Epoch ms before which `upstream` is not to be called (0: no hold). */
  readonly until: (upstream: string) => Promise<number>
  /** Hold `upstream` until `untilMs` (a later hold already in place stays). */
  readonly hold: (upstream: string, untilMs: number) => Promise<void>
}

/**
 * The key a board keeps for the upstream at `base`: its origin and path, without the user, password
 * or query an upstream URL may carry (`https://u:pw@host/v1?key=…`). The key is written to the shared
 * store, which must hold no credential, and replicas given the same upstream still share it.
 */
export const backoffKeyOf = (base: string): string => {
  try {
    const url = new URL(base)
    return `${url.origin}${url.pathname}`.replace(/\/+$/, "")
  } catch {
    // Not a URL (the routes refuse those): keep no part that could be a credential.
    return base.replace(/\/\/[^/@]*@/, "//").replace(/[?#].*$/s, "")
  }
}

/** The request headers that carry a client's own key, as the proxy forwards them. */
const CREDENTIAL_HEADERS = ["authorization", "x-api-key", "x-goog-api-key", "api-key"]

/**
 * The board's key for one request: the upstream's (`backoffKeyOf`), and, when each client brings its
 * own key (the proxy holds none), a tag of that key, so one tenant's rate limit does not hold the
 * others. The tag is 16 hex digits of the key's SHA-256: the shared store holds no credential.
 */
export const backoffKeyFor = (base: string, headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>, proxyHoldsKey: boolean): string => {
  const upstream = backoffKeyOf(base)
  if (proxyHoldsKey) return upstream
  const credential = CREDENTIAL_HEADERS.map((h) => headers[h]).find((v) => typeof v === "string" && v !== "")
  return typeof credential === "string" ? `${upstream}#${createHash("sha256").update(credential).digest("hex").slice(0, 16)}` : upstream
}

/** A board for one process. */
export const memoryBackoff = (): BackoffBoard => {
  const holds = new Map<string, number>()
  return {
    until: async (upstream) => holds.get(upstream) ?? 0,
    hold: async (upstream, untilMs) => {
      if (untilMs > (holds.get(upstream) ?? 0)) holds.set(upstream, untilMs)
    }
  }
}

/** A board that also hears the holds other processes were told (`heard`). */
export interface ToldBackoff extends BackoffBoard {
  readonly heard: (upstream: string, untilMs: number) => void
}

/**
 * A board for one of several processes on one machine that tell each other their holds (the
 * proxy's workers, through their supervisor): a hold is kept here and passed to `tell`; a hold
 * another process was told arrives through `heard`. Reads stay in this process.
 */
export const toldBackoff = (tell: (upstream: string, untilMs: number) => void): ToldBackoff => {
  const local = memoryBackoff()
  return {
    until: local.until,
    hold: async (upstream, untilMs) => {
      await local.hold(upstream, untilMs)
      tell(upstream, untilMs)
    },
    heard: (upstream, untilMs) => void local.hold(upstream, untilMs)
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (ms <= 0 || signal?.aborted === true) return resolve()
    const timer = setTimeout(done, ms)
    function done() {
      clearTimeout(timer)
      signal?.removeEventListener("abort", done)
      resolve()
    }
    signal?.addEventListener("abort", done, { once: true })
  })

/**
 * Waits out the board's hold on `upstream`, however it grows meanwhile, and resolves with 0; a hold
 * longer than `maxWaitMs` is not waited for: it resolves at once with what is left of it.
 */
export const waitForTurn = async (board: BackoffBoard, upstream: string, signal?: AbortSignal, maxWaitMs = Number.POSITIVE_INFINITY): Promise<number> => {
  for (;;) {
    const wait = (await board.until(upstream)) - Date.now()
    if (wait <= 0 || signal?.aborted === true) return 0
    if (wait > maxWaitMs) return wait
    await sleep(wait, signal)
  }
}
