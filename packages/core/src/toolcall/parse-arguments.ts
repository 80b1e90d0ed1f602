/**
 * Tool-call arguments as models actually write them: valid JSON, JSON with slips (trailing
 * commas, single quotes, unquoted keys), or Windows paths with unescaped backslashes.
 * parse → repair → `{ error, raw }`; never throws.
 *
 * A cut-off argument text (an unterminated string, an unclosed object) is never repaired: a
 * repair would have to invent the end of a command the model never wrote (`echo hi >> marker.txt`
 * becomes a finished command), so it is `{ error, raw }` with `cutOff: true`. Only slips in text
 * that is structurally complete are repaired.
 */
import { jsonrepair } from "jsonrepair"

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

const tryRepair = (text: string): Record<string, unknown> | null => {
  try {
    return asObject(JSON.parse(jsonrepair(text)))
  } catch {
    return null
  }
}

/**
 * Where a JSON-like text stops being complete: `string` when it ends inside a string literal
 * (double or single quoted), `brackets` when an object or array is still open, null when it is
 * whole. Quotes are strings only where a value or key may start, so `it's` in a bare word does
 * not open one.
 */
export const cutOffAt = (text: string): "string" | "brackets" | null => {
  let depth = 0
  let quote: string | null = null
  let prev = ""
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quote !== null) {
      if (c === "\\") i++
      else if (c === quote) quote = null
      continue
    }
    if (c === "{" || c === "[") depth++
    else if (c === "}" || c === "]") depth = Math.max(0, depth - 1)
    else if ((c === '"' || c === "'") && (prev === "" || "{[,:".includes(prev))) quote = c
    if (c.trim() !== "") prev = c
  }
  return quote !== null ? "string" : depth > 0 ? "brackets" : null
}

const refused = (raw: string, error: string, cutOff: boolean): ParsedArguments => ({ ok: false, value: { error, raw }, repaired: false, cutOff })

/** A tool call's argument string as an object, repairing slips in complete text; `{ error, raw }` when cut off or hopeless; never throws. */
export const parseToolArguments = (raw: string): ParsedArguments => {
  const text = raw.trim()
  if (text === "") return { ok: true, value: {}, repaired: false }
  const direct = tryParse(text)
  if (direct) return { ok: true, value: direct, repaired: false }
  const cut = cutOffAt(text)
  if (cut !== null) {
    const where = cut === "string" ? "inside an unterminated string" : "with an object or array still open"
    return refused(raw, `tool arguments were cut off (the JSON ends ${where}); the call was not run`, true)
  }
  const escaped = tryParse(escapeLoneBackslashes(text))
  if (escaped) return { ok: true, value: escaped, repaired: true }
  const repaired = tryRepair(escapeLoneBackslashes(text)) ?? tryRepair(text)
  if (repaired) return { ok: true, value: repaired, repaired: true }
  return refused(raw, "tool arguments are not valid JSON and could not be repaired; the call was not run", false)
}
