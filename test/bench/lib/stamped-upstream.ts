/**
 * The proxy bench's upstream, in a process of its own: the scripted server's Chat Completions
 * frames (`streamFrames`), each content event carrying the wall-clock time it was handed to the
 * socket (`"sent_at"`: `performance.timeOrigin + performance.now()`, in ms), so a client in another
 * process on this machine can tell how late it read each one. A request whose first message is
 * "hold" gets its first 5 content events and then nothing until the client leaves (streams held
 * open mid-reply, for memory); every other request gets the whole text, one event every `--delay` ms.
 *
 *   stamped-upstream.ts --chunks N --delay MS      (prints "upstream listening on 127.0.0.1:PORT" on stderr)
 */
import { streamFrames, textStream } from "@loopguard/ai-sdk/testing"
import { createServer, type ServerResponse } from "node:http"

const WORDS = "alpha beta gamma delta river stone cloud paper engine window garden copper silver yellow orange violet marble thunder forest meadow harbor castle rocket planet".split(" ")

/** Text that never repeats itself (a seeded walk over a word list), so the guard reads it all and never trips. */
export const healthyText = (chars: number, seed: number): string => {
  let x = seed
  let out = ""
  while (out.length < chars) {
    x = (x * 1103515245 + 12345) % 2147483648
    out += `${WORDS[x % WORDS.length]}${x % 7 === 0 ? "." : ""} `
  }
  return out.slice(0, chars)
}

/** Wall-clock milliseconds, sub-millisecond, comparable between processes on one machine. */
export const wallMs = (): number => performance.timeOrigin + performance.now()

/** The send time, as the last field of the event's JSON object. */
const stamped = (frame: string): string => `${frame.slice(0, frame.lastIndexOf("}"))},"sent_at":${wallMs().toFixed(3)}}\n\n`

const HELD_EVENTS = 5

const arg = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(name)
  return at === -1 ? fallback : Number(process.argv[at + 1])
}

const play = (res: ServerResponse, frames: ReturnType<typeof streamFrames>, hold: boolean, delayMs: number): void => {
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" })
  const last = hold ? HELD_EVENTS : frames.content.length
  let i = 0
  let timer: ReturnType<typeof setTimeout> | undefined
  const next = () => {
    if (res.destroyed) return
    if (i < last) res.write(stamped(frames.content[i++]!))
    if (i < last) timer = setTimeout(next, delayMs)
    else if (!hold) res.end(frames.trailer.join(""))
  }
  res.on("close", () => clearTimeout(timer))
  next()
}

if (import.meta.main) {
  const chunks = arg("--chunks", 150)
  const delayMs = arg("--delay", 10)
  const script = textStream(healthyText(chunks * 8, 7), { chunkSize: 8 })
  let served = 0
  const server = createServer((req, res) => {
    const parts: Array<Buffer> = []
    req.on("data", (b: Buffer) => parts.push(b))
    req.on("end", () => {
      let first: unknown
      try {
        first = JSON.parse(Buffer.concat(parts).toString("utf8"))?.messages?.[0]?.content
      } catch {
        first = undefined
      }
      const who = { id: `chatcmpl-bench-${served++}`, created: Math.floor(Date.now() / 1000), model: "scripted-model" }
      play(res, streamFrames(script, who), first === "hold", delayMs)
    })
  })
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    process.stderr.write(`upstream listening on 127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}\n`)
  })
}
