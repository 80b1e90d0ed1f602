/**
 * The one rule for a session id a person gives the CLI (`run --session`, `chat --session`,
 * `sessions import --as`, and the id an imported file names): 1 to 128 letters, digits, `.`, `_`
 * and `-`. Ids are printed in lines and used as file names by people (`sessions export ID --out
 * ID.jsonl`), so `/`, `..` tricks, spaces and control characters are kept out.
 */

const MAX_CHARS = 128
const ID_CHARS = /^[A-Za-z0-9._-]+$/

/** The rule as an error states it. */
export const SESSION_ID_RULE = "letters, digits, . _ - only"

/** Why `id` cannot name a session (empty, too long, a character outside the rule), or null. */
export const sessionIdProblem = (id: string): string | null => {
  if (id === "") return "is empty"
  if (id.length > MAX_CHARS) return `is ${id.length} characters long (at most ${MAX_CHARS})`
  if (/[\s\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/.test(id)) return `holds spaces or control characters (${SESSION_ID_RULE})`
  if (!ID_CHARS.test(id)) return `is not a session id (${SESSION_ID_RULE})`
  return null
}

/** A session id as an error quotes it: JSON, and only its beginning when it is long (the problem says how long). */
export const quotedId = (id: string): string => (id.length > 80 ? `${JSON.stringify(id.slice(0, 60))}…` : JSON.stringify(id))
