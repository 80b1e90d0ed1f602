/**
 * Tool-call arguments as models actually write them: valid JSON, JSON with slips (trailing
 * commas, single quotes, unquoted keys), or Windows paths with unescaped backslashes.
 * parse → repair → `{ error, raw }`; never throws.
 *
 * A cut-off argument text (an unterminated string, an unclosed object) is never repaired: a
 * repair would have to invent the end of a command the model never wrote (`echo hi >> marker.txt`
 * becomes a finished command), so it is `{ error, raw }` with `cutOff: true`. Only slips in text
 * that is structurally complete are repaired.
 *
 * Arguments nested deeper than MAX_ARGUMENT_DEPTH are refused before anything parses them: no
 * tool takes such input, and every later walk over it (redaction, fingerprints, events) would
 * recurse that deep. Arguments that name one key twice are refused too (`duplicate-keys.ts`): which
 * value was meant is a guess.
 */
import { jsonrepair } from "jsonrepair"
import { duplicateKeyError, duplicateKeyOf } from "./duplicate-keys.js"

export type ParsedArguments =
  | { readonly ok: true; readonly value: Record<string, unknown>; readonly repaired: boolean }
  | {
      readonly ok: false
      readonly value: { readonly error: string; readonly raw: string }
      readonly repaired: false
      /** The text ends inside a string or with brackets still open: the model was cut off. */
      readonly cutOff: boolean
    }

const asObject = (v: unknown): Record<string, unknown> | null =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null

/**
 * Escape a backslash that does not start a valid JSON escape (`C:\Users` → `C:\\Users`).
 * Conservative: `\n`, `\t`, `\"`, `\\`, `\uXXXX` … are left alone.
 */
export const escapeLoneBackslashes = (text: string): string => text.replace(/\\(?!["\\/bfnrt]|u[0-9a-fA-F]{4})/g, "\\\\")

const tryParse = (text: string): Record<string, unknown> | null => {
  try {
    return asObject(JSON.parse(text))
  } catch {
    return null
  }
}

/** The repaired text and what it parses to, or null. */
const tryRepair = (text: string): { readonly text: string; readonly value: Record<string, unknown> } | null => {
  try {
    const repaired = jsonrepair(text)
    const value = asObject(JSON.parse(repaired))
    return value === null ? null : { text: repaired, value }
  } catch {
    return null
  }
}

/**
 * The brackets of a JSON-like text: where it stops being complete (`cut`: `string` when it ends
 * inside a string literal, double or single quoted; `brackets` when an object or array is still
 * open; null when whole), and whether a bracket closes out of order with more text after it
 * (`{"command": "rm -rf build/"], "dry_run": true}`: which object the rest belongs to is a guess).
 * Quotes are strings only where a value or key may start, so `it's` in a bare word does not open one.
 */
export const bracketsOf = (text: string): { readonly cut: "string" | "brackets" | null; readonly outOfOrder: boolean } => {
  const open: Array<string> = []
  let quote: string | null = null
  let prev = ""
  let outOfOrderAt = -1
  let closedWhole = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quote !== null) {
      if (c === "\\") i++
      else if (c === quote) quote = null
      continue
    }
    if (c === "{" || c === "[") open.push(c === "{" ? "}" : "]")
    else if (c === "}" || c === "]") {
      // A closer with nothing open: the value already closed, and text after it is not part of it.
      if (open.length === 0) closedWhole = true
      if (open.pop() !== c && outOfOrderAt === -1) outOfOrderAt = i
    } else if ((c === '"' || c === "'") && (prev === "" || "{[,:".includes(prev))) quote = c
    if (c.trim() !== "") prev = c
  }
  const cut = quote !== null ? "string" : open.length > 0 ? "brackets" : null
  // The wrong closer as the very last character is a slip: nothing is left to belong anywhere else.
  return { cut, outOfOrder: closedWhole || (outOfOrderAt !== -1 && text.slice(outOfOrderAt + 1).trim() !== "") }
}

/** Where a JSON-like text stops being complete (`bracketsOf(text).cut`). */
export const cutOffAt = (text: string): "string" | "brackets" | null => bracketsOf(text).cut

/** Objects and arrays inside one another, at most, in a tool call's arguments. */
export const MAX_ARGUMENT_DEPTH = 64

/** Whether brackets outside strings nest deeper than `limit` (a linear scan; never throws). */
export const nestsDeeperThan = (text: string, limit: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (inString) {
      if (c === "\\") i++
      else if (c === '"') inString = false
    } else if (c === '"') inString = true
    else if (c === "{" || c === "[") {
      if (++depth > limit) return true
    } else if (c === "}" || c === "]") depth = Math.max(0, depth - 1)
  }
  return false
}

/** Whether a parsed value nests objects and arrays deeper than `limit` (iterative: no recursion to overflow). */
export const valueNestsDeeperThan = (value: unknown, limit: number): boolean => {
  const stack: Array<readonly [unknown, number]> = [[value, 0]]
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!
    if (v === null || typeof v !== "object") continue
    if (depth + 1 > limit) return true
    for (const item of Object.values(v as object)) stack.push([item, depth + 1])
  }
  return false
}

/** The refusal of arguments nested too deep. */
export const TOO_DEEP = `tool arguments nest deeper than ${MAX_ARGUMENT_DEPTH} levels; the call was not run`

const refused = (raw: string, error: string, cutOff: boolean): ParsedArguments => ({ ok: false, value: { error, raw }, repaired: false, cutOff })

/** The parse, unless the text it was read from names a key twice. */
const unambiguous = (raw: string, parsedText: string, parsed: ParsedArguments): ParsedArguments => {
  const twice = duplicateKeyOf(parsedText)
  return twice === null ? parsed : refused(raw, duplicateKeyError(twice), false)
}

/** A tool call's argument string as an object, repairing slips in complete text; `{ error, raw }` when cut off or hopeless; never throws. */
export const parseToolArguments = (raw: string): ParsedArguments => {
  const text = raw.trim()
  if (text === "") return { ok: true, value: {}, repaired: false }
  if (nestsDeeperThan(text, MAX_ARGUMENT_DEPTH)) {
    return refused(raw.slice(0, 200), TOO_DEEP, false)
  }
  const direct = tryParse(text)
  if (direct) return unambiguous(raw, text, { ok: true, value: direct, repaired: false })
  const { cut, outOfOrder } = bracketsOf(text)
  if (cut !== null) {
    const where = cut === "string" ? "inside an unterminated string" : "with an object or array still open"
    return refused(raw, `tool arguments were cut off (the JSON ends ${where}); the call was not run`, true)
  }
  if (outOfOrder) return refused(raw, "tool arguments close a bracket out of order with more after it, so what they ask for is unclear; the call was not run", false)
  const escapedText = escapeLoneBackslashes(text)
  const escaped = tryParse(escapedText)
  if (escaped) return unambiguous(raw, escapedText, { ok: true, value: escaped, repaired: true })
  const repaired = tryRepair(escapedText) ?? tryRepair(text)
  if (repaired) return unambiguous(raw, repaired.text, { ok: true, value: repaired.value, repaired: true })
  return refused(raw, "tool arguments are not valid JSON and could not be repaired; the call was not run", false)
}
