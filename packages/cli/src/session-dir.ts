/**
 * `--session-dir` is checked before the run starts: a folder that cannot be created or written
 * (read-only, full disk, a file in the way) is a usage error naming it, not a crash mid-run.
 */
import { Effect } from "effect"
import { mkdirSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { UsageError } from "./errors.js"

const reason = (e: unknown): string => {
  const err = e as NodeJS.ErrnoException
  const why: Record<string, string> = {
    EACCES: "permission denied",
    EPERM: "permission denied",
    EROFS: "the file system is read-only",
    ENOSPC: "the disk is full",
    ENOTDIR: "a part of the path is a file, not a folder",
    EEXIST: "a file with that name is in the way"
  }
  return (err.code !== undefined ? why[err.code] : undefined) ?? err.message ?? String(e)
}

export const ensureWritableDir = (dir: string, flag: string): Effect.Effect<void, UsageError> =>
  Effect.try({
    try: () => {
      mkdirSync(dir, { recursive: true })
      const probe = join(dir, `.loopguard-write-check-${process.pid}`)
      writeFileSync(probe, "")
      rmSync(probe)
    },
    catch: (e) => new UsageError({ message: `${flag} ${dir}: cannot write there (${reason(e)})` })
  })
