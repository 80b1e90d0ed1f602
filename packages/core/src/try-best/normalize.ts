/**
 * Normalizers that make two runs of "the same thing" compare equal: diffs reduced to what they
 * change, commands and outputs with their volatile parts (temp paths, seeds, long numbers,
 * durations) masked, and file paths in one spelling.
 */

const TEMP_PATH = /(?<![\w.-])(?:\/private)?\/(?:tmp|var\/folders)\/[^\s'"`;|&()<>]*/g
const LONG_NUMBER = /\b\d{6,}\b/g
const SEED_ARG = /--seed(?:=|\s+)\S+/g
const WHITESPACE = /\s+/g

/** `/tmp/...` → `<TMP>`, 6+ digit numbers → `<NUM>`, `--seed X` → `<SEED>`, whitespace collapsed. */
export const normalizeCommand = (command: string): string =>
  command
    .replace(TEMP_PATH, "<TMP>")
    .replace(SEED_ARG, "<SEED>")
    .replace(LONG_NUMBER, "<NUM>")
    .replace(WHITESPACE, " ")
    .trim()

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]/g
const HEX_ADDRESS = /\b0x[0-9a-f]{6,}\b/gi
const CLOCK_TIME = /\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b/g
const DURATION =
  /\b\d+(?:\.\d+)?\s?(?:ns|µs|us|ms|s|secs?|seconds?|mins?|minutes?)(?![\w])/gi
const TRUNCATION_MARK = " <…> "

/**
 * Output of a verification run, reduced so that only real changes show: colours, temp paths,
 * long numbers, memory addresses, clock times and durations (`1.23s`, `45ms`, `0.5 seconds`)
 * are masked and whitespace collapsed. Past `limit` characters only the head and the tail are
 * kept, because test summaries sit at the end and the first failure near the start.
 */
export const normalizeOutput = (output: string, limit = 2000): string => {
  const normalized = output
    .replace(ANSI, "")
    .replace(TEMP_PATH, "<TMP>")
    .replace(HEX_ADDRESS, "<ADDR>")
    .replace(CLOCK_TIME, "<CLOCK>")
    .replace(DURATION, "<TIME>")
    .replace(LONG_NUMBER, "<NUM>")
    .replace(WHITESPACE, " ")
    .trim()
  if (normalized.length <= limit) return normalized
  const keep = Math.max(0, limit - TRUNCATION_MARK.length)
  const head = Math.ceil(keep / 2)
  const tail = keep - head
  return normalized.slice(0, head) + TRUNCATION_MARK + (tail > 0 ? normalized.slice(-tail) : "")
}

/**
 * A unified diff reduced to its added and removed lines: file headers (a `---` line directly
 * followed by a `+++` line), hunk headers and context lines go; each kept line becomes
 * `+ text` / `- text` with whitespace collapsed; lines whose text is two characters or fewer
 * (`}`, `);`, blank) go, since they match between any two edits. Lines are joined by spaces.
 */
export const normalizeDiff = (diff: string): string => {
  const lines = diff.split(/\r?\n/)
  const kept: Array<string> = []
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    if (line.startsWith("---") && (lines[i + 1] ?? "").startsWith("+++")) {
      i++
      continue
    }
    const sign = line[0]
    if (sign !== "+" && sign !== "-") continue
    const text = line.slice(1).replace(WHITESPACE, " ").trim()
    if (text.length <= 2) continue
    kept.push(`${sign} ${text}`)
  }
  return kept.join(" ")
}

/**
 * One spelling per file: forward slashes, no `./` or empty segments, `..` resolved where it
 * can be. Absolute and relative spellings of one file stay different (there is no root here).
 */
export const normalizePath = (path: string): string => {
  const absolute = path.startsWith("/") || path.startsWith("\\")
  const out: Array<string> = []
  for (const segment of path.replace(/\\/g, "/").split("/")) {
    if (segment === "" || segment === ".") continue
    if (segment === ".." && out.length > 0 && out[out.length - 1] !== "..") out.pop()
    else if (segment === ".." && absolute) continue
    else out.push(segment)
  }
  return (absolute ? "/" : "") + out.join("/")
}

/** Cut a string for a one-line incident detail. */
export const clip = (text: string, max = 120): string =>
  text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`
