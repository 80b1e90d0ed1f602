/**
 * Context compaction (docs/run-loop.md): when the next request would not fit the model's context,
 * the older part of the history is replaced in the request view by one summary, made by a tool-less
 * request. The store stays append-only: the summary is a synthetic user message (`synthetic:
 * "compaction"`) carrying the range it replaces; every request re-applies the latest one, the way
 * crops are re-applied. The first real user message (the task) and the most recent steps are kept whole.
 */
import { isAssistant, isUser, type Message, type UserMessage } from "../model/message.js"
import type { NormalizedError } from "../model/stream.js"
import { classify } from "../retry/decision.js"

/** The stored range a compaction replaces: store ids, inclusive. */
export interface CompactionRange {
  readonly from: string
  readonly to: string
}

/** A stored compaction summary (it carries the range it replaces). */
export const isCompaction = (m: Message): m is UserMessage & { readonly compacts: CompactionRange } => isUser(m) && m.compacts !== undefined

/** The provider said the prompt does not fit (the same markers the retry policy treats as terminal). */
export const isContextOverflow = (error: NormalizedError): boolean => classify(error).reason === "context overflow"

export const COMPACTION_REQUEST =
  "Summarise the conversation above so that you can continue the task from the summary alone. Keep: the goal; " +
  "what was done (files changed with their paths, commands run with their results and exit codes); what failed " +
  "and why; decisions taken; what is left to do. Quote exact paths, commands and error messages. Do not call tools."

/** The summary's text as the model sees it in place of the older history. */
export const compactionText = (summary: string): string =>
  `[Summary of the earlier part of this session, compacted to fit the context window]\n${summary.trim()}`

/**
 * Re-applies the latest compaction to a request view (`view` is an ordered subset of `all`, the
 * stored session): the view's messages whose stored position falls inside the range give way to
 * the summary, at the range's place; older compaction messages are left out (the latest summary
 * already contains them). A range whose ends are not in the store is ignored.
 */
export const applyCompaction = (view: ReadonlyArray<Message>, all: ReadonlyArray<Message>): Array<Message> => {
  const latest = [...all].reverse().find(isCompaction)
  const withoutMarkers = view.filter((m) => !isCompaction(m))
  if (latest === undefined) return withoutMarkers
  const index = new Map(all.map((m, i) => [m.id, i] as const))
  const from = index.get(latest.compacts.from)
  const to = index.get(latest.compacts.to)
  if (from === undefined || to === undefined || from > to) return withoutMarkers
  const out: Array<Message> = []
  let placed = false
  for (const m of withoutMarkers) {
    const i = index.get(m.id)
    const inside = i !== undefined && i >= from && i <= to
    if (inside && !placed) {
      out.push(latest)
      placed = true
    }
    if (!inside) {
      if (!placed && i !== undefined && i > to) {
        out.push(latest)
        placed = true
      }
      out.push(m)
    }
  }
  if (!placed) out.push(latest)
  return out
}

export interface CompactionPlan {
  readonly range: CompactionRange
  /** The messages to summarise, as the model sees them now. */
  readonly older: ReadonlyArray<Message>
}

/**
 * What to compact in the current view: everything after the first real user message and before the
 * last `keepRecentSteps` replies. Null when that leaves fewer than two messages (nothing worth it).
 * Range ends are store ids; a view-only message (e.g. a crop's "Continue.") never becomes one.
 */
export const planCompaction = (view: ReadonlyArray<Message>, all: ReadonlyArray<Message>, keepRecentSteps: number): CompactionPlan | null => {
  const index = new Map(all.map((m, i) => [m.id, i] as const))
  const goal = view.findIndex((m) => isUser(m) && m.synthetic === undefined)
  const replies = view.map((m, i) => (isAssistant(m) ? i : -1)).filter((i) => i >= 0)
  const keepFrom = keepRecentSteps <= 0 ? view.length : (replies[replies.length - keepRecentSteps] ?? 0)
  // A reminder right before the first kept reply belongs with it.
  const isReminder = (m: Message | undefined) => m !== undefined && isUser(m) && m.synthetic !== undefined && !isCompaction(m)
  let split = keepFrom
  while (split > goal + 1 && isReminder(view[split - 1])) split -= 1
  const older = view.slice(goal + 1, split).filter((m) => index.has(m.id))
  if (older.length < 2) return null
  // An earlier summary stands for its own range: the new range reaches back to where that began.
  const starts = older.map((m) => (isCompaction(m) ? (index.get(m.compacts.from) ?? index.get(m.id)!) : index.get(m.id)!))
  // A summary's own stored place can lie among the kept steps: only the range it stands for counts.
  const ends = older.map((m) => (isCompaction(m) ? (index.get(m.compacts.to) ?? index.get(m.id)!) : index.get(m.id)!))
  return { range: { from: all[Math.min(...starts)]!.id, to: all[Math.max(...ends)]!.id }, older }
}
