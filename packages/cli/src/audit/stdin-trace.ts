/**
 * `loopguard audit -`: a trace piped on stdin. The audit reads a trace twice (a check pass, then
 * the replay), which a pipe cannot give, so stdin is first copied to a private temporary file
 * (streamed, never held in memory), audited under the name `stdin`, and removed however the
 * audit ends.
 */
import type { AuditInput } from "@loopguard/effect/audit"
import { Effect } from "effect"
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pipeline } from "node:stream/promises"

/** The argument that names stdin. */
export const STDIN_ARG = "-"

/**
 * What `open` gives, copied to a temporary file for the scope's lifetime and audited under `name`.
 * The copy can be interrupted (Ctrl-C while a pipe waits for its writer); the folder goes with the scope.
 */
const spool = (open: () => NodeJS.ReadableStream, name: string): Effect.Effect<AuditInput, never, import("effect").Scope.Scope> =>
  Effect.gen(function* () {
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "loopguard-audit-stdin-"))),
      (made) => Effect.sync(() => rmSync(made, { recursive: true, force: true }))
    )
    const path = join(dir, "trace.jsonl")
    yield* Effect.promise((signal) => pipeline(open(), createWriteStream(path, { mode: 0o600 }), { signal }))
    return { path, name }
  })

/** Stdin spooled to a temporary file for the scope's lifetime. */
export const spoolStdin: Effect.Effect<AuditInput, never, import("effect").Scope.Scope> = spool(() => process.stdin, "stdin")

/**
 * A named pipe given as FILE (`<(zcat run.jsonl.gz)`), which can be read once, spooled like stdin
 * and audited under its own name; opened without holding the event loop, so a pipe nobody writes
 * to still lets Ctrl-C end the audit.
 */
export const spoolPipe = (file: string): Effect.Effect<AuditInput, never, import("effect").Scope.Scope> => spool(() => createReadStream(file), file)

/** Whether `file` is a named pipe (or a shell's `<(…)`), which a second read would find empty. */
export const isPipe = (file: string): boolean => {
  try {
    return statSync(file).isFIFO()
  } catch {
    return false
  }
}
