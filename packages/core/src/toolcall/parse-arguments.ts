/**
 * Tool-call arguments as models actually write them: valid JSON, JSON with slips (trailing
 * commas, single quotes, unquoted keys, truncated tails), or Windows paths with unescaped
 * backslashes. parse → repair → `{ error, raw }`; never throws.
 */
import { jsonrepair } from "jsonrepair"

export type ParsedArguments =
  | { readonly ok: true; readonly value: Record<string, unknown>; readonly repaired: boolean }
  | { readonly ok: false; readonly value: { readonly error: string; readonly raw: string }; readonly repaired: false }

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

/** A tool call's argument string as an object, repairing common damage; `{ error, raw }` when hopeless; never throws. */
export const parseToolArguments = (raw: string): ParsedArguments => {
  const text = raw.trim()
  if (text === "") return { ok: true, value: {}, repaired: false }
  const direct = tryParse(text)
  if (direct) return { ok: true, value: direct, repaired: false }
  const escaped = tryParse(escapeLoneBackslashes(text))
  if (escaped) return { ok: true, value: escaped, repaired: true }
  // Repair the backslash-fixed text first: jsonrepair alone drops the backslashes of a
  // truncated Windows path (`{"p": "C:\Users\me` → "C:Usersme").
  const repaired = tryRepair(escapeLoneBackslashes(text)) ?? tryRepair(text)
  if (repaired) return { ok: true, value: repaired, repaired: true }
  return { ok: false, value: { error: "tool arguments are not valid JSON and could not be repaired", raw }, repaired: false }
}
