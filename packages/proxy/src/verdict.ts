/**
 * The proxy's verdict on one request, a function of the request's history and the config alone
 * (so any replica gives the same one): the shared cross-step judge run over the current user turn
 * step by step, the in-stream repetition escalation read back from the proxy's own cut notices,
 * and the doom-loop check on each reply. What it asks for: reminders placed in the upstream
 * request only, the cut replies cropped to their notice, or a stop answered by the proxy itself.
 */
import { capDecision, capNotice, capUsageText, type CapPolicy } from "@loopguard/core/caps"
import { decideRecovery, initRecovery, type AgentRole } from "@loopguard/core/classify"
import { textOf, type AssistantMessage, type Message } from "@loopguard/core/model"
import type { Incident } from "@loopguard/core/report"
import { isCutReply, isStopAnswer } from "./notices.js"
import { runSliced, runToEnd } from "./sliced.js"
import { TurnJudge, type TurnMemo } from "./turn-judge.js"
import type { StopVerdict, VerdictConfig } from "./verdict-types.js"
export type { StopVerdict, VerdictConfig } from "./verdict-types.js"


/** A text for the upstream only, placed before the wire message at `before` (null: at the end). */
export interface Insert {
  readonly before: number | null
  readonly kind: string
  readonly text: string
}


export type ProxyAction = "pass" | "note" | "remind" | "crop" | "stop"

export interface Verdict {
  readonly action: ProxyAction
  readonly inserts: ReadonlyArray<Insert>
  /** Some reply of the history was cut by the proxy: crop it to its notice before it goes upstream. */
  readonly cropCuts: boolean
  /** The turn's last allowed step (`proxy.maxTurnSteps`): asked for with tools off. */
  readonly toolsOff: boolean
  readonly stop: StopVerdict | null
  readonly incidents: ReadonlyArray<Incident>
}

/** The wire position a message id names (`m<index>`, see history.ts). */
const wireAt = (m: Message): number => Number(m.id.slice(1))

const lastIndex = <A>(xs: ReadonlyArray<A>, p: (x: A) => boolean): number => {
  for (let i = xs.length - 1; i >= 0; i--) if (p(xs[i]!)) return i
  return -1
}

const isStop = (m: Message): boolean => m.role === "assistant" && isStopAnswer(textOf(m, { includeSynthetic: true }))
const isCut = (m: Message): boolean => m.role === "assistant" && isCutReply(textOf(m, { includeSynthetic: true }))

/** Where the next step after `i` starts on the wire (its reminders go just before it), null: the end. */
const nextStepAt = (messages: ReadonlyArray<Message>, i: number): number | null => {
  for (let j = i + 1; j < messages.length; j++) if (messages[j]!.role === "assistant") return wireAt(messages[j]!)
  return null
}

const STOPPED_BEFORE: StopVerdict = {
  detector: "stopped",
  loop: "this turn was already stopped for a loop",
  evidence: "the previous answer was loopguard's stop and no new user message followed",
  next: "write a new message to steer the agent; loopguard will let the conversation go on"
}

/** The words that followed the last stop repeat what followed an earlier one: a harness's canned reply, not a person steering. */
const STOPPED_AGAIN: StopVerdict = {
  detector: "stopped",
  loop: "this turn was already stopped for a loop",
  evidence: "the message after loopguard's stop repeats, word for word, an earlier one (an automatic reply such as \"Please continue.\")",
  next: "write a new message, in other words than the last, to steer the agent; loopguard will let the conversation go on"
}

const wordsOf = (m: Message): string => (m.role === "user" ? m.text.trim().replace(/\s+/g, " ").toLowerCase() : "")

/** Words a harness sends to keep an agent going (Gemini CLI's and Qwen Code's "Please continue.", OpenHands' "Please continue working on the task…"). */
const CONTINUATION = /^(?:please\s+)?(?:continue|proceed|go on|keep going)\b/

/**
 * Where the current turn starts: the last user message, except a harness's canned one. Harnesses
 * answer an agent that ended its turn with fixed words; taken as a person's, they would start each
 * loop over for as long as the harness keeps replying, and the ladder would never reach its stop.
 * Canned: words that keep the agent going said again, or the words that followed an earlier stop
 * said again after the next one. The first time such words come they start a turn (nothing tells
 * them from a person's). `repeated` says canned words came after the last stop; `lastStop` is
 * where the last stop answer is (-1: none), read in the same pass.
 */
