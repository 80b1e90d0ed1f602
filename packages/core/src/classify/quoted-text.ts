/**
 * What a reply's text only shows rather than says: a code block amid prose (fenced, indented by
 * four spaces or a tab, or an HTML `<pre>` / `<code>` element), a block quote line (`> `), a code
 * span. A model that quotes a file, a web page or a snippet holding tool-call markup neither asked
 * for that call nor leaked it. A reply that is nothing but one code block says what is in it as
 * plainly as a bare one, so that block is not a quote. Pure; never throws.
 */

type Range = readonly [number, number]

const FENCE = /^[ \t]*(`{3,}|~{3,})/gm

/** [start, end) ranges of fenced code blocks (an unclosed fence runs to the end). */
export const fencedRanges = (text: string): Array<Range> => {
  const out: Array<Range> = []
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

/**
 * [start, end) ranges of Markdown's indented code blocks: lines indented by four spaces or a tab,
 * the first after a blank line (an indented line that goes on a paragraph is no code), outside fences.
 */
export const indentedRanges = (text: string, fences: ReadonlyArray<Range> = fencedRanges(text)): Array<Range> => {
  const out: Array<Range> = []
  let at = 0
  let previousBlank = true
  let open: number | null = null
  // Fences come in order, as lines do: one pointer walks them (no rescan per line).
  let fence = 0
  for (const line of text.split("\n")) {
    const end = at + line.length
    while (fence < fences.length && fences[fence]![1] <= at) fence++
    const fenced = fence < fences.length && at >= fences[fence]![0]
    const indented = !fenced && /^(?: {4,}|\t)\S/.test(line)
    if (indented && (open !== null || previousBlank)) open ??= at
    else if (open !== null && line.trim() !== "") {
      out.push([open, at])
      open = null
    }
    previousBlank = line.trim() === ""
    at = end + 1
  }
  if (open !== null) out.push([open, text.length])
  return out
}

const HTML_CODE = /<(pre|code)\b[^>]*>[\s\S]*?(?:<\/\1\s*>|$)/gi

/** Every code block the text holds (fenced, indented, HTML), each [start, end). */
const codeBlocks = (text: string): Array<Range> => {
  const fences = fencedRanges(text)
  const html = [...text.matchAll(HTML_CODE)].map((m): Range => [m.index, m.index + m[0].length])
  return [...fences, ...indentedRanges(text, fences), ...html]
}

/** The code blocks that stand amid prose: a reply that is one block and nothing else is not quoting it. */
const quotedBlocks = (text: string): Array<Range> => codeBlocks(text).filter(([s, e]) => text.slice(0, s).trim() !== "" || text.slice(e).trim() !== "")

/** A predicate: does the text at a position stand in a quote (a code block amid prose, a `> ` line, a code span)? */
export const quotedPlaces = (text: string): ((at: number) => boolean) => {
  const blocks = quotedBlocks(text)
  return (at) => {
    if (blocks.some(([s, e]) => at >= s && at < e)) return true
    const before = text.slice(text.lastIndexOf("\n", at - 1) + 1, at)
    return /^[ \t]*>/.test(before) || (before.split("`").length - 1) % 2 === 1
  }
}

/** The text with every quoted place blanked to spaces (lengths and line breaks kept), for a search that must see only what the reply says itself. */
export const withoutQuotes = (text: string): string => {
  const blank = (s: string) => s.replace(/[^\n]/g, " ")
  const blocks = quotedBlocks(text).sort((a, b) => a[0] - b[0])
  let unblocked = ""
  let at = 0
  for (const [s, e] of blocks) {
    if (e <= at) continue
    unblocked += text.slice(at, Math.max(at, s)) + blank(text.slice(Math.max(at, s), e))
    at = e
  }
  unblocked += text.slice(at)
  return unblocked
    .split("\n")
    .map((line) => (/^[ \t]*>/.test(line) ? blank(line) : line.replace(/`[^`]*`/g, blank)))
    .join("\n")
}
