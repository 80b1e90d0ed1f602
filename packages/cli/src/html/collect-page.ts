/** A run's page data from its audit: the file's steps read once more, each cut to its view. */
import { redactSecrets } from "@loopguard/core/try-best"
import { forEachStep, type AuditedFile } from "@loopguard/effect/audit"
import { Effect } from "effect"
import { basename } from "node:path"
import { stepView, type RunPage, type StepView } from "./page-model.js"

/** Secrets in a log (keys, tokens, this machine's credential values) never reach a page. */
export const pageRedactor = (env: Readonly<Record<string, string | undefined>> = process.env) => (text: string) => redactSecrets(text, env)

/** The page of an audited file at `path` (its steps are read again, streamed). */
export const collectRunPage = (r: AuditedFile, path: string, maxLineBytes: number, redact: (t: string) => string = pageRedactor()): Effect.Effect<RunPage, string> =>
  Effect.gen(function* () {
    const steps: Array<StepView> = []
    yield* forEachStep({ path, name: r.file, format: r.format }, maxLineBytes, (s) => void steps.push(stepView(s.step, s.line, s.users, s.reply, redact)))
    return { title: basename(r.file), file: redact(r.file), format: r.format, steps, incidents: r.incidents, exit: r.exit, notes: r.notes.map(redact) }
  })
