/**
 * What a reply's text only shows rather than says: a code block amid prose, a block quote line
 * (`> `), a code span. A model that quotes a file, a web page or a snippet holding tool-call markup
 * neither asked for that call nor leaked it. A reply that is nothing but one code block says what
 * is in it as plainly as a bare one, so that block is not a quote. Pure; never throws.
 */

const FENCE = /^[ \t]*(`{3,}|~{3,})/gm

/** [start, end) ranges of fenced code blocks (an unclosed fence runs to the end). */
export const fencedRanges = (text: string): Array<readonly [number, number]> => {
  const out: Array<readonly [number, number]> = []
  let open: { at: number; mark: string } | null = null
  for (const m of text.matchAll(FENCE)) {
    const mark = m[1]!
    if (open === null) open = { at: m.index, mark }
    else if (mark[0] === open.mark[0] && mark.length >= open.mark.length) {
      out.push([open.at, m.index + m[0].length])
      open = null
    }
  }
  if (open !== null) out.push([open.at, text.length])
  return out
}

/** A predicate: does the text at a position stand in a quote (a code block amid prose, a `> ` line, a code span)? */
export const quotedPlaces = (text: string): ((at: number) => boolean) => {
  const fences = fencedRanges(text).filter(([s, e]) => text.slice(0, s).trim() !== "" || text.slice(e).trim() !== "")
  return (at) => {
    if (fences.some(([s, e]) => at >= s && at < e)) return true
    const before = text.slice(text.lastIndexOf("\n", at - 1) + 1, at)
    return /^[ \t]*>/.test(before) || (before.split("`").length - 1) % 2 === 1
  }
}

/** The text with every quoted place blanked to spaces (lengths and line breaks kept), for a search that must see only what the reply says itself. */
export const withoutQuotes = (text: string): string => {
  const blank = (s: string) => s.replace(/[^\n]/g, " ")
  let fenced = ""
  let at = 0
  for (const [s, e] of fencedRanges(text).filter(([s, e]) => text.slice(0, s).trim() !== "" || text.slice(e).trim() !== "")) {
    fenced += text.slice(at, s) + blank(text.slice(s, e))
    at = e
  }
  fenced += text.slice(at)
  return fenced
    .split("\n")
    .map((line) => (/^[ \t]*>/.test(line) ? blank(line) : line.replace(/`[^`]*`/g, blank)))
    .join("\n")
}
