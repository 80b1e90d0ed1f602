/**
 * Colour for people, plain text for pipes. Colour is on only on a terminal, and never when
 * NO_COLOR is set (no-color.org); FORCE_COLOR asks for it anyway (recordings, CI logs that
 * render ANSI). Written out rather than taken from a library: six SGR codes and one rule.
 */
export interface Style {
  readonly colour: boolean
  readonly bold: (s: string) => string
  readonly dim: (s: string) => string
  readonly red: (s: string) => string
  readonly yellow: (s: string) => string
  readonly green: (s: string) => string
  readonly cyan: (s: string) => string
}

export type Env = Readonly<Record<string, string | undefined>>

/** NO_COLOR (any non-empty value) wins, then FORCE_COLOR (not "0"), then the terminal decides. */
export const colourWanted = (isTTY: boolean, env: Env): boolean => {
  if ((env["NO_COLOR"] ?? "") !== "") return false
  const force = env["FORCE_COLOR"]
  if (force !== undefined && force !== "" && force !== "0" && force !== "false") return true
  return isTTY && env["TERM"] !== "dumb"
}

const sgr = (open: number, close: number) => (s: string) => (s === "" ? s : `\u001b[${open}m${s}\u001b[${close}m`)
const plain = (s: string) => s

export const makeStyle = (colour: boolean): Style =>
  colour
    ? { colour, bold: sgr(1, 22), dim: sgr(2, 22), red: sgr(31, 39), yellow: sgr(33, 39), green: sgr(32, 39), cyan: sgr(36, 39) }
    : { colour, bold: plain, dim: plain, red: plain, yellow: plain, green: plain, cyan: plain }

/** Removes SGR colour codes (tests, and widths of styled text). */
export const stripAnsi = (s: string): string => s.replace(/\u001b\[[0-9;]*m/g, "")
