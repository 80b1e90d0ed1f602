/**
 * The runs an audit reports: one per log file, and one per session of a database an agent keeps
 * its sessions in (OpenCode's `opencode.db`, Kilo's `kilo.db`: @loopguard/effect/audit's
 * opencode-db.ts), named `DB#SESSION`. A database that cannot be read is one failed run naming it.
 */
import { isSqliteFile, openCodeDbSessions, storedSessionName } from "@loopguard/effect/audit"
import type { TraceFormat } from "@loopguard/core/trace"
import { Effect } from "effect"
import { fileBytes, isDevice } from "./inputs.js"
import { isPipe, STDIN_ARG } from "./stdin-trace.js"
import { notTextKind } from "./text-sniff.js"

export type AuditRun =
  | { readonly _tag: "file"; readonly file: string; readonly name: string; readonly bytes: number }
  | { readonly _tag: "stored"; readonly db: string; readonly id: string; readonly name: string; readonly bytes: number }
  | { readonly _tag: "unreadable"; readonly name: string; readonly error: string; readonly bytes: number }

/** The names OpenCode and Kilo give their databases: such a file is a database or nothing, never a text log. */
const DB_NAME = /(^|\/)(opencode|kilo)\.db$/i

/**
 * Why `file` cannot be audited as it was given, before it is read: a database with a `--format`
 * that reads text logs, a file named like OpenCode's database that is none (empty, say), or a file
 * that is no text (gzip, UTF-16, binary); null when nothing is wrong so far.
 */
const givenProblem = (file: string, format: TraceFormat | undefined, sqlite: boolean): string | null => {
  // A device (/dev/zero, a terminal) never ends: reading it as a log would not either. Pipes are spooled.
  if (isDevice(file)) return `${file}: a device, not a log file`
  if (sqlite && format !== undefined && format !== "opencode") return `${file}: a SQLite database, which --format ${format} cannot read (OpenCode's and Kilo's are read without --format, or with --format opencode)`
  if (!sqlite && DB_NAME.test(file)) return `${file}: named like OpenCode's database, but not a SQLite database (empty, or not a regular file)`
  // A pipe is read once, by the audit: not looked at here.
  const kind = sqlite || isPipe(file) ? null : notTextKind(file)
  if (kind !== null) return `${file}: not JSON Lines text but ${kind}`
  return null
}

/** The runs of the files, in order: a database's sessions oldest first, each with its share of the file's bytes. */
export const auditRuns = (files: ReadonlyArray<string>, format: TraceFormat | undefined): Effect.Effect<Array<AuditRun>> =>
  Effect.gen(function* () {
    const runs: Array<AuditRun> = []
    for (const file of files) {
      const bytes = file === STDIN_ARG ? 0 : fileBytes(file)
      const sqlite = file !== STDIN_ARG && isSqliteFile(file)
      const problem = file === STDIN_ARG ? null : givenProblem(file, format, sqlite)
      if (problem !== null) {
        runs.push({ _tag: "unreadable", name: file, error: problem, bytes })
        continue
      }
      if (!sqlite) {
        runs.push({ _tag: "file", file, name: file, bytes })
        continue
      }
      const sessions = yield* Effect.result(openCodeDbSessions(file))
      if (sessions._tag === "Failure") runs.push({ _tag: "unreadable", name: file, error: sessions.failure, bytes })
      else if (sessions.success.length === 0) runs.push({ _tag: "unreadable", name: file, error: `${file}: OpenCode's database holds no session`, bytes })
      else for (const s of sessions.success) runs.push({ _tag: "stored", db: file, id: s.id, name: storedSessionName(file, s.id), bytes: Math.round(bytes / sessions.success.length) })
    }
    return runs
  })

/** What an `--html` page of a run is named after: the session's id for a stored session. */
export const pageKey = (run: AuditRun): string => (run._tag === "stored" ? `${run.id}.json` : run.name)
