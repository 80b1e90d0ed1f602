/**
 * traceToSteps: validated trace lines → loopguard's session model, grouped by step, so an audit
 * can replay a recorded run one step at a time through the same detectors a live session uses.
 */
import type { NormalizedError } from "../model/stream.js"
import type { AssistantMessage, AssistantPart, Message, ToolPart, UserMessage } from "../model/message.js"
import type { TraceAssistant, TraceLine, TraceSession, TraceToolCall, TraceToolResult } from "./types.js"

export interface TraceStep {
  /** 0-based step number (the assistant line's position among the file's assistant lines). */
  readonly step: number
  /** Line of the assistant record. */
  readonly line: number
  /** User messages recorded after the previous step and before this one. */
  readonly users: ReadonlyArray<UserMessage>
  /** The reply with its tool results attached to its tool parts. */
  readonly reply: AssistantMessage
}

export interface TraceReplay {
  readonly session?: TraceSession
  readonly steps: ReadonlyArray<TraceStep>
  /** The whole history in order: users and replies (what the session store would hold at the end). */
  readonly messages: ReadonlyArray<Message>
  /** User messages after the last step. */
  readonly trailingUsers: ReadonlyArray<UserMessage>
  /** Consistency findings that are not line errors: orphan results, calls left without a result. */
  readonly problems: ReadonlyArray<{ readonly line: number; readonly message: string }>
}

/** The message id of the user line at `line`; ids come from positions, so a replay is repeatable. */
export const traceUserId = (line: number): string => `u${line}`
/** The message id of the reply of `step`. */
export const traceReplyId = (step: number): string => `s${step}`

const toolError = (r: TraceToolResult): string | undefined => {
  if (r.exitCode !== undefined && r.exitCode !== 0) return `exit code ${r.exitCode}`
  if (r.error === true) return "tool reported an error"
  return undefined
}

/** A call with its result: error when the result says error:true or exitCode ≠ 0. */
const resolvedPart = (call: TraceToolCall, r: TraceToolResult): ToolPart => {
  const error = toolError(r)
  const part: { -readonly [K in keyof ToolPart]: ToolPart[K] } = {
    type: "tool",
    callId: call.id,
    name: call.name,
    input: call.input,
    state: error === undefined ? "completed" : "error",
    output: r.output
  }
  if (r.exitCode !== undefined) part.exitCode = r.exitCode
  if (error !== undefined) part.error = error
  if (r.path !== undefined) part.path = r.path
  if (r.diff !== undefined) part.diff = r.diff
  return part
}

/** A call the trace never answered stays pending: nothing is known about its outcome. */
const pendingPart = (call: TraceToolCall): ToolPart => ({
  type: "tool",
  callId: call.id,
  name: call.name,
  input: call.input,
  state: "pending"
})

const toError = (a: TraceAssistant): NormalizedError | undefined => {
  if (a.error === undefined) return undefined
  const e: { -readonly [K in keyof NormalizedError]: NormalizedError[K] } = { message: a.error.message }
  if (a.error.name !== undefined) e.name = a.error.name
  if (a.error.code !== undefined) e.code = a.error.code
  if (a.error.status !== undefined) e.status = a.error.status
  return e
}

interface OpenStep {
  readonly a: TraceAssistant
  readonly parentId: string
  readonly users: ReadonlyArray<UserMessage>
  /** Result per call index, filled as tool-result lines arrive. */
  readonly results: Array<TraceToolResult | undefined>
}

