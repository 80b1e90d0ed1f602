/**
 * Text from the model, from tools or from a server is shown on a person's terminal: an escape
 * sequence in it could recolour, move the cursor, retitle the window or hide what was printed.
 * Control characters other than newline and tab are removed (an ESC without its ESC is plain
 * text), and so are the bidirectional overrides and isolates, which reorder what is shown (a
 * command that reads as harmless but is not). A URL is shown without the user name, password or
 * query it may carry. This is the one sanitiser for the terminal: every text from a model, a
 * tool, a server, a store or a user passes it before it is printed.
 */
// C0 controls but \t and \n, DEL, the C1 range (0x80-0x9f: CSI and friends on some terminals),
// the bidi marks and embeddings/overrides (U+061C, U+200E-200F, U+202A-202E) and isolates (U+2066-2069).
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g

export const terminalSafe = (text: string): string => text.replace(CONTROL, "")

// CONTROL with newline and tab (and the Unicode line and paragraph separators): a field of a one-line log entry holds none.
const CONTROL_IN_LINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g
const NAMED_ESCAPES: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" }

/**
 * A field of a one-line log entry that someone else chose (a client's model name, a session id, an
 * upstream's words): every control character, newline and bidi control shown escaped (`\n`,
 * `\x1b`, `\u202e`), so the field can neither act on the terminal nor start a forged line, and
 * a reader still sees that it was there.
 */
export const terminalSafeField = (text: string): string =>
  text.replace(CONTROL_IN_LINE, (c) => {
    const code = c.charCodeAt(0)
    return NAMED_ESCAPES[c] ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`)
  })

/** What JSON.stringify leaves raw of CONTROL: DEL, the C1 range and the bidi controls. */
const RAW_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g

/**
 * A value as one JSON line for stdout. The encoder escapes the C0 controls; what it leaves raw
 * (DEL, C1, the bidi controls) is escaped too (`\u202e`): the same JSON value, nothing a terminal
 * showing the line would act on.
 */
export const jsonLine = (value: unknown): string =>
  (JSON.stringify(value) ?? "null").replace(RAW_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)

/** `https://user:pw@host/v1?key=x` → `https://host/v1`; anything that is not a URL is made terminal-safe. */
export const displayUrl = (url: string): string => {
  try {
    const u = new URL(url)
    return terminalSafe(`${u.protocol}//${u.host}${u.pathname}`.replace(/\/$/, ""))
  } catch {
    return terminalSafe(url)
  }
}
