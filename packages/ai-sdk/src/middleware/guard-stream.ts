/**
 * The guarded stream: every part of the model's stream passes through unchanged until the
 * repetition guard trips or the stream goes silent for longer than the chunk timeout. Then the
 * upstream call is cut (`cut` aborts the HTTP request), open text and reasoning blocks are
 * closed, and one `finish` part says what happened in its finish reason and in
 * `providerMetadata.loopguard`. Its usage counts what was streamed before the cut (the server's own
 * count when it sent one, else an estimate marked `estimated`), so a budget sees what a cut cost.
 *
 * A large delta is fed to the guard (and passed on) in slices of DELTA_SLICE characters, so what
 * follows a trip inside one 10 MB delta is cut with the rest. Silence is counted from the last
 * part that carried content: a stream that keeps sending empty deltas or metadata forever is cut
 * at the chunk timeout like one that sends nothing.
 */
import { tallyChars, tokensOfTally } from "@loopguard/core/context"
import { ArgumentsGuard, RepeatGuard } from "@loopguard/core/repeat"
import type { LoopguardTrip, ResolvedMiddlewareOptions, TripIds } from "./options.js"
import type { FinishPart, StreamPart } from "./model-types.js"

export interface GuardStreamInput {
  readonly source: ReadableStream<StreamPart>
  readonly options: ResolvedMiddlewareOptions
  /** Aborts the upstream request; called once, when the guard trips. */
  readonly cut: (reason: LoopguardTrip) => void
  /** Whose call this is: on `providerMetadata.loopguard` and the `onTrip` event. */
  readonly ids: TripIds
  /** Told what the call streamed when its stream failed mid-way (a reset): the provider billed it, and no step will count it. */
  readonly onFailed?: (usage: StreamedUsage) => void
}

const EMPTY_USAGE: FinishPart["usage"] = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined }
}

/** What a cut call used: the server's usage when it arrived, else the streamed output estimated. */
export interface StreamedUsage {
  readonly outputTokens: number
  readonly estimated: boolean
}

const usageOf = (streamed: StreamedUsage | undefined): FinishPart["usage"] =>
  streamed === undefined ? EMPTY_USAGE : { ...EMPTY_USAGE, outputTokens: { total: streamed.outputTokens, text: undefined, reasoning: undefined } }

/** The `finish` part that replaces the upstream one after a trip. */
export const tripFinish = (trip: LoopguardTrip, ids: TripIds, streamed?: StreamedUsage): FinishPart => ({
  type: "finish",
  finishReason: { unified: trip.tripped === "chunk-timeout" ? "error" : "other", raw: `loopguard:${trip.tripped}` },
  usage: usageOf(streamed),
  providerMetadata: { loopguard: { ...trip, ...ids, ...(streamed !== undefined ? { usage: { ...streamed } } : {}) } }
})

/** The characters the model streamed (text, reasoning, tool arguments), for the estimate after a cut. */
const streamedChars = () => {
  let cjk = 0
  let other = 0
  return {
    see: (part: StreamPart) => {
      if (part.type !== "text-delta" && part.type !== "reasoning-delta" && part.type !== "tool-input-delta") return
      const t = tallyChars(part.delta)
      cjk += t.cjk
      other += t.other
    },
    usage: (finish?: FinishPart): StreamedUsage => {
      const counted = finish?.usage.outputTokens.total
      return counted !== undefined ? { outputTokens: counted, estimated: false } : { outputTokens: tokensOfTally({ cjk, other }), estimated: true }
    }
  }
}

/**
 * Text and reasoning deltas feed one guard; a switch between the two ends the word in progress. A
 * call's argument deltas feed another (made at the first): a write whose content loops is a runaway
 * too, and a call cut there never reaches the agent's tools.
 */
const makeDeltaGuard = (options: ResolvedMiddlewareOptions) => {
  if (!options.repeat.enabled) return { push: () => null, end: () => null }
  const guard = new RepeatGuard(options.repeat)
  let channel: "text-delta" | "reasoning-delta" | null = null
  const args = ArgumentsGuard.of(options.repeat)
  const asTrip = (t: ReturnType<RepeatGuard["push"]>): LoopguardTrip | null => (t === null ? null : { ...t, tripped: "text-repeat" })
  return {
    push: (part: StreamPart): LoopguardTrip | null => {
      if (part.type === "tool-input-delta") return asTrip(args.push(part.id, part.delta))
      if (part.type !== "text-delta" && part.type !== "reasoning-delta") return null
      const switched = channel !== null && channel !== part.type ? asTrip(guard.flush()) : null
      channel = part.type
      return switched ?? asTrip(guard.push(part.delta))
    },
    end: (): LoopguardTrip | null => asTrip(guard.flush())
  }
}

