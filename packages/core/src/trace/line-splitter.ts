/**
 * LineSplitter: bytes as they arrive → lines, holding at most `maxLineBytes` of any one line.
 * A line longer than that keeps its first `maxLineBytes` (cut back to a whole UTF-8 character)
 * and says how long it really was, so a 50 MB line costs the cap, not 50 MB of string plus its
 * copies. Lines end at "\n"; a "\r" before it is dropped, as `split(/\r?\n/)` does.
 */

/** One line as the splitter hands it on. */
export interface SplitLine {
  /** 1-based line number. */
  readonly line: number
  /** The line's text (without "\r\n"); only the first `maxLineBytes` when `capped`. */
  readonly text: string
  /** The line's real length in bytes, without the line end. */
  readonly bytes: number
  /** True when the line was longer than `maxLineBytes` and `text` is its beginning only. */
  readonly capped: boolean
}

const NEWLINE = 0x0a
const CR = 0x0d

/** Bytes at the end of `b` that start a UTF-8 character which does not end inside `b`. */
const incompleteTail = (b: Uint8Array): number => {
  // A character is at most 4 bytes: look back at most 3 for its lead byte.
  for (let back = 1; back <= Math.min(3, b.length); back++) {
    const byte = b[b.length - back]!
    if ((byte & 0xc0) === 0x80) continue
    const size = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1
    return size > back ? back : 0
  }
  return 0
}

/** Splits a byte stream into lines, keeping at most `maxLineBytes` of each. */
export class LineSplitter {
  // A BOM stays in the text, as a whole-file read keeps it: the trace parser drops it from line 1 itself.
  private readonly decoder = new TextDecoder("utf-8", { ignoreBOM: true })
  private kept: Array<Uint8Array> = []
  private keptBytes = 0
  private totalBytes = 0
  private lastByte = -1
  private lineNo = 0

  constructor(private readonly maxLineBytes: number) {
    if (!Number.isInteger(maxLineBytes) || maxLineBytes < 1) throw new RangeError(`maxLineBytes must be a positive integer, got ${maxLineBytes}`)
  }

  /** The lines that `chunk` completed, in order. */
  push(chunk: Uint8Array): Array<SplitLine> {
    const out: Array<SplitLine> = []
    let start = 0
    while (start <= chunk.length) {
      const nl = chunk.indexOf(NEWLINE, start)
      const end = nl < 0 ? chunk.length : nl
      this.take(chunk.subarray(start, end))
      if (nl < 0) break
      out.push(this.finish(true))
      start = nl + 1
    }
    return out
  }

  /** The last line when the input did not end with "\n" (none when it did). */
  end(): Array<SplitLine> {
    return this.totalBytes > 0 ? [this.finish(false)] : []
  }

  private take(part: Uint8Array): void {
    if (part.length === 0) return
    this.totalBytes += part.length
    this.lastByte = part[part.length - 1]!
    const room = this.maxLineBytes + 1 - this.keptBytes // one byte more, for a "\r" the line end drops
    if (room <= 0) return
    const piece = part.length <= room ? part : part.subarray(0, room)
    // Copied (Buffer's own slice() would not copy): the reader may reuse its buffer for the next read.
    this.kept.push(Uint8Array.prototype.slice.call(piece))
    this.keptBytes += piece.length
  }

  private finish(endedByNewline: boolean): SplitLine {
    let bytes = concat(this.kept, this.keptBytes)
    let total = this.totalBytes
    if (endedByNewline && this.lastByte === CR) {
      if (bytes.length === total) bytes = bytes.subarray(0, bytes.length - 1)
      total -= 1
    }
    const capped = total > this.maxLineBytes
    if (capped) {
      bytes = bytes.subarray(0, this.maxLineBytes)
      bytes = bytes.subarray(0, bytes.length - incompleteTail(bytes))
    }
    this.kept = []
    this.keptBytes = 0
    this.totalBytes = 0
    this.lastByte = -1
    return { line: ++this.lineNo, text: this.decoder.decode(bytes), bytes: total, capped }
  }
}

const concat = (parts: ReadonlyArray<Uint8Array>, length: number): Uint8Array => {
  if (parts.length === 1) return parts[0]!
  const out = new Uint8Array(length)
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}
