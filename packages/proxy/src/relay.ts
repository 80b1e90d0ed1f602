/**
 * A streamed reply relayed to the client event by event, exactly as the upstream sent it, while
 * the repetition guard reads its text and reasoning deltas. On a trip the upstream request is
 * closed and the client's stream is ended well-formed for its protocol, with a short notice.
 * A failure after the first byte reaches the client as its protocol's error event.
 */
import { ArgumentsGuard, describeGuardTrip, PooledGuard, type GuardTrip, type RepeatGuardPool } from "@loopguard/core/repeat"
import type { ReplyGuards } from "./proxy-settings.js"
import type { ClientReply } from "./client-reply.js"
import type { UpstreamReply } from "./fetch-reply.js"
import { connectionErrorText } from "./upstream.js"
import { cutNotice } from "./notices.js"
import { cutAtLength, cutOffCall, parseJson, type ObservedCall, type Protocol, type StreamWatch } from "./protocol.js"
import { ReplyRouting } from "./reply-routing.js"
import { SseSplitter, type SseEvent } from "./sse.js"

export interface RelayLimits {
  readonly maxResponseBytes: number
  readonly maxEventBytes: number
  readonly chunkTimeoutMs: number
  /**
   * While events are held back (a tool call streaming its arguments), the longest the client goes
   * without a byte: then an SSE comment goes out, which every event-stream reader skips. Without it a
   * long call (a whole file written as an argument) kept the client from even its response headers,
   * past the 300 s that agents' HTTP clients wait.
   */
  readonly keepAliveMs: number
}

/** The keep-alive the proxy writes while it holds events back (`RelayLimits.keepAliveMs`). */
export const KEEP_ALIVE = ": loopguard: holding a tool call until its arguments are whole\n\n"

/** What a client waiting for the first content gets meanwhile (an SSE comment, which every reader skips). */
export const STILL_COMING = ": loopguard: the upstream keeps the reply open; its first content is still coming\n\n"

/** How often a client waiting on held events gets the keep-alive. */
export const HELD_KEEP_ALIVE_MS = 15_000

export type RelayEnd =
  | { readonly type: "completed" }
  | { readonly type: "cut"; readonly trip: GuardTrip; readonly notice: string }
  | { readonly type: "failed"; readonly reason: string }
  /**
   * A held call is not passed on: its arguments were cut off, or (`refusal`) its tool is past its
   * cap. Nothing of it reached the client, and the client's response is still open.
   */
  | { readonly type: "cut-call"; readonly name: string; readonly wrote: boolean; readonly opening: string; readonly refusal?: string }
  | { readonly type: "client-gone" }

export interface RelayInput {
  readonly protocol: Protocol
  readonly watch: StreamWatch
  readonly upstream: UpstreamReply
  readonly first: Buffer | null
  /** Whether the upstream body already ended before the relay began listening. */
  readonly ended: () => boolean
  readonly abortUpstream: () => void
  readonly client: ClientReply
  /** The route's repetition guards (null: the reply is not guarded). */
  readonly guards: ReplyGuards | null
  readonly limits: RelayLimits
  /**
   * With `proxy.textToolCalls`: the events that end the reply with the calls it wrote as text made
   * structured, in place of the upstream's finish events (`tail`); null: the tail as it came.
   */
  readonly textCalls: ((watch: StreamWatch, tail: string) => string | null) | null
  /** Why the reply's calls must not be passed on (a tool past its cap: `toolCaps`), or null. */
  readonly refuseCalls: (calls: ReadonlyArray<ObservedCall>) => { readonly name: string; readonly refusal: string } | null
  /** The step will not be asked for again: an upstream error that breaks off a call goes to the client as it came. */
  readonly lastAttempt?: boolean
}

/**
 * Text and reasoning feed one guard; a switch between the two ends the word in progress. The guard
 * is taken from the route's pool at the first delta, so a reply of tool calls only never takes one,
 * and goes back when the relay ends.
 */
class DeltaGuard {
  private readonly guard: PooledGuard

  constructor(guards: RepeatGuardPool) {
    this.guard = new PooledGuard(guards)
  }

  push(seen: { text?: string; reasoning?: string }): GuardTrip | null {
    if (seen.text !== undefined) return this.guard.push("text", seen.text)
    return seen.reasoning !== undefined ? this.guard.push("reasoning", seen.reasoning) : null
  }

  release(): void {
    this.guard.release()
  }
}

/**
 * A call's arguments feed a guard of their own (`ArgumentsGuard`): the watch keeps each call's
 * arguments whole, so the guard gets what grew since the last event.
 */
class CallsGuard {
  private readonly guard: ArgumentsGuard
  private current: string | null = null
  private fed = 0

