/** A run's page data from its audit: the file's steps read once more, each cut to its view. */
import { redactDeep } from "@loopguard/core/try-best"
import { logRedactor } from "../render/env-secrets.js"
import { forEachStep, type AuditedFile } from "@loopguard/effect/audit"
import { Effect } from "effect"
import { basename } from "node:path"
import { stepView, type RunPage, type StepView } from "./page-model.js"

/** The page of an audited file at `path` (its steps are read again, streamed). */
export const collectRunPage = (r: AuditedFile, path: string, maxLineBytes: number, redact: (t: string) => string = logRedactor()): Effect.Effect<RunPage, string> =>
  Effect.gen(function* () {
    const steps: Array<StepView> = []
    yield* forEachStep({ path, name: r.file, format: r.format }, maxLineBytes, (s) => void steps.push(stepView(s.step, s.line, s.users, s.reply, redact)))
    // The file's name is the person's own (given or found in a folder they named), not the log's.
    return { title: basename(r.file), file: r.file, format: r.format, steps, incidents: redactDeep(r.incidents, redact), exit: r.exit, notes: r.notes.map(redact) }
  })