const buildReply = (s: OpenStep, model: string | undefined): AssistantMessage => {
  const parts: Array<AssistantPart> = []
  if (s.a.reasoning !== undefined && s.a.reasoning !== "") parts.push({ type: "reasoning", text: s.a.reasoning })
  if (s.a.text !== undefined && s.a.text !== "") parts.push({ type: "text", text: s.a.text })
  s.a.toolCalls.forEach((call, i) => {
    const r = s.results[i]
    parts.push(r === undefined ? pendingPart(call) : resolvedPart(call, r))
  })
  const reply: { -readonly [K in keyof AssistantMessage]: AssistantMessage[K] } = {
    role: "assistant",
    id: traceReplyId(s.a.step),
    parentId: s.parentId,
    parts,
    step: s.a.step
  }
  if (model !== undefined) reply.model = model
  if (s.a.finish !== undefined) reply.finish = s.a.finish
  const error = toError(s.a)
  if (error !== undefined) reply.error = error
  if (s.a.usage !== undefined) reply.usage = s.a.usage
  return reply
}

type Problem = { readonly line: number; readonly message: string }

/**
 * traceToSteps one line at a time. A step is handed on once `lookahead` newer steps have started
 * (or at the end), because a tool result may come after later steps' lines; a result arriving
 * later than that matches nothing and becomes a problem, like any orphan result. Holds the open
 * steps only, so a reader can stream a trace of any length.
 */
export class TraceStepAssembler {
  private readonly open: Array<OpenStep> = []
  private pendingUsers: Array<UserMessage> = []
  private parentId = ""
  private model: string | undefined
  /** Problems found so far, in the order found. */
  readonly problems: Array<Problem> = []

  constructor(private readonly lookahead: number = Infinity) {}

  /** Feeds one validated line; the steps it completed, in order. */
  push(l: TraceLine): Array<TraceStep> {
    if (l.type === "session") this.model = l.model
    else if (l.type === "user") {
      const u: UserMessage = { role: "user", id: traceUserId(l.line), text: l.text }
      this.pendingUsers.push(u)
      this.parentId = u.id
    } else if (l.type === "assistant") {
      this.open.push({ a: l, parentId: this.parentId, users: this.pendingUsers, results: l.toolCalls.map(() => undefined) })
      this.pendingUsers = []
      if (this.open.length > this.lookahead) return [this.release(this.open.shift()!)]
    } else this.attach(l)
    return []
  }

  /** The end of the trace: every step still open, and the user lines after the last step. */
  end(): { readonly steps: Array<TraceStep>; readonly trailingUsers: ReadonlyArray<UserMessage> } {
    const steps = this.open.splice(0).map((s) => this.release(s))
    return { steps, trailingUsers: this.pendingUsers }
  }

  private attach(l: TraceToolResult): void {
    // The newest step holding an unanswered call with this id (ids may be reused across steps).
    for (let s = this.open.length - 1; s >= 0; s--) {
      const step = this.open[s]!
      const i = step.a.toolCalls.findIndex((c, k) => c.id === l.id && step.results[k] === undefined)
      if (i >= 0) {
        step.results[i] = l
        return
      }
    }
    this.problems.push({ line: l.line, message: `tool result "${l.id}" matches no earlier unanswered tool call` })
  }

  private release(s: OpenStep): TraceStep {
    s.a.toolCalls.forEach((c, i) => {
      if (s.results[i] === undefined) this.problems.push({ line: s.a.line, message: `tool call "${c.id}" has no tool result` })
    })
    return { step: s.a.step, line: s.a.line, users: s.users, reply: buildReply(s, this.model) }
  }
}

/** Parsed trace lines as replayable steps: one assistant message per step with its tool results and the user lines before it. */
export const traceToSteps = (lines: ReadonlyArray<TraceLine>): TraceReplay => {
  const session = lines.find((l): l is TraceSession => l.type === "session")
  const assembler = new TraceStepAssembler()
  for (const l of lines) assembler.push(l)
  const { steps, trailingUsers } = assembler.end()
  const messages: Array<Message> = steps.flatMap((s): Array<Message> => [...s.users, s.reply])
  messages.push(...trailingUsers)
  const problems = [...assembler.problems].sort((x, y) => x.line - y.line)
  const replay = { steps, messages, trailingUsers, problems }
  return session === undefined ? replay : { ...replay, session }
}
