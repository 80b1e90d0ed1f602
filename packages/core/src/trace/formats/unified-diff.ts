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