/** The most of one delta passed on before the guard has seen it. */
export const DELTA_SLICE = 4096

/** A part that shows the model is producing something (not an empty delta or metadata). */
const carriesContent = (part: StreamPart): boolean => {
  switch (part.type) {
    case "text-delta":
    case "reasoning-delta":
      return part.delta !== ""
    case "tool-input-delta":
      return part.delta !== ""
    case "tool-call":
    case "finish":
    case "error":
    case "file":
    case "source":
    case "tool-result":
      return true
    default:
      return false
  }
}

/** A text or reasoning delta in slices of at most DELTA_SLICE characters (the part itself when small). */
const slices = (part: StreamPart): ReadonlyArray<StreamPart> => {
  if ((part.type !== "text-delta" && part.type !== "reasoning-delta") || part.delta.length <= DELTA_SLICE) return [part]
  const out: Array<StreamPart> = []
  for (let at = 0; at < part.delta.length; at += DELTA_SLICE) out.push({ ...part, delta: part.delta.slice(at, at + DELTA_SLICE) })
  return out
}

/** Calls the failure hook, ignoring what it throws (the stream's own error is what the caller gets). */
const tellFailed = (onFailed: GuardStreamInput["onFailed"], usage: StreamedUsage): void => {
  try {
    onFailed?.(usage)
  } catch {
    // ignored on purpose
  }
}

type Read = Awaited<ReturnType<ReadableStreamDefaultReader<StreamPart>["read"]>> | "timeout"

/** The next part, or "timeout" when none arrives within `ms`. */
const readWithin = (reader: ReadableStreamDefaultReader<StreamPart>, ms: number): Promise<Read> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  const silence = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), ms)))
  return Promise.race([reader.read(), silence]).finally(() => clearTimeout(timer))
}

/** Ids of text / reasoning blocks started and not yet ended, so a cut can close them. */
const trackOpenBlocks = () => {
  const open = new Map<string, "text-end" | "reasoning-end">()
  return {
    see: (part: StreamPart) => {
      if (part.type === "text-start") open.set(`t:${part.id}`, "text-end")
      else if (part.type === "reasoning-start") open.set(`r:${part.id}`, "reasoning-end")
      else if (part.type === "text-end") open.delete(`t:${part.id}`)
      else if (part.type === "reasoning-end") open.delete(`r:${part.id}`)
    },
    closing: (): Array<StreamPart> => [...open].map(([key, type]) => ({ type, id: key.slice(2) }) as StreamPart)
  }
}

/** `source` passed through part by part until a guard trips; then one closing `finish` part. */
export const guardStream = ({ source, options, cut, ids, onFailed }: GuardStreamInput): ReadableStream<StreamPart> => {
  const reader = source.getReader()
  const deltas = makeDeltaGuard(options)
  const blocks = trackOpenBlocks()
  const streamed = streamedChars()
  let parts = 0
  let done = false
  let lastContent = Date.now()

  const stop = (controller: ReadableStreamDefaultController<StreamPart>, trip: LoopguardTrip, finish?: FinishPart) => {
    done = true
    cut(trip)
    reader.cancel().catch(() => {})
    for (const part of blocks.closing()) controller.enqueue(part)
    controller.enqueue(tripFinish(trip, ids, streamed.usage(finish)))
    controller.close()
    try {
      options.onTrip({ ...trip, ...ids })
    } catch {
      // A logging hook must not break the caller's stream.
    }
  }

  return new ReadableStream<StreamPart>({
    async pull(controller) {
      if (done) return
      const next = await readWithin(reader, Math.max(0, lastContent + options.chunkTimeoutMs - Date.now())).catch((e: unknown) => {
        done = true
        tellFailed(onFailed, streamed.usage())
        throw e
      })
      if (next === "timeout") return stop(controller, { tripped: "chunk-timeout", timeoutMs: options.chunkTimeoutMs, partsBefore: parts })
      if (next.done) {
        done = true
        controller.close()
        return
      }
      const part = next.value
      parts += 1
      if (carriesContent(part)) lastContent = Date.now()
      // A loop completed by the last held word still counts before the model's own finish.
      if (part.type === "finish") {
        const trip = deltas.end()
        if (trip !== null) return stop(controller, trip, part)
      }
      blocks.see(part)
      for (const slice of slices(part)) {
        const trip = part.type === "finish" ? null : deltas.push(slice)
        streamed.see(slice)
        controller.enqueue(slice)
        if (trip !== null) return stop(controller, trip)
      }
    },
    cancel(reason) {
      done = true
      return reader.cancel(reason)
    }
  })
}
