/** Unified diffs from the hunks agents record, so an edit reads the same whatever wrote it. */
import { isJsonObject } from "../fields.js"
import { num } from "./json-line.js"

/**
 * Claude Code's `structuredPatch` (hunks of `oldStart`, `oldLines`, `newStart`, `newLines` and
 * prefixed `lines`) as a unified diff of `path`; undefined when there is no hunk.
 */
export const structuredPatchDiff = (path: string | undefined, hunks: ReadonlyArray<unknown>): string | undefined => {
  const body: Array<string> = []
  for (const h of hunks) {
    if (!isJsonObject(h) || !Array.isArray(h["lines"])) continue
    body.push(`@@ -${num(h, "oldStart") ?? 0},${num(h, "oldLines") ?? 0} +${num(h, "newStart") ?? 0},${num(h, "newLines") ?? 0} @@`)
    for (const l of h["lines"]) if (typeof l === "string") body.push(l)
  }
  if (body.length === 0 || path === undefined) return undefined
  return [`--- ${path}`, `+++ ${path}`, ...body].join("\n")
}

/** The files a Codex `apply_patch` envelope touches, in order ("*** Update File: path" …). */
export const patchFiles = (patch: string): Array<string> =>
  [...patch.matchAll(/^\*\*\* (?:Update|Add|Delete) File: (.+)$/gm)].map((m) => m[1]!.trim())

/**
 * pi's edit diff (each line its sign, the line number and the text: `-2 beta`, `+2 gamma`,
 * ` 1 alpha`; `   ...` where unchanged lines are left out) as a unified diff of `path`, the line
 * numbers dropped so one change reads the same wherever it is in the file.
 */
export const numberedDiff = (path: string, diff: string): string | undefined => {
  const body: Array<string> = ["@@"]
  for (const line of diff.split(/\r?\n/)) {
    const m = /^([-+ ]) *\d+ (.*)$/.exec(line) ?? /^([-+ ]) *\d+()$/.exec(line)
    if (m !== null) body.push(`${m[1]}${m[2]}`)
    else if (/^ +\.\.\.$/.test(line)) body.push("@@")
    else if (line !== "") body.push(line)
  }
  return body.length === 1 ? undefined : [`--- ${path}`, `+++ ${path}`, ...body].join("\n")
}
