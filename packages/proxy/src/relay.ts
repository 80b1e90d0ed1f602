/**
 * A streamed reply relayed to the client event by event, exactly as the upstream sent it, while
 * the repetition guard reads its text and reasoning deltas. On a trip the upstream request is
 * closed and the client's stream is ended well-formed for its protocol, with a short notice.
 * A failure after the first byte reaches the client as its protocol's error event.
 */
import { describeGuardTrip, RepeatGuard, type GuardTrip, type RepeatGuardOptions } from "@loopguard/core/repeat"
import type { ClientReply } from "./client-reply.js"
import type { UpstreamReply } from "./fetch-reply.js"
import { cutNotice } from "./notices.js"
import { wholeArguments, type Protocol, type StreamWatch } from "./protocol.js"
import { SseSplitter } from "./sse.js"

export interface RelayLimits {
  readonly maxResponseBytes: number
  readonly maxEventBytes: number
  readonly chunkTimeoutMs: number
}

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
  readonly guard: RepeatGuardOptions | null
  readonly limits: RelayLimits
  /**
   * With `proxy.textToolCalls`: the events that end the reply with the calls it wrote as text made
   * structured, in place of the upstream's finish events (`tail`); null: the tail as it came.
   */
  readonly textCalls: ((watch: StreamWatch, tail: string) => string | null) | null
  /** Why the reply's calls must not be passed on (a tool past its cap: `toolCaps`), or null. */
  readonly refuseCalls: (watch: StreamWatch) => { readonly name: string; readonly refusal: string } | null
}

/**
 * Text and reasoning feed one guard; a switch between the two ends the word in progress. The guard
 * (its buffers sized for the longest block it looks for) is made at the first delta, so a reply of
 * tool calls only never pays for one.
 */
const deltaGuard = (options: RepeatGuardOptions | null) => {
  if (options === null) return (_: { text?: string; reasoning?: string }) => null
  let guard: RepeatGuard | null = null
  let channel: "text" | "reasoning" | null = null
  return (seen: { text?: string; reasoning?: string }): GuardTrip | null => {
    const kind = seen.text !== undefined ? "text" : seen.reasoning !== undefined ? "reasoning" : null
    if (kind === null) return null
    guard ??= new RepeatGuard(options)
    const switched = channel !== null && channel !== kind ? guard.flush() : null
    channel = kind
    return switched ?? guard.push((kind === "text" ? seen.text : seen.reasoning)!)
  }
}

/** The name of a call whose arguments are not whole (neither empty nor a JSON object), or null when every one is. */
export const callsComplete = (watch: StreamWatch): string | null => watch.calls.find((c) => !wholeArguments(c.args))?.name ?? null

/**
 * Relays until the upstream ends, the guard trips, a limit or the chunk timeout is passed, or the
 * client leaves. The protocol's opening events wait for the first text or reasoning, and from the
 * first tool-call event on, events are held back until the reply ends: a call whose arguments were
 * cut off never reaches the client (`cut-call`, the response left open for the caller to ask again
 * when nothing was written, or to end with a notice).
 */