  constructor(guards: RepeatGuardPool) {
    this.guard = new ArgumentsGuard(guards)
  }

  push(calls: ReadonlyArray<ObservedCall>): GuardTrip | null {
    const call = calls.at(-1)
    if (call === undefined) return null
    if (this.current !== call.id) this.fed = 0
    this.current = call.id
    if (call.args.length <= this.fed) return null
    const delta = call.args.slice(this.fed)
    this.fed = call.args.length
    return this.guard.push(call.id, delta)
  }

  release(): void {
    this.guard.release()
  }
}

/**
 * The event the body ended in the middle of (its blank line never came), as the client gets it: a
 * whole one ended with its blank line, so what the relay writes after it is an event of its own; a
 * cut one (its data not whole JSON) dropped, as an event-stream reader drops it at the end.
 */
export const lastEvent = (rest: SseEvent | null): SseEvent | null => {
  if (rest === null || (rest.data !== "[DONE]" && parseJson(rest.data) === undefined)) return null
  return { ...rest, raw: rest.raw.endsWith("\n") ? `${rest.raw}\n` : `${rest.raw}\n\n` }
}

/**
 * Relays until the upstream ends, the guard trips, a limit or the chunk timeout is passed, or the
 * client leaves. Each event goes where `ReplyRouting` puts it: a call whose arguments were cut off
 * never reaches the client (`cut-call`, the response left open for the caller to ask again when
 * nothing was written, or to end with a notice).
 */
export const relayStream = (input: RelayInput): Promise<RelayEnd> => new Promise((resolve) => new StreamRelay(input, resolve).start())

/** One stream's relay: the upstream's events in, the client's writes and the relay's end out. */
class StreamRelay {
  private readonly splitter = new SseSplitter()
  private readonly guard: DeltaGuard | null
  private readonly argsGuard: CallsGuard | null
  private readonly routing: ReplyRouting
  private bytes = 0
  private ended = false
  /**
   * The chunk timeout: each chunk only notes its time, and one timer checks it when due (re-armed
   * for what is left), rather than a timer cleared and set again for every chunk of every stream.
   */
  private lastData = Date.now()
  /** When the client last got a byte (the keep-alive's clock). */
  private lastWritten = Date.now()
  /** The upstream is held because the client does not read (backpressure). */
  private heldForClient = false
  /** An event the watch could not read came while a call was open: the call may lack what it carried. */
  private callEventLost = false
  /** The protocol's terminator went to the client (the upstream's own, or in a tail the relay rewrote). */
  private terminatorSent = false
  private timer: ReturnType<typeof setTimeout> | undefined

  constructor(
    private readonly input: RelayInput,
    private readonly resolve: (end: RelayEnd) => void
  ) {
    this.guard = input.guards === null ? null : new DeltaGuard(input.guards.replies)
    this.argsGuard = input.guards === null ? null : new CallsGuard(input.guards.arguments)
    this.routing = new ReplyRouting(input.textCalls !== null)
  }

  start(): void {
    const { upstream, client } = this.input
    client.on("close", () => {
      if (!client.writableFinished) this.finish({ type: "client-gone" }, null)
    })
    upstream.on("data", this.onData)
    upstream.on("end", this.onEnd)
    upstream.on("error", (e: NodeJS.ErrnoException) => this.broke(`the upstream connection failed mid-reply (${connectionErrorText(e.message)})`, e.code ?? "ECONNRESET"))
    upstream.on("aborted", () => this.broke("the upstream connection was cut mid-reply", "ECONNRESET"))
    this.timer = setTimeout(this.checkSilence, this.input.limits.chunkTimeoutMs)
    if (this.input.first !== null) this.onData(this.input.first)
    if (this.input.ended()) this.onEnd()
    else upstream.resume()
  }

