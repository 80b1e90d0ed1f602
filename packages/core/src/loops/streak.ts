/**
 * Reasoning-loop streak detection (docs/loops.md; experimental, off by default): the newest replies
 * share one key (same reasoning, or same tool calls when there is no reasoning). The result is a
 * crop marker for the RunLoop to persist on the current user message.
 *
 * "Keyed replies": finished replies with a non-empty key. Replies without a key (text only) are
 * transparent: they neither extend nor break a streak, and applyCrops keeps them. The newest
 * reply itself must carry the key, though: a text-only newest reply means the loop already broke.
 */
import { isUser, type AssistantMessage, type CropMarker, type Message } from "../model/message.js"
import { contentBlocks, dropCropped, persistedCrops } from "./crop.js"
import { isFinishedReply } from "./repeated-action.js"
import { replyKey } from "./reply-key.js"
import { pollingOnward } from "./poll-wait.js"
import { recordOf } from "./step-record.js"


export interface LoopStreakOptions {
  readonly enabled: boolean
  /** How many newest keyed replies must share a key (values below 2 never detect). */
  readonly triggerCount: number
  /** At most this many keyed replies go into one range (raised to triggerCount if lower). */
  readonly maxSpan: number
}

export const DEFAULT_LOOP_STREAK: LoopStreakOptions = { enabled: false, triggerCount: 3, maxSpan: 64 }

export interface StreakDetection {
  readonly marker: CropMarker
  /** The reply just before the range, which stays in the request; null when there is none. */
  readonly anchorId: string | null
  /** Ids of the keyed replies in the range, oldest first (the ones applyCrops drops). */
  readonly replyIds: ReadonlyArray<string>
  /** The newest real user message, where the marker is to be persisted; null when there is none. */
  readonly persistOn: string | null
  /** Content blocks this crop removes (compare with CropOptions.cacheRiskBlocks to log cache risk). */
  readonly croppedBlocks: number
}

/**
 * Detect on the request as the model sees it: excluded replies and replies dropped by earlier
 * markers are left out, so after a crop the model gets `triggerCount` fresh replies before the
 * next one (and the anchor, having another key, bounds the new range).
 */
export const detectStreak = (
  messages: ReadonlyArray<Message>,
  opts: LoopStreakOptions = DEFAULT_LOOP_STREAK,
  /** `persistedCrops(messages)` when the caller keeps it step by step (then a session without crops is never walked whole). */
  crops: ReadonlyArray<CropMarker> = persistedCrops(messages),
  /**
   * The place in `messages` of the newest real (non-synthetic) user message, -1 for none, when the
   * caller keeps it: a one-turn session's task is its first message, and finding it is a walk over
   * the whole history otherwise. Used only when there are no crops (then places in the view are places in `messages`).
   */
  newestUserAt?: number
): StreakDetection | null => {
  if (!opts.enabled || opts.triggerCount < 2) return null
  const maxSpan = Math.max(opts.maxSpan, opts.triggerCount)
  const view = dropCropped(messages, crops).kept

  let newestReply = -1
  let newestUser = crops.length === 0 && newestUserAt !== undefined ? newestUserAt : -1
  // With the user's place known, the walk stops at the newest reply; a place of -1 means "none": no search either.
  const searching = crops.length !== 0 || newestUserAt === undefined
  for (let i = view.length - 1; i >= 0 && (newestReply < 0 || (searching && newestUser < 0)); i--) {
    const m = view[i]!
    if (newestReply < 0 && isFinishedReply(m)) newestReply = i
    if (searching && newestUser < 0 && isUser(m) && m.synthetic === undefined) newestUser = i
  }
  const newest = view[newestReply]
  if (newest === undefined || !isFinishedReply(newest) || newestReply < newestUser) return null
  const key = replyKey(newest)
  if (key === "") return null

  // Walk back over keyed replies; one past maxSpan is enough to know the run was truncated.
  const range: Array<{ readonly index: number; readonly reply: AssistantMessage }> = []
  for (let i = newestReply; i >= 0 && range.length <= maxSpan; i--) {
    const m = view[i]!
    if (!isFinishedReply(m)) continue
    const k = replyKey(m)
    if (k === "") continue
    if (k !== key) break
    range.push({ index: i, reply: m })
  }
  const truncated = range.length > maxSpan
  if (truncated) range.pop()
  if (range.length < opts.triggerCount || pollingOnward(range.map((r) => recordOf(r.reply)))) return null
  range.reverse()

  const from = range[0]!
  let anchor: string | null = null
  for (let i = from.index - 1; i >= 0 && anchor === null; i--) {
    const m = view[i]!
    if (isFinishedReply(m)) anchor = m.id
  }
  return {
    marker: { from: from.reply.id, to: newest.id, key, truncated },
    anchorId: anchor,
    replyIds: range.map((r) => r.reply.id),
    persistOn: newestUser >= 0 ? view[newestUser]!.id : null,
    croppedBlocks: range.reduce((n, r) => n + contentBlocks(r.reply), 0)
  }
}
