/**
 * Auditing trace files from disk. A file that cannot be read comes back `failed` with the reason,
 * like one that cannot be parsed, so a batch always audits every other file.
 */
import { Effect } from "effect"
import { readFile } from "node:fs/promises"
import type { LoopguardConfig } from "../config/schema.js"
import { auditConfig } from "./audit-config.js"
import { auditTrace, type AuditResult } from "./audit-trace.js"

const readTrace = (file: string): Effect.Effect<{ readonly text: string } | { readonly error: string }> =>
  Effect.promise(() =>
    readFile(file, "utf8").then(
      (text) => ({ text }),
      (e: unknown) => ({ error: `${file}: cannot read: ${e instanceof Error ? e.message : String(e)}` })
    )
  )

/** Reads one trace v1 file and audits it with `config` (default: `auditConfig()`, every detector on). */
export const auditFile = Effect.fn("audit.auditFile")(function* (file: string, config: LoopguardConfig = auditConfig()) {
  const read = yield* readTrace(file)
  if ("error" in read) {
    const failed: AuditResult = { _tag: "failed", file, errors: [read.error] }
    return failed
  }
  return yield* auditTrace(file, read.text, config)
})

/** Audits each file in order; failed files are results too, never an error of the whole batch. */
export const auditFiles = (files: ReadonlyArray<string>, config: LoopguardConfig = auditConfig()): Effect.Effect<Array<AuditResult>> =>
  Effect.forEach(files, (file) => auditFile(file, config))