  private readonly onData = (chunk: Buffer): void => {
    if (this.ended) return
    const { limits, watch } = this.input
    this.lastData = Date.now()
    this.bytes += chunk.length
    if (this.bytes > limits.maxResponseBytes) return this.fail(`the reply passed stream.maxResponseBytes (${limits.maxResponseBytes} bytes)`)
    let endSeen = false
    for (const event of this.splitter.push(chunk)) {
      if (event.raw.length > limits.maxEventBytes) return this.fail(`one event passed stream.maxEventBytes (${limits.maxEventBytes} bytes)`)
      const seen = watch.see(event)
      if (seen.end === true) endSeen = true
      // An event it could not read while a call was open may have carried part of the call: lost.
      if (seen.unreadable === true && watch.calls.length > 0) this.callEventLost = true
      // Judged before the event goes anywhere: a call that arrives whole (Gemini) is passed on at once.
      const looping = seen.toolCall === true && this.argsGuard !== null ? this.argsGuard.push(watch.calls) : null
      if (looping !== null) return this.cut(looping, true)
      this.routing.route(event.raw, seen)
      const trip = this.guard === null ? null : this.guard.push(seen)
      if (trip !== null) return this.cut(trip)
      if (seen.last === true) {
        this.terminatorSent = true
        return this.terminated()
      }
      // The upstream's own error event ends the reply: it went on to the client as it came.
      if (seen.error === true) return this.endFailed("the upstream sent an error event mid-reply", event.raw)
    }
    // The protocol's own end event: held calls are judged now, not when the connection closes.
    if (endSeen && this.routing.keepingBack && !this.endKeptBack()) return
    if (this.splitter.buffered > limits.maxEventBytes) return this.fail(`one event passed stream.maxEventBytes (${limits.maxEventBytes} bytes)`)
    this.writeOut()
    // Events held (a call, or the opening before any content) while the upstream still sends: the client hears something.
    if (this.lastData - this.lastWritten >= limits.keepAliveMs) this.write(this.routing.keepingBack ? KEEP_ALIVE : STILL_COMING)
  }

  /**
   * The protocol's terminator arrived: the client's reply is complete now, whatever the upstream's
   * connection does next (a server that keeps it open, or resets it, after its last event). The rest
   * of the body is read and dropped so the connection can serve another request; one that stays
   * silent past the chunk timeout is closed.
   */
  private terminated(): void {
    if (!this.endKeptBack()) return
    this.completeNamed()
    if (this.input.ended()) return
    const { upstream, abortUpstream, limits } = this.input
    const idle = setTimeout(abortUpstream, limits.chunkTimeoutMs)
    idle.unref?.()
    const done = () => clearTimeout(idle)
    upstream.once("end", done)
    upstream.on("error", done)
    upstream.on("aborted", done)
  }

  /**
   * The upstream's body ended. A reply that never named its finish was cut short (its end event
   * never came): the client gets the protocol's error event, not a reply that looks whole.
   */
  private readonly onEnd = (): void => {
    if (this.ended) return
    const rest = lastEvent(this.splitter.rest())
    if (rest !== null) {
      const seen = this.input.watch.see(rest)
      if (seen.last === true) this.terminatorSent = true
      this.routing.route(rest.raw, seen)
    }
    if (this.input.watch.finish === undefined) return this.broke("the upstream ended the reply before its end event")
    if (!this.endKeptBack()) return
    this.completeNamed()
  }

  /**
   * The reply named its finish and what is held went out: it ends complete, with the protocol's
   * terminator when the upstream's never came (the Anthropic SDK, for one, raises on a stream
   * without its `message_stop`).
   */
  private completeNamed(): void {
    this.write(this.routing.takeOpening())
    if (!this.terminatorSent) this.write(this.input.watch.terminator ?? "")
    this.finish({ type: "completed" }, null)
  }

  /**
   * The upstream's own error event goes to the client (with what came before it): the reply ends
   * there, as failed. One that broke off a call (an overload mid-arguments) drops the call; the step
   * is asked for again when nothing reached the client yet, else the client gets the error as it
   * came, so its SDK raises (and may retry) rather than reading a finished turn.
   */
  private endFailed(reason: string, errorEvent: string): void {
    const broken = this.routing.callsHeld ? this.brokenCall() : null
    if (broken === null) {
      if (this.endKeptBack()) this.finish({ type: "failed", reason }, null)
      return
    }
    if (!this.routing.written && this.input.lastAttempt !== true) return this.finish({ type: "cut-call", name: broken, wrote: false, opening: this.routing.openingOfHeld }, null)
    this.write(this.routing.takeOut() + this.routing.openingOfHeld + errorEvent)
    this.finish({ type: "failed", reason }, null)
  }

  /** The reply ended (or broke): what is due now, then the held calls when whole, then the tail. False when the calls were not passed on. */
  private endKeptBack(): boolean {
    this.write(this.routing.takeOut())
    if (!this.release()) return false
    const tail = this.routing.takeTail()
    if (tail === null) return true
    // A tail rewritten with the calls the reply wrote as text ends with the protocol's terminator.
    const rewritten = this.input.textCalls?.(this.input.watch, tail) ?? null
    if (rewritten !== null) this.terminatorSent = true
    this.write(rewritten ?? tail)
    return true
  }

  /** Held calls pass on only when whole and allowed; otherwise the relay ends with `cut-call`. */
  private release(): boolean {
    if (!this.routing.callsHeld) return true
    const { watch } = this.input
    const broken = this.brokenCall()
    if (broken !== null) {
      this.finish({ type: "cut-call", name: broken, wrote: this.routing.written, opening: this.routing.openingOfHeld }, null)
      return false
    }
    const refused = this.input.refuseCalls(watch.calls)
    if (refused !== null) {
      this.finish({ type: "cut-call", name: refused.name, wrote: true, opening: this.routing.openingOfHeld, refusal: refused.refusal }, null)
      return false
    }
    this.write(this.routing.takeHeld())
    return true
  }

