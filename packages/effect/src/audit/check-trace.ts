/**
 * The first of the audit's two reads of a file: every line parsed, nothing kept but what the
 * replay must know before it starts (the step count and the tool names the trace calls) and the
 * problems. A file with any bad line is reported with all of them and not replayed, as before.
 */
import { readerFor, type ReadOut, type TraceFormat, type TraceProblem } from "@loopguard/core/trace"
import { Effect } from "effect"
import { cannotRead, lineCut, openTraceLines } from "./trace-lines.js"

/**
 * Problems listed per file; past this a count stands for the rest, so a file that is not a trace
 * at all (a log of millions of lines) does not fill memory with one message per line.
 */
export const MAX_LISTED_PROBLEMS = 1000

export interface TraceCheck {
  readonly steps: number
  /** Tool names in order of first call. */
  readonly toolNames: ReadonlyArray<string>
  readonly model: string | undefined
  readonly errors: ReadonlyArray<TraceProblem>
}

/**
 * A trace to read: where it is, the name its messages give it (`stdin` for a spooled pipe), and
 * the log format it is written in (`trace` is trace v1; the audit detects it when not given).
 */
export interface TraceSource {
  readonly path: string
  readonly name: string
  readonly format: TraceFormat
}

/** Reads `source` once through; fails with the reason when it cannot be read. */
export const checkTrace = (source: TraceSource, maxLineBytes: number): Effect.Effect<TraceCheck, string> =>
  Effect.scoped(
    Effect.gen(function* () {
      const file = source.name
      const lines = yield* openTraceLines(source, maxLineBytes)
      return yield* Effect.tryPromise({
        try: async () => {
          const reader = readerFor(source.format, file)
          const errors: Array<TraceProblem> = []
          const toolNames = new Set<string>()
          let steps = 0
          let model: string | undefined
          let unlisted = 0
          const take = (out: ReadOut): void => {
            for (const e of out.errors) {
              if (errors.length < MAX_LISTED_PROBLEMS) errors.push(e)
              else unlisted++
            }
            for (const line of out.lines) {
              if (line.type === "session") model = line.model
              if (line.type !== "assistant") continue
              steps++
              for (const c of line.toolCalls) toolNames.add(c.name)
            }
          }
          for (let l = await lines.next(); l !== null; l = await lines.next()) take(reader.push(l.text, l.line, lineCut(l)))
          take(reader.end())
          if (unlisted > 0) errors.push({ file, line: errors.at(-1)!.line, message: `and ${unlisted} more problems after this line, not listed` })
          return { steps, toolNames: [...toolNames], model, errors }
        },
        catch: (e) => cannotRead(file, e)
      })
    })
  )
