/**
 * What an edit call changed, as (path, unified-ish diff) records. The tool part's own `diff`
 * is used when present. Without one the change is derived from the call's input:
 *   - patch text (`patch`, `patchText`, `input`, a bare string input): unified diffs and the
 *     `*** Begin Patch` / `*** Update File:` format, one record per file;
 *   - `edits: [{ old_string, new_string }]` (multi-edit): all pairs in one record;
 *   - `old_string`/`new_string`, `old_str`/`new_str`, `oldText`/`newText`: removed and added
 *     lines, with the lines both sides share at the start and the end left out (they are context);
 *   - `new_str` alone (an insert), or whole content (`content`, `file_text`, `text`,
 *     `new_source`, `contents`): every line added.
 * A record without a known path still counts as an edit but is never compared.
 */
import type { ToolPart } from "../model/message.js"
import { normalizePath } from "./normalize.js"
import { isRecord, stringField } from "./tool-kinds.js"

export interface EditRecord {
  readonly path: string | undefined
  readonly diff: string
}

const PATH_KEYS = ["file_path", "path", "filePath", "notebook_path", "target_file", "filename", "file"]
const PATCH_KEYS = ["patch", "patchText", "patch_text", "diff", "input"]
const PAIR_KEYS: ReadonlyArray<readonly [string, string]> = [
  ["old_string", "new_string"],
  ["old_str", "new_str"],
  ["oldText", "newText"],
  ["old_text", "new_text"]
]
const CONTENT_KEYS = ["content", "file_text", "text", "new_source", "contents", "new_str", "new_string"]

/** The file edits a tool part made (path and new content or diff), whatever the agent calls its edit tool. */
export const editRecords = (part: ToolPart): ReadonlyArray<EditRecord> => {
  const path = part.path ?? stringField(part.input, ...PATH_KEYS)
  if (typeof part.diff === "string" && part.diff.trim() !== "") return splitUnifiedDiff(part.diff, path)
  if (typeof part.input === "string") return parsePatchText(part.input, path)
  if (!isRecord(part.input)) return []
  const input = part.input
  const patch = stringField(input, ...PATCH_KEYS)
  if (patch !== undefined && looksLikePatch(patch)) return parsePatchText(patch, path)
  if (Array.isArray(input["edits"])) {
    const diffs = input["edits"].filter(isRecord).map(pairDiff).filter((d) => d !== "")
    return diffs.length > 0 ? [{ path, diff: diffs.join("\n") }] : []
  }
  const pair = pairDiff(input)
  if (pair !== "") return [{ path, diff: pair }]
  const content = stringField(input, ...CONTENT_KEYS)
  return content !== undefined && content !== "" ? [{ path, diff: addedLines(content) }] : []
}

const looksLikePatch = (text: string): boolean =>
  /^\*\*\* (?:Begin Patch|Update File:|Add File:|Delete File:)/m.test(text) ||
  /^(?:--- .*\r?\n\+\+\+ |@@ )/m.test(text)

const addedLines = (text: string): string =>
  text
    .split(/\r?\n/)
    .map((l) => `+${l}`)
    .join("\n")

/** Old/new text → removed + added lines, minus the lines they share at both ends. */
const pairDiff = (input: Readonly<Record<string, unknown>>): string => {
  for (const [oldKey, newKey] of PAIR_KEYS) {
    const before = input[oldKey]
    const after = input[newKey]
    if (typeof before !== "string" || typeof after !== "string") continue
    const a = before.split(/\r?\n/)
    const b = after.split(/\r?\n/)
    let start = 0
    while (start < a.length && start < b.length && a[start] === b[start]) start++
    let end = 0
    while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++
    const removed = a.slice(start, a.length - end).map((l) => `-${l}`)
    const added = b.slice(start, b.length - end).map((l) => `+${l}`)
    return [...removed, ...added].join("\n")
  }
  return ""
}

/** Patch text in either the unified format or the `*** Update File:` format. */
export const parsePatchText = (text: string, fallbackPath: string | undefined): ReadonlyArray<EditRecord> => {
  if (!/^\*\*\* (?:Begin Patch|Update File:|Add File:|Delete File:)/m.test(text)) return splitUnifiedDiff(text, fallbackPath)
  const records: Array<{ path: string | undefined; lines: Array<string> }> = []
  let current: { path: string | undefined; lines: Array<string> } | undefined
  for (const line of text.split(/\r?\n/)) {
    const header = /^\*\*\* (?:Update|Add|Delete) File:\s*(.+?)\s*$/.exec(line)
    if (header !== null) {
      current = { path: header[1], lines: [] }
      records.push(current)
      continue
    }
    if (line.startsWith("***")) continue
    if (current !== undefined && (line.startsWith("+") || line.startsWith("-"))) current.lines.push(line)
  }
  return records
    .filter((r) => r.lines.length > 0)
    .map((r) => ({ path: r.path === undefined ? undefined : normalizePath(r.path), diff: r.lines.join("\n") }))
}

const headerPath = (line: string, prefix: "a/" | "b/"): string | undefined => {
  // "--- a/src/x.ts\t2024-01-01 ..." → "src/x.ts"; /dev/null is no path.
  const raw = line.slice(4).split("\t")[0]!.trim().replace(/^"(.*)"$/, "$1")
  if (raw === "/dev/null" || raw === "") return undefined
  return raw.startsWith(prefix) ? raw.slice(2) : raw
}

/**
 * A unified diff split per file at its `--- / +++` header pairs. A single-file diff keeps the
 * tool's own path when it has one, so that every edit of a file is filed under one spelling.
 */
export const splitUnifiedDiff = (diff: string, fallbackPath: string | undefined): ReadonlyArray<EditRecord> => {
  const lines = diff.split(/\r?\n/)
  const records: Array<{ path: string | undefined; lines: Array<string> }> = []
  let current: { path: string | undefined; lines: Array<string> } = { path: fallbackPath, lines: [] }
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    const next = lines[i + 1] ?? ""
    if (line.startsWith("--- ") && next.startsWith("+++ ")) {
      if (current.lines.length > 0) records.push(current)
      current = { path: headerPath(next, "b/") ?? headerPath(line, "a/"), lines: [] }
      i++
      continue
    }
    if (line.startsWith("diff --git ")) continue
    current.lines.push(line)
  }
  if (current.lines.length > 0) records.push(current)
  if (records.length === 1 && fallbackPath !== undefined) records[0] = { ...records[0]!, path: fallbackPath }
  return records.map((r) => ({
    path: r.path === undefined ? undefined : normalizePath(r.path),
    diff: r.lines.join("\n")
  }))
}
