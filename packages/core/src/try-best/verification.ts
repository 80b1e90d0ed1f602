/**
 * Is a shell command a verification run (tests, typecheck, lint, build)? The command line is
 * cut into simple commands at `&&`, `||`, `;`, `|` and newlines; wrappers (`timeout 60`, `npx`,
 * `FOO=1`, `bash -lc '...'`) are stripped from the start of each; a verification pattern must
 * then match at its start. Patterns and wrappers are data (see options.ts).
 */
import type { TryBestOptions } from "./options.js"

export interface VerificationMatcher {
  readonly patterns: ReadonlyArray<RegExp>
  readonly wrappers: ReadonlyArray<RegExp>
}

const compile = (source: string, label: string): RegExp => {
  try {
    return new RegExp(`^(?:${source})`, "i")
  } catch (cause) {
    // Configuration error, not model output: say which entry is wrong.
    throw new Error(`try-best: invalid ${label} pattern ${JSON.stringify(source)}: ${String(cause)}`)
  }
}

const cache = new WeakMap<TryBestOptions, VerificationMatcher>()

/** The compiled verification-command patterns for the options (cached per options object). */
export const verificationMatcher = (
  options: Pick<TryBestOptions, "verificationPatterns" | "commandWrappers">
): VerificationMatcher => {
  const cached = cache.get(options as TryBestOptions)
  if (cached !== undefined) return cached
  const matcher: VerificationMatcher = {
    patterns: options.verificationPatterns.map((p) => compile(p, "verification")),
    // A wrapper must be followed by whitespace (or be the whole command) to count.
    wrappers: options.commandWrappers.map((w) => compile(`(?:${w})(?:\\s+|$)`, "wrapper"))
  }
  cache.set(options as TryBestOptions, matcher)
  return matcher
}

const SEPARATORS = /&&|\|\||;|\n|\|(?!&)|(?<![<>&|])&(?![>&])/
const LEADING_NOISE = /^[\s"'`({]+/

/** The simple commands of a command line, each with its wrappers stripped. */
export const simpleCommands = (command: string, wrappers: ReadonlyArray<RegExp>): ReadonlyArray<string> =>
  command.split(SEPARATORS).map((segment) => {
    let rest = segment.replace(LEADING_NOISE, "")
    for (let guard = 0; guard < 16; guard++) {
      const wrapper = wrappers.find((w) => w.test(rest))
      if (wrapper === undefined) break
      const next = rest.replace(wrapper, "").replace(LEADING_NOISE, "")
      if (next === rest) break
      rest = next
    }
    return rest.trim()
  })

/** Whether a shell command (through its wrappers) runs a verification such as tests or a build. */
export const isVerificationCommand = (command: string, matcher: VerificationMatcher): boolean =>
  simpleCommands(command, matcher.wrappers).some((c) => c !== "" && matcher.patterns.some((p) => p.test(c)))