  /** The first call not whole as it arrived (cut off, or one of its events unreadable), or null. */
  private brokenCall(): string | null {
    const { watch } = this.input
    return cutOffCall(watch.calls, cutAtLength(watch.finish)) ?? (this.callEventLost ? (watch.calls.at(-1)?.name ?? null) : null)
  }

  /**
   * The guard tripped: what the model wrote before the loop still goes, then the notice and the
   * protocol's end. A call whose own arguments looped (`inCall`) goes nowhere, as a cut-off one.
   */
  private cut(trip: GuardTrip, inCall = false): void {
    const { watch } = this.input
    const callsWhole = !inCall && this.brokenCall() === null
    const callsDropped = this.routing.callsHeld && !callsWhole
    this.write(this.routing.beforeCut(callsWhole))
    const notice = cutNotice(describeGuardTrip(trip))
    this.finish({ type: "cut", trip, notice }, watch.close(notice, callsDropped))
  }

  /**
   * The upstream's connection failed (`code`: how) or its body ended short. A call it broke off is
   * asked for again while nothing reached the client; once something did (or on the last attempt) the
   * client gets the protocol's error, as for a break in text, never a finished turn with a notice,
   * which agents take for their answer and stop on.
   */
  private broke(reason: string, code?: string): void {
    if (this.ended) return
    const asked = this.routing.written || this.input.lastAttempt === true
    if (asked && this.routing.callsHeld && this.input.watch.finish === undefined && this.brokenCall() !== null) {
      this.write(this.routing.takeOut() + this.routing.openingOfHeld)
      return this.fail(reason, code)
    }
    // Whole calls held, the reply broken before its end, nothing of it sent: the step is asked for
    // again, as for a call cut off. Passed on with an error after them, a client that runs calls as
    // they arrive would run them, then ask for the step again and run them twice.
    if (!asked && this.routing.callsHeld && this.input.watch.finish === undefined) {
      return this.finish({ type: "cut-call", name: this.input.watch.calls[0]?.name ?? "", wrote: false, opening: this.routing.openingOfHeld }, null)
    }
    if (!this.endKeptBack()) return
    // The reply had named its finish: all that failed to come is its terminator (or the
    // connection's close), so it ends complete, as a body that ends there does.
    if (this.input.watch.finish !== undefined) return this.completeNamed()
    this.fail(reason, code)
  }

  private fail(reason: string, code?: string): void {
    this.finish({ type: "failed", reason }, this.input.watch.error?.(reason) ?? this.input.protocol.streamError(reason, { code }))
  }

  private readonly checkSilence = (): void => {
    const { chunkTimeoutMs } = this.input.limits
    // Held for a slow client, the upstream is silent because the relay stopped reading it: no
    // upstream failure. The clock starts again when the client drains (a client that leaves closes
    // its connection, which ends the relay).
    if (this.heldForClient) {
      this.timer = setTimeout(this.checkSilence, chunkTimeoutMs)
      return
    }
    const quiet = Date.now() - this.lastData
    if (quiet >= chunkTimeoutMs) return this.broke(`the upstream went silent for ${chunkTimeoutMs} ms`, "ETIMEDOUT")
    this.timer = setTimeout(this.checkSilence, chunkTimeoutMs - quiet)
  }

  private write(text: string): void {
    if (text === "") return
    this.lastWritten = this.lastData
    this.input.client.write(text)
  }

  /** The events due now; a slow client holds the upstream instead of filling memory (backpressure). */
  private writeOut(): void {
    const out = this.routing.takeOut()
    if (out === "") return
    this.lastWritten = this.lastData
    if (this.input.client.write(out)) return
    const { upstream, client } = this.input
    upstream.pause()
    this.heldForClient = true
    client.once("drain", () => {
      this.heldForClient = false
      // The upstream's silence is counted from when the relay reads it again.
      this.lastData = Date.now()
      upstream.resume()
    })
  }

  private finish(end: RelayEnd, closing: string | null): void {
    if (this.ended) return
    this.ended = true
    clearTimeout(this.timer)
    // Nothing feeds the guards after this (every handler returns once `ended`): they serve the next stream.
    this.guard?.release()
    this.argsGuard?.release()
    const { upstream, client } = this.input
    upstream.off("data", this.onData)
    if (end.type !== "completed") this.input.abortUpstream()
    if (closing !== null && !client.destroyed) client.write(closing)
    if (end.type !== "cut-call") client.end()
    this.resolve(end)
  }
}
