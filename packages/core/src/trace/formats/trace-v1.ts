/** Trace v1 as a TraceReader: the parser of parse.ts, whose line problems fail the file. */
import { TraceLineParser, type LineCut } from "../parse.js"
import { EMPTY_OUT, type ReadOut, type TraceReader } from "./reader.js"

export const traceV1Reader = (file: string): TraceReader => {
  const parser = new TraceLineParser(file)
  let read = false
  return {
    push: (raw: string, lineNo: number, cut?: LineCut): ReadOut => {
      if (raw.trim() !== "") read = true
      const p = parser.push(raw, lineNo, cut)
      return { lines: p.line === undefined ? [] : [p.line], errors: p.errors, notes: p.notes ?? [] }
    },
    // An empty file is no run of 0 steps that went well: say there was nothing to read.
    end: () => (read ? EMPTY_OUT : { lines: [], errors: [], notes: [{ file, line: 1, message: "the file is empty (or only blank lines): nothing to audit" }] })
  }
}