export const relayStream = (input: RelayInput): Promise<RelayEnd> =>
  new Promise((resolve) => {
    const { upstream, client, watch, limits } = input
    const splitter = new SseSplitter()
    const push = deltaGuard(input.guard)
    let bytes = 0
    let ended = false
    let wrote = false
    /** Events from the first tool call on, held until the reply ends whole. */
    let held: string | null = null
    /** Opening events (response.created, message_start…) not yet written: they go with the first content. */
    let opening = ""
    /** The opening events that went into `held` (written before a notice when the held events are dropped). */
    let heldOpening = ""
    /** From the finish event on, when text calls may replace the finish (`textCalls`). */
    let tail: string | null = null
    const endTail = () => {
      if (tail === null) return
      write(input.textCalls?.(watch, tail) ?? tail)
      tail = null
    }
    const write = (text: string): boolean => {
      wrote = true
      return client.write(text)
    }
    let timer: ReturnType<typeof setTimeout> | undefined

    const finish = (end: RelayEnd, closing: string | null) => {
      if (ended) return
      ended = true
      clearTimeout(timer)
      upstream.off("data", onData)
      if (end.type !== "completed") input.abortUpstream()
      if (closing !== null && !client.destroyed) client.write(closing)
      if (end.type !== "cut-call") client.end()
      resolve(end)
    }
    /** The reply ended (or broke) while calls were held: pass them on only when whole. */
    const release = (): boolean => {
      if (held === null) return true
      const broken = callsComplete(watch)
      if (broken !== null) {
        finish({ type: "cut-call", name: broken, wrote, opening: heldOpening }, null)
        return false
      }
      const refused = input.refuseCalls(watch)
      if (refused !== null) {
        finish({ type: "cut-call", name: refused.name, wrote: true, opening: heldOpening, refusal: refused.refusal }, null)
        return false
      }
      write(held)
      held = null
      return true
    }
    const fail = (reason: string) => finish({ type: "failed", reason }, input.protocol.streamError(reason))
    /**
     * The chunk timeout: each chunk only notes its time, and one timer checks it when due (re-armed
     * for what is left), rather than a timer cleared and set again for every chunk of every stream.
     */
    let lastData = Date.now()
    const checkSilence = () => {
      const quiet = Date.now() - lastData
      if (quiet >= limits.chunkTimeoutMs) return broke(`the upstream went silent for ${limits.chunkTimeoutMs} ms`)
      timer = setTimeout(checkSilence, limits.chunkTimeoutMs - quiet)
    }

    const onData = (chunk: Buffer) => {
      if (ended) return
      lastData = Date.now()
      bytes += chunk.length
      if (bytes > limits.maxResponseBytes) return fail(`the reply passed stream.maxResponseBytes (${limits.maxResponseBytes} bytes)`)
      let out = ""
      let endSeen = false
      for (const event of splitter.push(chunk)) {
        const seen = watch.see(event)
        if (seen.end === true) endSeen = true
        if (held !== null || seen.toolCall === true) {
          if (held === null) heldOpening = opening
          held = (held ?? opening) + event.raw
          opening = ""
        } else if (tail !== null || (input.textCalls !== null && seen.finishing === true)) {
          tail = (tail ?? opening) + event.raw
          opening = ""
        } else if (!wrote && out === "" && seen.text === undefined && seen.reasoning === undefined && seen.end !== true) opening += event.raw
        else {
          out += opening + event.raw
          opening = ""
        }
        const trip = push(seen)
        if (trip !== null) {
          // Calls held back that are whole were the model's before the loop: they pass, so the client sees what the
          // watch saw. One still cut off is dropped; the opening events held with it still start the reply.
          const passed = held !== null && callsComplete(watch) === null ? held : wrote ? "" : heldOpening
          if (out + passed !== "") write(out + passed)
          const notice = cutNotice(describeGuardTrip(trip))
          return finish({ type: "cut", trip, notice }, watch.close(notice))
        }
      }
      // The protocol's own end event: held calls are judged now, not when the connection closes.
      if (endSeen && (held !== null || tail !== null)) {
        if (out !== "") write(out)
        out = ""
        if (!release()) return
        endTail()
      }
      if (splitter.buffered > limits.maxEventBytes) return fail(`one event passed stream.maxEventBytes (${limits.maxEventBytes} bytes)`)
      // Backpressure: a slow client holds the upstream instead of filling memory.
      if (out !== "" && !write(out)) {
        upstream.pause()
        client.once("drain", () => upstream.resume())
      }
    }

    client.on("close", () => {
      if (!client.writableFinished) finish({ type: "client-gone" }, null)
    })
    upstream.on("data", onData)
    const onEnd = () => {
      if (ended) return
      const rest = splitter.rest()
      if (rest !== null) {
        watch.see(rest)
        if (held !== null) held += rest.raw
        else if (tail !== null) tail += rest.raw
        else write(rest.raw)
      }
      if (!release()) return
      endTail()
      if (opening !== "") write(opening)
      finish({ type: "completed" }, null)
    }
    upstream.on("end", onEnd)
    const broke = (reason: string) => {
      if (!release()) return
      endTail()
      fail(reason)
    }
    upstream.on("error", (e) => broke(`the upstream connection failed mid-reply (${e.message})`))
    upstream.on("aborted", () => broke("the upstream connection was cut mid-reply"))
    timer = setTimeout(checkSilence, limits.chunkTimeoutMs)
    if (input.first !== null) onData(input.first)
    if (input.ended()) onEnd()
    else upstream.resume()
  })
