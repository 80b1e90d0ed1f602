/** A file's log format from its first bytes (core's detectFormat), read without loading the file. */
import { detectFormat, type TraceFormat } from "@loopguard/core/trace"
import { Effect } from "effect"
import { closeSync, openSync, readSync, statSync } from "node:fs"
import { open } from "node:fs/promises"

/** Bytes read to tell a format: what every agent writes first fits in far less… */
export const DETECT_BYTES = 64 * 1024
/**
 * …unless its first record holds a pasted prompt or long instructions (a Claude Code session
 * started with a pasted log, a Codex `session_meta`): the head then reads on to its first line's
 * end, up to this many bytes; past that the record's cut beginning tells the format.
 */
export const DETECT_MAX_BYTES = 4 * 1024 * 1024

/** Where the first byte that is no whitespace is in `chunk`; -1 when there is none. */
const firstContent = (chunk: Buffer): number => chunk.findIndex((b) => b !== 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d)

type ReadAt = (buffer: Buffer, position: number) => Promise<number>

/** The head format detection reads: DETECT_BYTES, then on by as much until it holds a whole line, the file ends or DETECT_MAX_BYTES. */
export const readDetectionHead = async (readAt: ReadAt): Promise<Buffer> => {
  const chunks: Array<Buffer> = []
  let total = 0
  let inLine = false
  while (total < DETECT_MAX_BYTES) {
    const chunk = Buffer.alloc(Math.min(DETECT_BYTES, DETECT_MAX_BYTES - total))
    const n = await readAt(chunk, total)
    const read = chunk.subarray(0, n)
    chunks.push(read)
    total += n
    const start: number = inLine ? 0 : firstContent(read)
    inLine ||= start !== -1
    if (n < chunk.length || (start !== -1 && read.indexOf(0x0a, start) !== -1)) break
  }
  return Buffer.concat(chunks)
}

/** The format of `path`; trace v1 when it cannot be read (the audit then says why it cannot). */
export const detectFileFormat = (path: string): Effect.Effect<TraceFormat> =>
  Effect.promise(async () => {
    try {
      const handle = await open(path, "r")
      try {
        const head = await readDetectionHead(async (buffer, position) => (await handle.read(buffer, 0, buffer.length, position)).bytesRead)
        return detectFormat(head.toString("utf8"))
      } finally {
        await handle.close()
      }
    } catch {
      return "trace" as const
    }
  })

/** The 16 bytes every SQLite database file starts with. */
const SQLITE_HEADER = "SQLite format 3\0"

/** The first `n` bytes of a regular file (a FIFO or a device is never opened: a read could wait forever); null when there are none to read. */
export const headOf = (path: string, n: number): Buffer | null => {
  let fd: number | undefined
  try {
    if (!statSync(path).isFile()) return null
    fd = openSync(path, "r")
    const head = Buffer.alloc(n)
    return readSync(fd, head, 0, n, 0) === n ? head : null
  } catch {
    return null
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/** Whether `path` is a SQLite database file (by its header); false when it cannot be read or is not a regular file. */
export const isSqliteFile = (path: string): boolean => headOf(path, 16)?.toString("latin1") === SQLITE_HEADER

