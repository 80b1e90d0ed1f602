import { Effect } from "effect"

export const readStdin: Effect.Effect<string> = Effect.promise(async () => {
  if (process.stdin.isTTY) return ""
  const chunks: Array<Buffer> = []
  for await (const chunk of process.stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk)
  return Buffer.concat(chunks).toString("utf8")
})
