/**
 * A JSON object that names one key twice (`{"command": "ls", "command": "rm -rf /"}`) parses
 * without complaint, and the last value wins. Which one the model meant is a guess, and a reader
 * that shows the first (a log, a review) disagrees with the runner that takes the last: such
 * arguments are refused, not guessed at. Pure; a linear scan; never throws.
 */

/** Decoded string literal at `at` (a `"`), and the index just past it; null when it never closes. */
const stringAt = (text: string, at: number): { readonly value: string; readonly next: number } | null => {
  let i = at + 1
  while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1
  if (i >= text.length) return null
  try {
    return { value: JSON.parse(text.slice(at, i + 1)) as string, next: i + 1 }
  } catch {
    return { value: text.slice(at + 1, i), next: i + 1 }
  }
}

/** The first key some object in a JSON text names twice (keys compared decoded: `"a"` is `"\u0061"`), or null. */
export const duplicateKeyOf = (json: string): string | null => {
  const objects: Array<Set<string> | null> = []
  let i = 0
  while (i < json.length) {
    const c = json[i]!
    if (c === "{") objects.push(new Set())
    else if (c === "[") objects.push(null)
    else if (c === "}" || c === "]") objects.pop()
    else if (c === '"') {
      const literal = stringAt(json, i)
      if (literal === null) return null
      i = literal.next
      const keys = objects.at(-1)
      let after = i
      while (after < json.length && /\s/.test(json[after]!)) after++
      if (keys !== undefined && keys !== null && json[after] === ":") {
        if (keys.has(literal.value)) return literal.value
        keys.add(literal.value)
      }
      continue
    }
    i++
  }
  return null
}

/** The refusal of arguments that name a key twice. */
export const duplicateKeyError = (key: string): string =>
  `tool arguments name ${JSON.stringify(key.slice(0, 80))} twice, so which value was meant is a guess; the call was not run`
