/**
 * Chat Completions events as servers really send them, made into what the AI SDK's providers
 * read, before they parse them: `"error": null` in every chunk (Microsoft Foundry Local; the OpenAI
 * SDK reads only an error that is set, the AI SDK failed every such reply with "Unknown error")
 * loses the key, and a call's `arguments` sent as an object (complete, so nothing is guessed) become
 * its JSON text (the AI SDK rejected the chunk, and the step was retried as a broken stream).
 * Everything else passes byte for byte; only the lines that hold one of the two are parsed.
 */

const LF = 10

/** Byte hints that a chunk may hold a line to fix; a line is parsed only when its text matches too. */
const ERROR_KEY = Buffer.from('"error"')
const ARGUMENTS_KEY = Buffer.from('"arguments"')
const NEEDS_FIX = /"error"\s*:\s*null|"arguments"\s*:\s*[{[]/

/** One `data:` line's JSON with the two shapes fixed, or null when it needs nothing (or is no JSON). */
export const fixedChunk = (json: string): string | null => {
  if (!NEEDS_FIX.test(json)) return null
  let chunk: any
  try {
    chunk = JSON.parse(json)
  } catch {
    return null
  }
  if (chunk === null || typeof chunk !== "object") return null
  let changed = false
  if ("error" in chunk && chunk.error === null) {
    delete chunk.error
    changed = true
  }
  for (const choice of Array.isArray(chunk.choices) ? chunk.choices : []) {
    for (const call of Array.isArray(choice?.delta?.tool_calls) ? choice.delta.tool_calls : []) {
      const fn = call?.function
      if (fn !== null && typeof fn === "object" && fn.arguments !== null && typeof fn.arguments === "object") {
        fn.arguments = JSON.stringify(fn.arguments)
        changed = true
      }
    }
  }
  return changed ? JSON.stringify(chunk) : null
}

/** Whole lines of event-stream text with their `data:` lines fixed; line ends kept as they came. */
const fixLines = (text: string): string =>
  text
    .split("\n")
    .map((line) => {
      if (!line.startsWith("data:")) return line
      const cr = line.endsWith("\r") ? "\r" : ""
      const value = line.slice(line.charCodeAt(5) === 32 ? 6 : 5, line.length - cr.length)
      const fixed = fixedChunk(value)
      return fixed === null ? line : `data: ${fixed}${cr}`
    })
    .join("\n")

const concat = (a: Uint8Array, b: Uint8Array): Uint8Array => {
  const out = new Uint8Array(a.length + b.length)
  out.set(a)
  out.set(b, a.length)
  return out
}

/**
 * The stream of a Chat Completions reply with `"error": null` dropped and object arguments made
 * text. Bytes after the last line break wait for the rest of their line (the provider reads whole
 * lines anyway); a chunk that names neither key passes as it came.
 */
export const normalizeChatEvents = (): TransformStream<Uint8Array, Uint8Array> => {
  let pending: Uint8Array | null = null
  const decoder = new TextDecoder()
  const encoder = new TextEncoder()
  return new TransformStream({
    transform(chunk, controller) {
      const bytes = pending === null ? chunk : concat(pending, chunk)
      const lastLf = bytes.lastIndexOf(LF)
      if (lastLf === -1) {
        pending = bytes
        return
      }
      const lines = bytes.subarray(0, lastLf + 1)
      pending = lastLf + 1 < bytes.length ? bytes.slice(lastLf + 1) : null
      const view = Buffer.from(lines.buffer, lines.byteOffset, lines.byteLength)
      if (!view.includes(ERROR_KEY) && !view.includes(ARGUMENTS_KEY)) return controller.enqueue(lines)
      controller.enqueue(encoder.encode(fixLines(decoder.decode(lines))))
    },
    flush(controller) {
      if (pending !== null) controller.enqueue(pending)
    }
  })
}

/** A `finish_reason` that is set, as servers write it (compact, or with a space after the colon). */
const NAMED_FINISH = [Buffer.from('"finish_reason":"'), Buffer.from('"finish_reason": "')]

/**
 * Whether a chunk of the body names a finish. Searched in the bytes, not decoded: most servers put
 * `"finish_reason": null` in every chunk, and this runs on each one until the finish comes.
 */
const namesFinish = (chunk: Uint8Array): boolean => {
  const view = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
  return NAMED_FINISH.some((key) => view.includes(key))
}

/**
 * A Chat Completions body that ends well when its connection breaks after the reply named its
 * finish: all that was lost is `[DONE]` (and perhaps the usage), and the provider reads the reply
 * whole. A broken body made the step fail and be asked for again, each time whole, without end
 * (a network failure's budget has none).
 */
export const endedAtFinish = (body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> => {
  const reader = body.getReader()
  let finished = false
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await reader.read()
        if (next.done) return controller.close()
        finished ||= namesFinish(next.value)
        controller.enqueue(next.value)
      } catch (e) {
        if (finished) controller.close()
        else controller.error(e)
      }
    },
    cancel: (reason) => reader.cancel(reason)
  })
}