const turnStartOf = (messages: ReadonlyArray<Message>): { readonly at: number; readonly repeated: boolean; readonly lastStop: number } => {
  const said = new Set<string>()
  const afterStops = new Set<string>()
  let at = -1
  let lastStop = -1
  let repeated = false
  let afterStop = false
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!
    if (isStop(m)) {
      lastStop = i
      afterStop = true
      repeated = false
    }
    if (m.role !== "user") continue
    const words = wordsOf(m)
    const canned = (said.has(words) && CONTINUATION.test(words)) || (afterStop && afterStops.has(words))
    if (afterStop) afterStops.add(words)
    afterStop = false
    said.add(words)
    if (canned && lastStop >= 0 && i > lastStop) repeated = true
    if (!canned) at = i
  }
  return { at, repeated, lastStop }
}

/**
 * Where the cuts that climb the in-stream ladder start: at the last cut before the turn's user
 * message (its reminder is still due), so a person who writes anew after each cut reply ("go on
 * with 150…299") is reminded, never stopped, while a harness's canned "continue" climbs on.
 */
const cutsFrom = (messages: ReadonlyArray<Message>, lastUser: number, lastStop: number): number => {
  for (let i = lastUser - 1; i > lastStop; i--) if (isCut(messages[i]!)) return i
  return Math.max(lastUser, lastStop + 1)
}

/** A reply the proxy cut lies before `end` (the escalation reads the rest): one pass over the history in all. */
const cutBefore = (messages: ReadonlyArray<Message>, end: number): boolean => {
  for (let i = 0; i < end; i++) if (isCut(messages[i]!)) return true
  return false
}

/**
 * The in-stream escalation: the k-th cut is REMIND, REPLAN, then terminate (the recovery policy's
 * counts), counted from `cutsFrom`.
 */
const cutEscalation = (messages: ReadonlyArray<Message>, from: number, role: AgentRole) => {
  const inserts: Array<Insert> = []
  const incidents: Array<Incident> = []
  let stop: StopVerdict | null = null
  let cuts = 0
  for (let i = from; i < messages.length; i++) {
    const m = messages[i]!
    if (!isCut(m)) continue
    cuts += 1
    const decision = decideRecovery({ ...initRecovery(), textRepeats: cuts - 1 }, { outcome: "text-repeat", role, pendingClientTool: false, structuredOutput: false, classification: { type: "normal" } as never })
    const step = (m as AssistantMessage).step
    if (decision.action.type === "remind") {
      inserts.push({ before: nextStepAt(messages, i), kind: decision.action.kind, text: decision.action.text })
      incidents.push({ step, detector: "text-repeat", action: decision.action.kind === "text-repeat-replan" ? "replan" : "remind", kind: "loop" })
    } else if (decision.action.type === "exit") {
      incidents.push({ step, detector: "text-repeat", action: "terminate", kind: "loop" })
      stop = {
        detector: "text-repeat",
        loop: `the replies kept repeating themselves (${cuts} replies cut)`,
        evidence: "each of them was cut by the repetition guard after a reminder and a replan",
        next: "say in one message what you want next, or change the approach; the next message starts afresh"
      }
    }
  }
  return { inserts, incidents, stop, cuts }
}

/**
 * The turn's step cap (`proxy.maxTurnSteps`), the run loop's soft cap counted over the current user
 * turn: the last allowed step is asked for with tools off and the cap's notice (the model wraps up
 * itself), and a request past it is stopped. A new user message starts the count again.
 */
const turnCap = (messages: ReadonlyArray<Message>, from: number, config: VerdictConfig) => {
  const max = config.proxy.maxTurnSteps
  if (max === null) return { inserts: [], toolsOff: false, stop: null, incidents: [] }
  let steps = 0
  for (let i = from + 1; i < messages.length; i++) if (messages[i]!.role === "assistant") steps += 1
  const policy: CapPolicy = { mode: "soft", maxSteps: max, tokenBudget: null, costBudgetUsd: null, toolTimeoutMs: 0, stepTimeoutMs: null }
  const usage = { stepsUsed: steps, tokensUsed: 0, costUsd: null }
  const decision = capDecision(policy, usage)
  if (decision === "proceed") return { inserts: [], toolsOff: false, stop: null, incidents: [] }
  if (decision.type !== "stop") return { inserts: [{ before: null, kind: "step-cap", text: capNotice({ type: "last-step" }, policy, usage, config.loop.role) }], toolsOff: true, stop: null, incidents: [] }
  const used = capUsageText("max_steps", policy, usage)
  const stop: StopVerdict = {
    detector: "step-cap",
    loop: `this turn reached ${used} (proxy.maxTurnSteps)`,
    evidence: `${steps} replies since the last user message; the last one was asked for with tools off`,
    next: "write a new message to go on: the count starts again"
  }
  return { inserts: [], toolsOff: false, stop, incidents: [{ step: steps, detector: "step-cap", action: "stop", kind: "fault" as const, detail: { reason: "max_steps", used } }] }
}

