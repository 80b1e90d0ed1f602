/**
 * `loopguard audit -`: a trace piped on stdin. The audit reads a trace twice (a check pass, then
 * the replay), which a pipe cannot give, so stdin is first copied to a private temporary file
 * (streamed, never held in memory), audited under the name `stdin`, and removed however the
 * audit ends.
 */
import type { AuditInput } from "@loopguard/effect/audit"
import { Effect } from "effect"
import { createWriteStream, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pipeline } from "node:stream/promises"

/** The argument that names stdin. */
export const STDIN_ARG = "-"

/** Stdin spooled to a temporary file for the scope's lifetime. */
export const spoolStdin: Effect.Effect<AuditInput, never, import("effect").Scope.Scope> = Effect.acquireRelease(
  Effect.promise(async () => {
    const dir = mkdtempSync(join(tmpdir(), "loopguard-audit-stdin-"))
    const path = join(dir, "trace.jsonl")
    await pipeline(process.stdin, createWriteStream(path, { mode: 0o600 }))
    return { path, name: "stdin" }
  }),
  (source) => Effect.sync(() => rmSync(join(source.path, ".."), { recursive: true, force: true }))
)
