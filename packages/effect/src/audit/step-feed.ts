/**
 * The steps of a trace file, read as the replay asks for them: lines are parsed and grouped into
 * steps a few at a time, and steps the replay has passed are forgotten. The replay needs step i
 * and the user lines before step i+1 at hand (the RunLoop asks for those synchronously), so a
 * request for step i reads up to step i+1.
 */
import type { UserMessage } from "@loopguard/core/model"
import { readerFor, TraceStepAssembler, type ReadOut, type TraceFormat, type TraceProblem, type TraceReader, type TraceStep } from "@loopguard/core/trace"
import { redactDeep } from "@loopguard/core/try-best"
import { lineCut, type TraceLines } from "./trace-lines.js"

/**
 * Steps a tool result may come after its call's step and still be attached to it. Agents write
 * a call's result before their next step; the margin covers traces that interleave sub-agents.
 */
export const RESULT_LOOKAHEAD = 16

/** Pulls steps from a trace file on demand (the file has already been checked: it parses). */
export class StepFeed {
  private readonly reader: TraceReader
  private readonly assembler = new TraceStepAssembler(RESULT_LOOKAHEAD)
  /** Steps read and not yet forgotten; `steps[k]` is step `first + k`. */
  private steps: Array<TraceStep> = []
  private first = 0
  private trailing: ReadonlyArray<UserMessage> | null = null
  private prompt: UserMessage | undefined
  /** Line notes (cut lines) and consistency problems, in the order found. */
  readonly notes: Array<TraceProblem> = []

  /**
   * `redact` is applied to every parsed line before it is grouped into steps, so the detectors,
   * which quote (and shorten) commands and text in their findings, never see a secret to cut in two.
   */
  constructor(
    private readonly lines: TraceLines,
    readonly file: string,
    format: TraceFormat = "trace",
    private readonly redact?: (text: string) => string
  ) {
    this.reader = readerFor(format, file)
  }

  /** Reads until step `i` is at hand or the file ends. */
  async fill(i: number): Promise<void> {
    while (this.first + this.steps.length <= i && this.trailing === null) {
      const l = await this.lines.next()
      if (l === null) {
        this.take(this.reader.end())
        const end = this.assembler.end()
        this.add(end.steps)
        this.trailing = end.trailingUsers
        continue
      }
      this.take(this.reader.push(l.text, l.line, lineCut(l)))
    }
  }

  private take(out: ReadOut): void {
    this.notes.push(...out.notes)
    const redact = this.redact
    for (const line of out.lines) this.add(this.assembler.push(redact === undefined ? line : redactDeep(line, redact)))
  }

  /** Step `i`, if it has been read and not forgotten. */
  step(i: number): TraceStep | undefined {
    return i >= this.first ? this.steps[i - this.first] : undefined
  }

  /** Drops the steps before `i`. */
  forgetBefore(i: number): void {
    if (i <= this.first) return
    this.steps.splice(0, i - this.first)
    this.first = Math.max(this.first, i)
  }

  /** The trace's first user line: the run's prompt. */
  get promptMessage(): UserMessage | undefined {
    return this.prompt
  }

  /** User lines before step `i` (after the last step: the trailing ones), the prompt left out. */
  usersBefore(i: number): ReadonlyArray<string> {
    const users = this.step(i)?.users ?? (this.trailing !== null && i >= this.first + this.steps.length ? this.trailing : [])
    return users.filter((u) => u !== this.prompt).map((u) => u.text)
  }

  /** Consistency problems of the whole file, once it has been read to the end: by line. */
  problems(): Array<TraceProblem> {
    const found = this.assembler.problems.map((p) => ({ file: this.file, line: p.line, message: p.message }))
    return [...this.notes, ...found].sort((x, y) => x.line - y.line)
  }

  private add(steps: ReadonlyArray<TraceStep>): void {
    for (const s of steps) {
      if (this.first + this.steps.length === 0) this.prompt = s.users[0]
      this.steps.push(s)
    }
  }
}
