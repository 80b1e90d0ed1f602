/** What the JSON Lines readers share: a record per line, a note for a line that is not one, notes and records gathered per push. */
import type { JsonObject } from "../fields.js"
import { cutNote, type LineCut } from "../parse.js"
import { TraceBuilder } from "./builder.js"
import { readJsonLine } from "./json-line.js"
import type { ReadOut, TraceReader } from "./reader.js"

export abstract class JsonLinesReader implements TraceReader {
  protected readonly b: TraceBuilder

  constructor(file: string) {
    this.b = new TraceBuilder(file)
  }

  push(raw: string, lineNo: number, cut?: LineCut): ReadOut {
    if (raw.trim() === "") return this.b.take()
    // Said as trace v1 says it: what was read of the line may lack its later fields.
    if (cut !== undefined) this.b.note(lineNo, cutNote(cut))
    const parsed = readJsonLine(lineNo === 1 ? raw.replace(/^\uFEFF/, "") : raw, cut)
    if (!parsed.ok) this.b.note(lineNo, `${parsed.why}; line skipped`)
    else this.record(parsed.value, lineNo)
    return this.b.take()
  }

  end(): ReadOut {
    this.finish()
    return this.b.take(true)
  }

  /** One record of the file, at its 1-based line. */
  protected abstract record(o: JsonObject, line: number): void

  /** The file has ended: emit what is still held. */
  protected abstract finish(): void
}
