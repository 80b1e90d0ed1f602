/** A file's log format from its first bytes (core's detectFormat), read without loading the file. */
import { detectFormat, type TraceFormat } from "@loopguard/core/trace"
import { Effect } from "effect"
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
