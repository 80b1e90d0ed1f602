/** Trace v1 as a TraceReader: the parser of parse.ts, whose line problems fail the file. */
import { TraceLineParser, type LineCut } from "../parse.js"
import { EMPTY_OUT, type ReadOut, type TraceReader } from "./reader.js"

export const traceV1Reader = (file: string): TraceReader => {
  const parser = new TraceLineParser(file)
  return {
    push: (raw: string, lineNo: number, cut?: LineCut): ReadOut => {
      const p = parser.push(raw, lineNo, cut)
      return { lines: p.line === undefined ? [] : [p.line], errors: p.errors, notes: p.notes ?? [] }
    },
    end: () => EMPTY_OUT
  }
}
