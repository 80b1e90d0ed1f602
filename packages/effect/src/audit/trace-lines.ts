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

  /** The next line, or null at the end of the file. */
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
    return this.ready[this.at++]!
  }

  close(): Promise<void> {
    return this.handle.close()
  }
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
