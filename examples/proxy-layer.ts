/**
 * The proxy as a library: `ProxyServer.layer` serves loopguard in front of an upstream for the life
 * of a Layer. Any OpenAI-compatible client pointed at it is guarded without a change: here the
 * plain `fetch` an agent would make. A reply that repeats one sentence is cut and still ends as a
 * well-formed stream (`[DONE]`); a healthy reply passes byte for byte.
 *
 * Run: bun examples/proxy-layer.ts   (or node --experimental-strip-types on Node >= 22 with the
 * packages installed). Exits 0 when the loop was cut and the healthy reply was not.
 */
import { repeatLoop, startScriptedServer, textStream } from "@loopguard/ai-sdk/testing"
import { DEFAULT_CONFIG } from "@loopguard/effect/config"
import { ProxyServer } from "@loopguard/proxy"
import { Effect } from "effect"

const SENTENCE = "I will check the config file again to be sure it is right"
const upstream = await startScriptedServer([repeatLoop(SENTENCE, 500, { chunkDelayMs: 1 }), textStream("The port was missing; I added it.")])

/** One streamed Chat Completions request, as an agent sends it; the reply's text and whether it ended with [DONE]. */
const ask = async (baseURL: string) => {
  const res = await fetch(`${baseURL}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer the-agent-key" },
    body: JSON.stringify({ model: upstream.modelId, stream: true, messages: [{ role: "user", content: "Fix the server start-up." }] })
  })
  const body = await res.text()
  const text = body
    .split("\n\n")
    .filter((e) => e.startsWith("data: {"))
    .map((e) => JSON.parse(e.slice(6)).choices?.[0]?.delta?.content ?? "")
    .join("")
  return { text, done: body.trimEnd().endsWith("data: [DONE]"), action: res.headers.get("x-loopguard-action") }
}

const config = { ...DEFAULT_CONFIG, proxy: { ...DEFAULT_CONFIG.proxy, upstream: upstream.baseURL } }
const program = Effect.gen(function* () {
  const proxy = yield* ProxyServer
  const looping = yield* Effect.promise(() => ask(`${proxy.url}/v1`))
  const healthy = yield* Effect.promise(() => ask(`${proxy.url}/v1`))
  return { looping, healthy }
}).pipe(Effect.provide(ProxyServer.layer({ config, host: "127.0.0.1", port: 0 })))

try {
  const { looping, healthy } = await Effect.runPromise(program)
  const copies = looping.text.split(SENTENCE).length - 1
  console.log(`looping reply: ${copies} of 500 copies reached the client, then: ${looping.text.slice(looping.text.lastIndexOf("[loopguard"))}`)
  console.log(`healthy reply (${healthy.action}): ${healthy.text}`)
  const ok = copies < 500 && looping.done && looping.text.includes("[loopguard") && healthy.text === "The port was missing; I added it." && healthy.done
  if (ok) console.log("OK: the loop was cut and ended well-formed, the healthy reply passed.")
  else console.error("FAILED: the loop was not cut well-formed, or the healthy reply changed")
  process.exitCode = ok ? 0 : 1
} finally {
  await upstream.close()
}
