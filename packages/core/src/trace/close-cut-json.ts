/**
 * closeCutJson: the beginning of a valid JSON text (a line cut at a byte limit) → a complete JSON
 * text holding every value that was whole before the cut, and the cut string's beginning. One pass
 * and one copy: a general repairer builds its output a character at a time, which for a line of
 * several MB costs hundreds of MB.
 */

const QUOTE = 0x22
const BACKSLASH = 0x5c

interface Scan {
  /** Open containers, innermost last: "}" or "]" to close each. */
  readonly closers: Array<"}" | "]">
  /** Per open container: in an object, true while the next string is a key. */
  readonly expectKey: Array<boolean>
  /** Per open container: where its current member began (its "{", "[" or ","). */
  readonly memberStart: Array<number>
  inString: boolean
  /** Where the open string started (its quote), when `inString`. */
  stringStart: number
}

const scan = (text: string): Scan => {
  const s: Scan = { closers: [], expectKey: [], memberStart: [], inString: false, stringStart: -1 }
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (s.inString) {
      if (c === BACKSLASH) i++
      else if (c === QUOTE) s.inString = false
      continue
    }
    const top = s.closers.length - 1
    if (c === QUOTE) {
      s.inString = true
      s.stringStart = i
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      s.closers.push(c === 0x7b ? "}" : "]")
      s.expectKey.push(c === 0x7b)
      s.memberStart.push(i)
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      s.closers.pop()
      s.expectKey.pop()
      s.memberStart.pop()
    } else if (c === 0x3a /* : */) s.expectKey[top] = false
    else if (c === 0x2c /* , */) {
      s.memberStart[top] = i
      if (s.closers[top] === "}") s.expectKey[top] = true
    }
  }
  return s
}

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09
/** Characters of a number or a literal (true, false, null). */
const isBare = (c: number) => (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x2d || c === 0x2b || c === 0x2e

/** Backslashes right before `at`. */
const backslashesBefore = (text: string, at: number): number => {
  let n = 0
  while (at - 1 - n >= 0 && text.charCodeAt(at - 1 - n) === BACKSLASH) n++
  return n
}

/** Where the open string's text may end: before a half escape sequence or a lone high surrogate. */
const stringCut = (text: string): number => {
  let end = text.length
  let hex = 0
  while (hex < 4 && end - hex - 1 >= 0 && /[0-9a-fA-F]/.test(text[end - hex - 1]!)) hex++
  const u = end - hex - 1
  if (hex < 4 && u >= 1 && text[u] === "u" && backslashesBefore(text, u) % 2 === 1) end = u - 1
  else if (backslashesBefore(text, end) % 2 === 1) end -= 1
  const last = text.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end -= 1
  return end
}

/**
 * Closes a JSON text cut short. Values whole before the cut are kept; an object key cut short is
 * dropped with its member, a number or literal at the cut is dropped, a string cut short is kept.
 */
export const closeCutJson = (prefix: string): string => {
  const s = scan(prefix)
  const top = s.closers.length - 1
  if (s.inString && !(s.closers[top] === "}" && s.expectKey[top] === true)) {
    return `${prefix.slice(0, stringCut(prefix))}"${s.closers.reverse().join("")}`
  }
  let end = s.inString ? s.stringStart : prefix.length
  if (!s.inString) while (end > 0 && isBare(prefix.charCodeAt(end - 1))) end--
  while (end > 0 && isSpace(prefix.charCodeAt(end - 1))) end--
  // A key without its value (or a key cut short): the member goes, back to where it began.
  const last = prefix[end - 1]
  const danglingKey = s.closers[top] === "}" && (s.inString || last === ":" || (s.expectKey[top] === true && last === '"'))
  if (danglingKey) end = s.memberStart[top]! + (prefix[s.memberStart[top]!] === "," ? 0 : 1)
  while (end > 0 && isSpace(prefix.charCodeAt(end - 1))) end--
  if (prefix[end - 1] === ",") end--
  return prefix.slice(0, end) + s.closers.reverse().join("")
}
