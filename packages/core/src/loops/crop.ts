/**
 * Applying reasoning-loop crops to a request (docs/loops.md). Nothing is deleted from the store: a crop
 * is a persisted marker (from, to, key) and every request re-applies every marker with the same
 * rule, so the request prefix stays byte-stable from one request to the next.
 */
import { isAssistant, isUser, type AssistantMessage, type CropMarker, type Message, type UserMessage } from "../model/message.js"
import { CONTINUE_TEXT } from "./prompts.js"
import { replyKey } from "./reply-key.js"

export interface CropOptions {
  /** More content blocks than this dropped in one request → cacheRisk. */
  readonly cacheRiskBlocks: number
}

export const DEFAULT_CROP: CropOptions = { cacheRiskBlocks: 20 }

export interface CroppedView {
  readonly messages: ReadonlyArray<Message>
  /** Ids of the replies dropped, in message order. */
  readonly croppedIds: ReadonlyArray<string>
  /** Content blocks dropped: text and reasoning parts count 1, tool parts 2 (call + result). */
  readonly croppedBlocks: number
  readonly cacheRisk: boolean
  /** True when a "Continue." user message was appended. */
  readonly continued: boolean
  /** Markers whose endpoints are not (or not in order) in the messages: not applied. */
  readonly unresolved: ReadonlyArray<CropMarker>
}

/** Blocks a reply occupies in a provider request. */
export const contentBlocks = (m: AssistantMessage): number =>
  m.parts.reduce((n, p) => n + (p.type === "tool" ? 2 : 1), 0)

/** Every marker persisted on the session's user messages, oldest first. */
export const persistedCrops = (messages: ReadonlyArray<Message>): ReadonlyArray<CropMarker> =>
  messages.flatMap((m) => (isUser(m) ? (m.crops ?? []) : []))

interface Dropped {
  readonly kept: ReadonlyArray<Message>
  readonly dropped: ReadonlyArray<AssistantMessage>
  readonly unresolved: ReadonlyArray<CropMarker>
}

/**
 * Drop, inside each marker's [from, to] range (positions in `messages`), the assistant replies
 * whose key is the marker's key. Text-only replies and user messages in the range stay. All
 * endpoints are resolved before anything is dropped, so overlapping markers cannot hide each
 * other's endpoints.
 */
export const dropCropped = (messages: ReadonlyArray<Message>, crops: ReadonlyArray<CropMarker>): Dropped => {
  if (crops.length === 0) return { kept: messages, dropped: [], unresolved: [] }
  const index = new Map<string, number>()
  messages.forEach((m, i) => index.set(m.id, i))
  const ranges: Array<{ from: number; to: number; key: string }> = []
  const unresolved: Array<CropMarker> = []
  for (const c of crops) {
    const from = index.get(c.from)
    const to = index.get(c.to)
    if (from === undefined || to === undefined || from > to || c.key === "") unresolved.push(c)
    else ranges.push({ from, to, key: c.key })
  }
  // Each range marks its own replies: a long history with many crops is walked once, not once per crop.
  // (`replyKey` is kept per message, so a reply in several ranges is keyed once.)
  const marked = new Uint8Array(messages.length)
  for (const r of ranges) {
    for (let i = r.from; i <= r.to; i++) {
      const m = messages[i]!
      if (marked[i] === 0 && isAssistant(m) && replyKey(m) === r.key) marked[i] = 1
    }
  }
  const kept: Array<Message> = []
  const dropped: Array<AssistantMessage> = []
  messages.forEach((m, i) => {
    if (marked[i] === 1) dropped.push(m as AssistantMessage)
    else kept.push(m)
  })
  return { kept, dropped, unresolved }
}

const continueMessage = (after: AssistantMessage): UserMessage => ({
  role: "user",
  id: `continue:${after.id}`,
  text: CONTINUE_TEXT,
  synthetic: "continue"
})

/**
 * Finish a cropped view: when the crop removed the request's tail and left it ending on an
 * assistant message, append "Continue." (deterministic id, so the same request is built again).
 * A view whose tail was not cropped is left alone: a request that ends on a tool-using reply is
 * the normal shape of a turn in progress.
 */
const finish = (before: ReadonlyArray<Message>, d: Dropped, opts: CropOptions): CroppedView => {
  const croppedBlocks = d.dropped.reduce((n, m) => n + contentBlocks(m), 0)
  const last = d.kept[d.kept.length - 1]
  const tailCropped = d.dropped.length > 0 && last !== before[before.length - 1]
  const continued = tailCropped && last !== undefined && isAssistant(last)
  return {
    messages: continued ? [...d.kept, continueMessage(last)] : d.kept,
    croppedIds: d.dropped.map((m) => m.id),
    croppedBlocks,
    cacheRisk: croppedBlocks > opts.cacheRiskBlocks,
    continued,
    unresolved: d.unresolved
  }
}

/** The request view after applying every given marker (pass all persisted markers of the session). */
export const applyCrops = (
  messages: ReadonlyArray<Message>,
  crops: ReadonlyArray<CropMarker>,
  opts: CropOptions = DEFAULT_CROP
): CroppedView => finish(messages, dropCropped(messages, crops), opts)

export interface RequestViewOptions extends CropOptions {
  /** False restores the full view (cropping switched off); markers stay stored either way. */
  readonly applyCrops: boolean
}

export const DEFAULT_REQUEST_VIEW: RequestViewOptions = { ...DEFAULT_CROP, applyCrops: true }

/**
 * What the RunLoop sends: the history without excluded replies (text-tool-call, rollback,
 * replayed) and with every crop persisted on the session's user messages re-applied. Crops are
 * resolved on the full history first, so excluding a reply can never unresolve a marker.
 */
export const buildRequestView = (
  messages: ReadonlyArray<Message>,
  opts: RequestViewOptions = DEFAULT_REQUEST_VIEW
): CroppedView => {
  const visible = (m: Message): boolean => !isAssistant(m) || m.excluded === undefined
  const crops = opts.applyCrops ? persistedCrops(messages) : []
  const d = dropCropped(messages, crops)
  return finish(messages.filter(visible), { ...d, kept: d.kept.filter(visible) }, opts)
}
