/**
 * The masks that decide when two tool outputs are "the same answer", from loose to strict:
 * `maskObservation` (quoted strings, hex ids, paths, numbers: the labels' sense), numbers only
 * (see step-record's `namedObservation`), and `maskVolatile` (only what changes between two runs
 * of the very same command). `maskArguments` also masks a command's own arguments where its
 * output echoes them back. Pure, never throws.
 */
import { commandArguments } from "./command-skeleton.js"

// Order matters: quoted strings first (they may hold paths and numbers), then hex ids before
// the numbers inside them, then paths.
const QUOTED = /"(?:[^"\\\n]|\\.){0,400}"|'(?:[^'\\\n]|\\.){0,400}'|`[^`\n]{0,400}`/g
const HEX_ID = /\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{6,}\b/gi
/** A random id with a kind prefix, new on every call (`request-id: req_8fJ2kLm9Qx01`, `msg_01AbC…`, `chatcmpl-9x…`). */
const PREFIXED_ID =
  /\b(?:(?:req|request|msg|chatcmpl|toolu|call|resp|run|job|trace|span|evt|sess|sub|cus|ch|pi|txn|ord|srv|tok)[_-][A-Za-z0-9]{10,}|[a-z]{2,12}[_-](?=[A-Za-z0-9]*\d)(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{10,})\b/g
const PATH = /(?:~|\.{1,2})?(?:\/[\w.@+-]+)+\/?|\b[\w.@+-]+(?:\/[\w.@+-]+)+\/?/g
/** Numbers, with their decimal or version dots (`1.37`, `2025.06.18`). */
export const NUMBER = /\d+(?:\.\d+)*/g

/**
 * What stays of an output when the parts that change between otherwise identical results are
 * masked: quoted strings, hex ids (commit hashes, object ids, six-character run labels such as
 * Codex's `Chunk ID`), paths and numbers. "No matches
 * found for "foo" in /src" and "No matches found for "bar" in /lib" are one observation.
 */
export const maskObservation = (output: string): string =>
  output
    .replace(QUOTED, "<q>")
    .replace(PREFIXED_ID, "<id>")
    .replace(HEX_ID, "<hex>")
    .replace(PATH, "<path>")
    .replace(NUMBER, "0")
    .replace(/\s+/g, " ")
    .trim()

// What changes between two runs of the very same command: clock times, dates, durations,
// process ids, memory addresses, hex ids. Other numbers (an answer, a count) are kept.
const VOLATILE = /\b\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?|\b\d\d:\d\d:\d\d(?:\.\d+)?|\b\d+(?:\.\d+)?\s?(?:ms|s|sec|secs|seconds|minutes|min)\b|\b(?:pid|PID|PGID|process)[:= ]\s*\d+|\b0x[0-9a-f]+\b|\[\d+\]\s\d+|\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b/gi

/** Volatile numbers masked, quoted text, paths and other numbers kept: "the same answer" in the strict sense. */
export const maskVolatile = (output: string): string => output.replace(PREFIXED_ID, "<v>").replace(VOLATILE, "<v>").replace(/\s+/g, " ").trim()

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * The output with the command's own arguments masked (an echo of them), and volatile numbers.
 * `volatile`: `maskVolatile(output)` when the caller has it, the answer when nothing is echoed.
 */
export const maskArguments = (output: string, command: string, volatile?: string): string => {
  const args = [...new Set(commandArguments(command))].sort((a, b) => b.length - a.length).slice(0, 20)
  // An argument the output does not hold is not echoed: no pattern to build (most outputs echo none).
  if (args.length === 0 || !args.some((arg) => output.includes(arg))) return volatile ?? maskVolatile(output)
  // Whole words only: the guess "flag" must not eat the "flag" of "flag.txt".
  const echoed = new RegExp(`(?<![\\w./-])(?:${args.map(escapeRegExp).join("|")})(?![\\w/-]|\\.\\w)`, "g")
  const masked = output.replace(echoed, "<a>")
  return masked === output && volatile !== undefined ? volatile : maskVolatile(masked)
}

/** Input fields that hold a question in words (a web search's query), which its answer echoes. */
const QUERY_FIELDS = new Set(["query", "q", "queries", "search", "search_query", "searchQuery", "search_term", "question"])

/**
 * A tool's output with its own question masked (a web search echoes its query): two lookups that
 * asked in other words and got the very same answer read the same here. Paths are not masked: the
 * same matches in another folder are another folder's answer.
 */
export const maskInputEcho = (output: string, inputs: ReadonlyArray<unknown>): string => {
  const words = new Set<string>()
  const patterns = new Set<string>()
  for (const input of inputs) {
    if (input === null || typeof input !== "object" || Array.isArray(input)) continue
    for (const [key, value] of Object.entries(input)) {
      if (QUERY_FIELDS.has(key)) collectStrings(value, words)
      else if (PATTERN_FIELDS.has(key)) collectStrings(value, patterns)
    }
  }
  const echoed = [...words].filter((w) => w.length >= 3).sort((a, b) => b.length - a.length).slice(0, 20).map(escapeRegExp)
  // A search pattern is masked only where the answer quotes it (`Found 3 matches for pattern "refresh[Tt]oken"`):
  // the matched lines themselves hold the text it found, which is the answer.
  const quoted = [...patterns].filter((p) => p !== "").slice(0, 20).map((p) => `(?<=["'\`])${escapeRegExp(p)}(?=["'\`])`)
  const all = [...echoed, ...quoted]
  if (all.length === 0) return maskVolatile(output)
  return maskVolatile(output.replace(new RegExp(all.join("|"), "g"), "<a>"))
}

/** Input fields that hold a search pattern (Gemini CLI's `search_file_content`, Claude Code's `Grep` and `Glob`), which a header of the answer may quote. */
const PATTERN_FIELDS = new Set(["pattern", "regex", "glob"])

const collectStrings = (value: unknown, into: Set<string>): void => {
  if (typeof value === "string") into.add(value.trim())
  else if (Array.isArray(value)) for (const v of value) collectStrings(v, into)
  else if (value !== null && typeof value === "object") for (const v of Object.values(value)) collectStrings(v, into)
}

// "0 errors", "no failures": a clean report, not a refusal.
const CLEAN_REPORT = /\b(?:0|no|zero|without)\s+(?:errors?|failures?|problems?|issues?)\b/gi
const REFUSAL =
  /\b(?:errors?|fail(?:s|ed|ure|ing)?|invalid|incorrect|wrong|denied|refused|forbidden|unauthori[sz]ed|not found|not (?:ready|available|running|reachable|installed|supported|allowed|permitted)|unavailable|unreachable|no such|cannot|can't|could not|couldn't|unable|traceback|exception|rejected|timed? ?out|mismatch|no (?:matches|results|rows)|0 (?:rows|results|matches))\b/i

/**
 * The answer turns the try down: an error, a refusal, a wrong guess, nothing found, whatever the
 * exit status (`Wrong answer`, `incorrect password`, a Traceback printed with exit 0). The same
 * plain answer (`200`, `ok`, `{"status":"ok"}`) to different questions is a survey, not a retry.
 */
export const saysNo = (output: string): boolean => REFUSAL.test(output.replace(CLEAN_REPORT, ""))
