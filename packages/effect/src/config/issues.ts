/**
 * The config schema's issues as (path, message) pairs, read from Schema's structured issue tree
 * (never parsed from an error's text), and a field's name as a reader writes it: `a.b[1]`.
 */
import { Schema, SchemaIssue } from "effect"
import { LoopguardConfigSchema } from "./schema.js"

export interface ConfigIssue {
  /** Keys from the root; list indices as decimal text. */
  readonly path: ReadonlyArray<string>
  readonly message: string
}

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

/** Every leaf problem of a failed decode, in the schema's order. */
export const configIssues = (issue: SchemaIssue.Issue): ReadonlyArray<ConfigIssue> =>
  formatIssues(issue).issues.map((i) => ({
    path: (i.path ?? []).map((segment) => String(typeof segment === "object" && segment !== null ? segment.key : segment)),
    message: i.message
  }))

/** `a.b[1]` for a path whose segments index a list; `(root)` for the empty path. */
export const fieldName = (path: ReadonlyArray<string>): string =>
  path.length === 0 ? "(root)" : path.map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`)).join("")

/**
 * What is wrong with a whole config handed over as a value (a library caller's, not read from a
 * file): one line per field, `config field a.b: …`; empty when it decodes. Code without types
 * (plain JavaScript) otherwise found out at the first request, from a property of `undefined`.
 */
export const configValueProblems = (value: unknown): ReadonlyArray<string> => {
  const decoded = Schema.decodeUnknownResult(LoopguardConfigSchema)(value, { errors: "all", onExcessProperty: "error" })
  return decoded._tag === "Success" ? [] : configIssues(decoded.failure.issue).map((i) => `config field ${fieldName(i.path)}: ${i.message}`)
}
