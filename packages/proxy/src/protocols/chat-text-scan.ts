/**
 * Most events of a streamed Chat Completions reply are one text delta in one compact shape:
 * `{…,"choices":[{"index":0,"delta":{"content":"…"},"finish_reason":null}]…}`. Their text is found
 * here by a scan, without parsing the event (the parse was the largest part of reading an event).
 * Anything else (tool calls, reasoning, an error, a finish, several choices, spaces in the JSON, a
 * key twice) is left to the full parse, so no delta the watch reads is skipped. The scan checks the
 * keys it relies on, not that the whole event is valid JSON: an event broken elsewhere may still
 * count its text, where the full parse would drop the event.
 */

const DELTA = '"delta":{'
const CONTENT = '"content":"'
const FINISH = '"finish_reason":'

/** Whether `key` occurs in `data` exactly once, at `at`. */
const onlyAt = (data: string, key: string, at: number): boolean => at !== -1 && data.indexOf(key, at + key.length) === -1

/**
 * The JSON string literal whose opening quote is at `from`, decoded, when it ends and the delta's
 * next key or its closing brace follows it; undefined otherwise.
 */
const stringAt = (data: string, from: number): string | undefined => {
  let escaped = false
  for (let i = from + 1; i < data.length; i++) {
    const c = data.charCodeAt(i)
    if (c === 92) {
      escaped = true
      i++
    } else if (c === 34) {
      const next = data.charCodeAt(i + 1)
      if (next !== 44 && next !== 125) return undefined
      if (!escaped) return data.slice(from + 1, i)
      try {
        return JSON.parse(data.slice(from, i + 1)) as string
      } catch {
        return undefined
      }
    }
  }
  return undefined
}

/** The text of a plain text delta event's data, or undefined when the event must be parsed whole. */
export const plainTextDelta = (data: string): string | undefined => {
  if (data.charCodeAt(0) !== 123 || data.charCodeAt(data.length - 1) !== 125) return undefined
  if (data.includes('"tool_calls"') || data.includes('"reasoning') || data.includes('"error"') || data.includes('"choices":[]')) return undefined
  const finish = data.indexOf(FINISH)
  if (!onlyAt(data, FINISH, finish) || !data.startsWith("null", finish + FINISH.length)) return undefined
  const delta = data.indexOf(DELTA)
  const content = data.indexOf(CONTENT)
  if (!onlyAt(data, DELTA, delta) || !onlyAt(data, CONTENT, content) || content < delta || content > finish) return undefined
  // Only flat key-value pairs between the delta's opening brace and its content: the content is the delta's own.
  for (let i = delta + DELTA.length; i < content; i++) {
    const c = data.charCodeAt(i)
    if (c === 123 || c === 125 || c === 91 || c === 93) return undefined
  }
  return stringAt(data, content + CONTENT.length - 1)
}
