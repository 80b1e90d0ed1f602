/**
 * The SessionStore an audit replays into: it keeps the newest `keepReplies` replies with the
 * user lines among them, plus the newest real (non-synthetic) user message, which is the turn's
 * goal and where crops are recorded. Older messages are dropped as new ones arrive, so a replay
 * of any length holds a window of fixed size; the cross-step detectors carry what they need
 * from older steps in their own state. Reply ids stay resolvable to steps for the report.
 */
import type { AssistantMessage, Message, UserMessage } from "@loopguard/core/model"
import type { LoopguardConfig } from "../config/schema.js"
import type { SessionStoreShape } from "../store/SessionStore.js"
import { Effect } from "effect"
import { SessionJournal } from "../store/session-journal.js"

/** A window store, with the step of every reply it ever held (crop markers name replies by id). */
export interface WindowStore extends SessionStoreShape {
  readonly stepOf: (replyId: string) => number | undefined
}

/**
 * The replies the detectors look back over at most, from their config (cycles are counted in
 * whole replays, sequences need their length on top of their look-back).
 */
export const detectorLookback = (c: LoopguardConfig): number =>
  Math.max(
    c.actionCycle.maxPeriod * (c.actionCycle.replays + 1),
    c.replayedSequence.lookback + c.replayedSequence.minLength,
    c.repeatedFailure.lookback,
    c.loopStreakRecovery.maxSpan + 1,
    c.noProgressSpin.window * c.noProgressSpin.minRepeats,
    c.repeatedObservation.repeats,
    c.repeatedAction.stopAt ?? 0,
    c.tryBest.editWindow,
    c.textLoop.bufferSize,
    c.breaker.window
  )

/** How many replies the audit's store keeps: `audit.windowSteps`, never under twice the detectors' look-back. */
export const auditWindow = (c: LoopguardConfig): number => Math.max(c.audit.windowSteps, 2 * detectorLookback(c))

const isRealUser = (m: Message): m is UserMessage => m.role === "user" && m.synthetic === undefined

/**
 * A store holding at least the newest `keepReplies` replies of each session (see the module
 * comment). It trims in batches, once the session holds twice that: between trims every write
 * goes through a SessionJournal, so the RunLoop's history view reads only what changed (a
 * trim starts a new journal, which the view reads whole once), and a step costs the same at
 * step 70 000 as at step 700.
 */
export const makeWindowStore = (keepReplies: number): WindowStore => {
  const sessions = new Map<string, { journal: SessionJournal; replies: number; updatedAt: number }>()
  const steps = new Map<string, number>()
  const get = (id: string) => {
    let s = sessions.get(id)
    if (!s) sessions.set(id, (s = { journal: new SessionJournal(), replies: 0, updatedAt: Date.now() }))
    s.updatedAt = Date.now()
    return s
  }
  const trim = (s: { journal: SessionJournal; replies: number }) => {
    if (s.replies <= 2 * keepReplies) return
    const messages = s.journal.messages
    let drop = s.replies - keepReplies
    let cut = 0
    while (drop > 0) if (messages[cut++]!.role === "assistant") drop--
    const kept = messages.slice(cut)
    // The goal of the turn stays: it is the newest real user message unless a newer one is kept.
    const goal = messages.slice(0, cut).filter(isRealUser).at(-1)
    if (goal !== undefined && !kept.some(isRealUser)) kept.unshift(goal)
    s.journal = new SessionJournal(kept)
    s.replies = keepReplies
  }
  const add = (sessionId: string, message: Message) => {
    const s = get(sessionId)
    s.journal.append(message)
    if (message.role !== "assistant") return
    s.replies += 1
    if (message.step !== undefined) steps.set(message.id, message.step)
    trim(s)
  }
  return {
    stepOf: (replyId) => steps.get(replyId),
    location: (sessionId) => `in memory, newest ${keepReplies} replies only (session ${sessionId})`,
    messages: (sessionId) => Effect.sync(() => (sessions.get(sessionId)?.journal.messages ?? []).slice()),
    changes: (sessionId, cursor) => Effect.sync(() => get(sessionId).journal.since(cursor)),
    append: (sessionId, message) => Effect.sync(() => add(sessionId, message)),
    putAssistant: (sessionId, message) =>
      Effect.sync(() => {
        const s = get(sessionId)
        if (!s.journal.has(message.id)) return add(sessionId, message)
        s.journal.put(message)
        if (message.step !== undefined) steps.set(message.id, message.step)
      }),
    exclude: (sessionId, messageId, reason) =>
      Effect.sync(() => get(sessionId).journal.modify(messageId, (m) => (m.role === "assistant" ? ({ ...m, excluded: reason } satisfies AssistantMessage) : m))),
    addCrop: (sessionId, userMessageId, crop) =>
      Effect.sync(() => get(sessionId).journal.modify(userMessageId, (m) => (m.role === "user" ? ({ ...m, crops: [...(m.crops ?? []), crop] } satisfies UserMessage) : m))),
    list: () =>
      Effect.sync(() =>
        [...sessions.entries()].map(([id, s]) => ({ id, messages: s.journal.messages.length, steps: s.replies, updatedAt: s.updatedAt, writer: null }))
      )
  }
}
