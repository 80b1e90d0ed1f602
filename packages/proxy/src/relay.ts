/**
 * A streamed reply relayed to the client event by event, exactly as the upstream sent it, while
 * the repetition guard reads its text and reasoning deltas. On a trip the upstream request is
 * closed and the client's stream is ended well-formed for its protocol, with a short notice.
 * A failure after the first byte reaches the client as its protocol's error event.
 */
import { describeGuardTrip, RepeatGuard, type GuardTrip, type RepeatGuardOptions } from "@loopguard/core/repeat"
import type { IncomingMessage, ServerResponse } from "node:http"
import { cutNotice } from "./notices.js"
import type { Protocol, StreamWatch } from "./protocol.js"
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
  | { readonly type: "client-gone" }

export interface RelayInput {
  readonly protocol: Protocol
  readonly watch: StreamWatch
  readonly upstream: IncomingMessage
  readonly first: Buffer | null
  readonly abortUpstream: () => void
  readonly client: ServerResponse
  readonly guard: RepeatGuardOptions | null
  readonly limits: RelayLimits
}

/** Text and reasoning feed one guard; a switch between the two ends the word in progress. */
const deltaGuard = (options: RepeatGuardOptions | null) => {
  if (options === null) return (_: { text?: string; reasoning?: string }) => null
  const guard = new RepeatGuard(options)
  let channel: "text" | "reasoning" | null = null
  return (seen: { text?: string; reasoning?: string }): GuardTrip | null => {
    const kind = seen.text !== undefined ? "text" : seen.reasoning !== undefined ? "reasoning" : null
    if (kind === null) return null
    const switched = channel !== null && channel !== kind ? guard.flush() : null
    channel = kind
    return switched ?? guard.push((kind === "text" ? seen.text : seen.reasoning)!)
  }
}

/** Relays until the upstream ends, the guard trips, a limit or the chunk timeout is passed, or the client leaves. */
export const relayStream = (input: RelayInput): Promise<RelayEnd> =>
  new Promise((resolve) => {
    const { upstream, client, watch, limits } = input
    const splitter = new SseSplitter()
    const push = deltaGuard(input.guard)
    let bytes = 0
    let ended = false
    let timer: ReturnType<typeof setTimeout> | undefined

    const finish = (end: RelayEnd, tail: string | null) => {
      if (ended) return
      ended = true
      clearTimeout(timer)
      upstream.off("data", onData)
      if (end.type !== "completed") input.abortUpstream()
      if (tail !== null && !client.destroyed) client.write(tail)
      client.end()
      resolve(end)
    }
    const fail = (reason: string) => finish({ type: "failed", reason }, input.protocol.streamError(reason))
    const arm = () => {
      clearTimeout(timer)
      timer = setTimeout(() => fail(`the upstream went silent for ${limits.chunkTimeoutMs} ms`), limits.chunkTimeoutMs)
    }

    const onData = (chunk: Buffer) => {
      if (ended) return
      arm()
      bytes += chunk.length
      if (bytes > limits.maxResponseBytes) return fail(`the reply passed stream.maxResponseBytes (${limits.maxResponseBytes} bytes)`)
      let out = ""
      for (const event of splitter.push(chunk)) {
        out += event.raw
        const trip = push(watch.see(event))
        if (trip !== null) {
          if (out !== "") client.write(out)
          const notice = cutNotice(describeGuardTrip(trip))
          return finish({ type: "cut", trip, notice }, watch.close(notice))
        }
      }
      if (splitter.buffered > limits.maxEventBytes) return fail(`one event passed stream.maxEventBytes (${limits.maxEventBytes} bytes)`)
      // Backpressure: a slow client holds the upstream instead of filling memory.
      if (out !== "" && !client.write(out)) {
        upstream.pause()
        client.once("drain", () => upstream.resume())
      }
    }

    client.on("close", () => {
      if (!client.writableFinished) finish({ type: "client-gone" }, null)
    })
    upstream.on("data", onData)
    upstream.on("end", () => {
      const rest = splitter.rest()
      if (rest !== null) {
        watch.see(rest)
        client.write(rest.raw)
      }
      finish({ type: "completed" }, null)
    })
    upstream.on("error", (e) => fail(`the upstream connection failed mid-reply (${e.message})`))
    upstream.on("aborted", () => fail("the upstream connection was cut mid-reply"))
    arm()
    if (input.first !== null) onData(input.first)
    upstream.resume()
  })
