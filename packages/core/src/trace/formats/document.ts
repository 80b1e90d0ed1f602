/**
 * Readers for logs that are one JSON document (OpenCode exports, Gemini CLI chats): lines are
 * held until the end, the document is parsed whole, and what is found is placed back on the line
 * where it is written (the first occurrence of its id after the previous find), so notes and
 * steps still name file:line.
 */
import type { LineCut } from "../parse.js"
import { TraceBuilder } from "./builder.js"
import { EMPTY_OUT, type ReadOut, type TraceReader } from "./reader.js"

/** Finds the line of a text in the document, moving forward as the document is walked. */
export class LineLocator {
  private readonly starts: Array<number> = [0]
  private at = 0

  constructor(readonly text: string) {
    for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) this.starts.push(i + 1)
  }

  /** 1-based line of an offset. */
  lineAt(offset: number): number {
    let lo = 0
    let hi = this.starts.length - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1
      if (this.starts[mid]! <= offset) lo = mid
      else hi = mid - 1
    }
    return lo + 1
  }

  /** The line of the next occurrence of `needle` (from the last find on; else from the top); the last find's line when absent. */
  find(needle: string): number {
    let i = this.text.indexOf(needle, this.at)
    if (i < 0) i = this.text.indexOf(needle)
    if (i < 0) return this.lineAt(this.at)
    this.at = i + needle.length
    return this.lineAt(i)
  }
}

export type DocumentConvert = (doc: unknown, b: TraceBuilder, at: LineLocator) => void

/**
 * The file's lines (`rows[i]` is line i + 1), for a format also written as JSON Lines; false when
 * they are not JSON Lines (their first line is not a JSON object), and nothing was read.
 */
export type LinesConvert = (rows: ReadonlyArray<string>, b: TraceBuilder) => boolean

/**
 * A reader that parses the whole file as one JSON value at its end and hands it to `convert`; a
 * file that is not one JSON value goes to `asLines` when the format is also written as JSON Lines.
 */
export const documentReader = (file: string, convert: DocumentConvert, asLines?: LinesConvert): TraceReader => {
  const rows: Array<string> = []
  let cutLine = 0
  return {
    push: (raw: string, lineNo: number, cut?: LineCut): ReadOut => {
      rows[lineNo - 1] = lineNo === 1 ? raw.replace(/^\uFEFF/, "") : raw
      if (cut !== undefined && cutLine === 0) cutLine = lineNo
      return EMPTY_OUT
    },
    end: (): ReadOut => {
      const b = new TraceBuilder(file)
      const text = rows.join("\n")
      let doc: unknown
      try {
        doc = JSON.parse(text)
      } catch (e) {
        const read = asLines !== undefined && rows.length > 1 && asLines(rows, b)
        rows.length = 0
        if (read) return b.take(true)
        const why = cutLine > 0 ? `line ${cutLine} is longer than input.maxLineBytes, so the document is cut` : e instanceof Error ? e.message : String(e)
        b.note(cutLine || 1, `the file is not one JSON document (${why}); nothing read`)
        return b.take(true)
      }
      rows.length = 0
      convert(doc, b, new LineLocator(text))
      return b.take(true)
    }
  }
}
