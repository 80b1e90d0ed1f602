import { Effect, Stream } from "effect"

export const readStdin: Effect.Effect<string> = Effect.promise(async () => {
  if (process.stdin.isTTY) return ""
  const chunks: Array<Buffer> = []
  for await (const chunk of process.stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk)
  return Buffer.concat(chunks).toString("utf8")
})

/** Stdin as UTF-8 text, handed to `f` chunk by chunk (a character split across chunks is kept whole; a BOM is kept, as the whole-input read kept it). */
export const forEachStdinChunk = (f: (text: string) => void): Effect.Effect<void> =>
  Effect.promise(async () => {
    if (process.stdin.isTTY) return
    const decoder = new TextDecoder("utf-8", { ignoreBOM: true })
    for await (const chunk of process.stdin) {
      const text = typeof chunk === "string" ? chunk : decoder.decode(chunk as Uint8Array, { stream: true })
      if (text !== "") f(text)
    }
    const rest = decoder.decode()
    if (rest !== "") f(rest)
  })

/** Stdin as raw bytes, chunk by chunk (nothing when it is a terminal). */
export const stdinBytes: Stream.Stream<Uint8Array> = Stream.suspend(() =>
  process.stdin.isTTY
    ? Stream.empty
    : Stream.map(
        Stream.fromAsyncIterable(process.stdin as AsyncIterable<Buffer | string>, (e) => e).pipe(Stream.orDie),
        (chunk): Uint8Array => (typeof chunk === "string" ? Buffer.from(chunk) : chunk)
      )
)
