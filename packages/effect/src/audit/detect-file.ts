/** A file's log format from its first bytes (core's detectFormat), read without loading the file. */
import { detectFormat, type TraceFormat } from "@loopguard/core/trace"
import { Effect } from "effect"
import { closeSync, openSync, readSync, statSync } from "node:fs"
import { open } from "node:fs/promises"

/** Bytes read to tell a format: what every agent writes first fits in far less. */
export const DETECT_BYTES = 64 * 1024

/** The format of `path`; trace v1 when it cannot be read (the audit then says why it cannot). */
export const detectFileFormat = (path: string): Effect.Effect<TraceFormat> =>
  Effect.promise(async () => {
    try {
      const handle = await open(path, "r")
      try {
        const buffer = Buffer.alloc(DETECT_BYTES)
        const { bytesRead } = await handle.read(buffer, 0, DETECT_BYTES, 0)
        return detectFormat(buffer.subarray(0, bytesRead).toString("utf8"))
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

