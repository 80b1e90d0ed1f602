/**
 * What every foreign-format reader needs: step numbers handed out in order, notes collected with
 * file:line, and the records of one push gathered for its ReadOut.
 */
import type { Usage } from "../../model/stream.js"
import { defined } from "../fields.js"
import type { TraceAssistant, TraceError, TraceFinish, TraceLine, TraceProblem, TraceToolCall, TraceToolResult } from "../types.js"
import { EMPTY_OUT, type ReadOut } from "./reader.js"

/** An assistant step before its number is given. */
export interface StepDraft {
  readonly line: number
  reasoning: string
  text: string
  readonly toolCalls: Array<TraceToolCall>
  finish?: TraceFinish
  error?: TraceError
  usage?: Usage
}

export const newDraft = (line: number): StepDraft => ({ line, reasoning: "", text: "", toolCalls: [] })

/** A draft holds something worth a step: text, reasoning, a call or an error. */
export const draftHasContent = (d: StepDraft): boolean => d.text !== "" || d.reasoning !== "" || d.toolCalls.length > 0 || d.error !== undefined

/** Joins two pieces of text of one step with a blank line (empty pieces add nothing). */
export const joinText = (a: string, b: string): string => (a === "" ? b : b === "" ? a : `${a}\n\n${b}`)

export class TraceBuilder {
  private step = 0
  private out: Array<TraceLine> = []
  private notes: Array<TraceProblem> = []
  private sessionDone = false
  private heldUsers: Array<TraceLine> = []
  private pendingSession: { id?: string | undefined; model?: string | undefined; agent?: string | undefined; line: number } | null = null

  constructor(readonly file: string) {}

  /** Lines of a kind the reader leaves out, by what it says of them: one note per kind at the end. */
  private skippedKinds = new Map<string, { line: number; count: number }>()

  note(line: number, message: string): void {
    this.notes.push({ file: this.file, line, message })
  }

  /**
   * A line of a kind that is not part of the conversation (an agent's bookkeeping records, new in
   * each version): noted once per kind, with how many and where the first was, not once per line.
   */
  skipped(line: number, kind: string): void {
    const seen = this.skippedKinds.get(kind)
    if (seen === undefined) this.skippedKinds.set(kind, { line, count: 1 })
    else seen.count += 1
  }

  /**
   * The session's fields as they become known (a log may name its model after its first line);
   * the session record is written before the first other record, with what is known by then.
   */
  session(line: number, fields: { readonly id?: string | undefined; readonly model?: string | undefined; readonly agent?: string | undefined }): void {
    if (this.sessionDone) return
    const p = this.pendingSession ?? { line }
    this.pendingSession = { ...p, id: p.id ?? fields.id, model: p.model ?? fields.model, agent: p.agent ?? fields.agent }
  }

  private flushSession(): void {
    if (this.sessionDone) return
    this.sessionDone = true
    const p = this.pendingSession
    if (p !== null) this.out.push(defined({ type: "session" as const, line: p.line, id: p.id, model: p.model, agent: p.agent }))
    this.out.push(...this.heldUsers)
    this.heldUsers = []
  }

  /** User lines before the first step wait for it: the model is often named only by the first reply. */
  user(line: number, text: string): void {
    if (text.trim() === "") return
    if (this.sessionDone) this.out.push({ type: "user", line, text })
    else this.heldUsers.push({ type: "user", line, text })
  }

  /** Emits a step from its draft (given the next number), unless it holds nothing. */
  assistant(d: StepDraft): void {
    if (!draftHasContent(d)) return
    this.flushSession()
    const a = defined<TraceAssistant>({
      type: "assistant",
      line: d.line,
      step: this.step++,
      reasoning: d.reasoning === "" ? undefined : d.reasoning,
      text: d.text === "" ? undefined : d.text,
      toolCalls: d.toolCalls,
      finish: d.finish,
      error: d.error,
      usage: d.usage
    })
    this.out.push(a)
  }

  result(r: Omit<TraceToolResult, "type">): void {
    this.flushSession()
    this.out.push({ type: "tool-result", ...r })
  }

  /** The records and notes gathered since the last take (`end`: the file is done). */
  take(end = false): ReadOut {
    if (end) this.flushSession()
    if (end) {
      for (const [kind, { line, count }] of this.skippedKinds) this.note(line, count === 1 ? `${kind}; skipped` : `${kind}; ${count} such lines skipped, the first here`)
      this.skippedKinds.clear()
    }
    if (this.out.length === 0 && this.notes.length === 0) return EMPTY_OUT
    const out: ReadOut = { lines: this.out, errors: [], notes: this.notes }
    this.out = []
    this.notes = []
    return out
  }
}