/** A process's judged turns, and the conversation of the request. */
export interface MemoOf {
  readonly memo: TurnMemo
  readonly session: string
}

/** The judge over the current turn (taken up from `memo` when it holds this conversation's earlier turn). */
function* judgeTurn(messages: ReadonlyArray<Message>, from: number, config: VerdictConfig, memo?: MemoOf) {
  const turn = messages.slice(from)
  const judge = memo !== undefined ? yield* memo.memo.judged(memo.session, turn, config) : new TurnJudge(config)
  if (memo === undefined) yield* judge.feedFrom(turn)
  const inserts: Array<Insert> = judge.reminders.map((r) => ({ before: nextStepAt(turn, r.after), kind: r.kind, text: r.text }))
  if (judge.pendingNote !== null) inserts.push({ before: null, kind: "note", text: judge.pendingNote })
  return { inserts, incidents: judge.newestIncidents, stop: judge.stop }
}

/** The verdict on a request whose history is `messages`. */
export const judgeRequest = (messages: ReadonlyArray<Message>, config: VerdictConfig, memo?: MemoOf): Verdict => runToEnd(judging(messages, config, memo))

/**
 * The same verdict, judged in slices of about `sliceMs` with the event loop served between them:
 * what the proxy uses, so a long turn judged afresh does not hold every other stream.
 */
export const judgeRequestSliced = (messages: ReadonlyArray<Message>, config: VerdictConfig, memo: MemoOf | undefined, sliceMs: number): Promise<Verdict> =>
  runSliced(judging(messages, config, memo), sliceMs)

/** The verdict, with a pause point per message of the turn judged. */
function* judging(messages: ReadonlyArray<Message>, config: VerdictConfig, memo?: MemoOf): Generator<void, Verdict> {
  const { at: lastUser, repeated, lastStop } = turnStartOf(messages)
  // A stop the agent came back to without a new user message: the turn stays stopped.
  if (lastStop > lastUser) return { action: "stop", inserts: [], cropCuts: false, toolsOff: false, stop: repeated ? STOPPED_AGAIN : STOPPED_BEFORE, incidents: [] }
  const from = cutsFrom(messages, lastUser, lastStop)
  const cuts = cutEscalation(messages, from, config.loop.role)
  const turn = yield* judgeTurn(messages, Math.max(0, lastUser), config, memo)
  const cap = turnCap(messages, lastUser, config)
  const inserts = [...cuts.inserts, ...turn.inserts, ...cap.inserts]
  const newestAt = lastIndex(messages, (m) => m.role === "assistant")
  const newest = newestAt === -1 ? null : (messages[newestAt] as AssistantMessage)
  const newestIsCut = newest !== null && isCut(newest)
  const stop = (newestIsCut ? cuts.stop : null) ?? (newestAt > lastUser ? turn.stop : null) ?? cap.stop
  // What the newest step raised: older steps' incidents were reported with their own requests.
  const incidents = [
    ...(newestIsCut ? cuts.incidents.slice(-1) : []),
    ...(newestAt > lastUser ? turn.incidents : []),
    ...(stop === cap.stop ? cap.incidents : [])
  ]
  // Reminders of earlier steps keep their places (as stored reminders would); the ones at the end are this request's news.
  const fresh = inserts.filter((x) => x.before === null)
  // Every cut reply of the history is cropped, counted on the ladder or not.
  const cropCuts = cuts.cuts > 0 || cutBefore(messages, from)
  const action: ProxyAction = stop !== null ? "stop" : fresh.some((x) => x.kind !== "note") ? "remind" : fresh.length > 0 ? "note" : cropCuts ? "crop" : "pass"
  return { action, inserts, cropCuts, toolsOff: stop === null && cap.toolsOff, stop, incidents }
}
