/**
 * `--session-dir` is checked before the run starts: a folder that cannot be created or written
 * (read-only, full disk, a file in the way) is a usage error naming it, not a crash mid-run;
 * a file-system failure later in the run is said in the same words (see main.ts).
 */
import { Effect } from "effect"
import { makeFolder } from "@loopguard/effect/store"
import { rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { UsageError } from "./errors.js"

const FS_ERROR_WORDS: Readonly<Record<string, string>> = {
  EACCES: "permission denied",
  EPERM: "permission denied",
  EROFS: "the file system is read-only",
  ENOSPC: "the disk is full",
  ENOTDIR: "a part of the path is a file, not a folder",
  EEXIST: "a file with that name is in the way",
  EISDIR: "a folder is where a file should be"
}

/** The usual file-system failures in words (read-only, full disk, …); undefined for others. */
export const fsErrorWords = (e: unknown): string | undefined => {
  const code = (e as { code?: unknown } | null)?.code
  return typeof code === "string" ? FS_ERROR_WORDS[code] : undefined
}

const describeFsError = (e: unknown): string => fsErrorWords(e) ?? (e instanceof Error ? e.message : String(e))

export const ensureWritableDir = (dir: string, flag: string): Effect.Effect<void, UsageError> =>
  Effect.try({
    try: () => {
      // Sessions are whole conversations: a folder made for them is its owner's only.
      makeFolder(dir, 0o700)
      const probe = join(dir, `.loopguard-write-check-${process.pid}`)
      writeFileSync(probe, "")
      rmSync(probe)
    },
    catch: (e) => new UsageError({ message: `${flag} ${dir}: cannot write there (${describeFsError(e)})` })
  })
