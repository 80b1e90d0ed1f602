/**
 * A trace file as lines pulled one at a time: the file is read in chunks and split by core's
 * LineSplitter, so what is held is one chunk plus the kept part of one line, whatever the file's size.
 */
import { LineSplitter, type LineCut, type SplitLine } from "@loopguard/core/trace"
import { Effect } from "effect"
import { open, type FileHandle } from "node:fs/promises"

const READ_BYTES = 256 * 1024

/** Pulls the lines of one file; `close` releases the file (also after a partial read). */
export class TraceLines {
  private readonly splitter: LineSplitter
  // One buffer for every read: the splitter copies what it keeps.
  private readonly buffer = Buffer.allocUnsafe(READ_BYTES)
  private ready: Array<SplitLine> = []
  private at = 0
  private done = false

  private constructor(
    private readonly handle: FileHandle,
    maxLineBytes: number
  ) {
    this.splitter = new LineSplitter(maxLineBytes)
  }

  /** Opens `file` for reading. */
  static async open(file: string, maxLineBytes: number): Promise<TraceLines> {
    return new TraceLines(await open(file, "r"), maxLineBytes)
  }

  /** The next line, or null at the end of the file. A line cut at `maxLineBytes` loses the token the cut split (see `withoutSplitToken`). */
  async next(): Promise<SplitLine | null> {
    while (this.at >= this.ready.length) {
      if (this.done) return null
      const { bytesRead } = await this.handle.read(this.buffer, 0, READ_BYTES, null)
      if (bytesRead === 0) {
        this.done = true
        this.ready = this.splitter.end()
      } else this.ready = this.splitter.push(this.buffer.subarray(0, bytesRead))
      this.at = 0
    }
    const line = this.ready[this.at++]!
    return line.capped ? { ...line, text: withoutSplitToken(line.text) } : line
  }

  close(): Promise<void> {
    return this.handle.close()
  }
}

/** Characters a key or token is made of. */
const TOKEN_TAIL = /[A-Za-z0-9_\-+/=.~%]+$/
/** A run longer than this at a cut is data (base64, a hash list), not one key: left as it is. */
const MAX_SPLIT_TOKEN_CHARS = 4_096

/**
 * A cut line without the token the cut fell in. The rest of the line is never read, so that token
 * cannot be redacted whole; its first part (`sk-proj-PrObE…`) is too short to be recognised, and
 * would show on every page and line that quotes the step. Dropping it is what keeps it out.
 */
export const withoutSplitToken = (text: string): string => {
  const run = TOKEN_TAIL.exec(text.slice(-MAX_SPLIT_TOKEN_CHARS - 1))?.[0] ?? ""
  return run.length === 0 || run.length > MAX_SPLIT_TOKEN_CHARS ? text : text.slice(0, text.length - run.length)
}

/** How a capped line was cut, as the trace parser takes it (undefined for a whole line). */
export const lineCut = (l: SplitLine): LineCut | undefined => (l.capped ? { bytes: l.bytes, keptBytes: Buffer.byteLength(l.text) } : undefined)

/** Why a file could not be read, as the audit reports it. */
export const cannotRead = (file: string, e: unknown): string => `${file}: cannot read: ${e instanceof Error ? e.message : String(e)}`

/** `TraceLines` as a scoped resource: the file is closed when the scope ends, however it ends. */
export const openTraceLines = (source: { readonly path: string; readonly name: string }, maxLineBytes: number) =>
  Effect.acquireRelease(
    Effect.tryPromise({ try: () => TraceLines.open(source.path, maxLineBytes), catch: (e) => cannotRead(source.name, e) }),
    (lines) => Effect.promise(() => lines.close().catch(() => undefined))
  )
