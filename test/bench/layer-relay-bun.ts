/**
 * The proxy's Bun relay with its outer layers taken off, for the proxy bench's `--layers` rows:
 * which layer of `loopguard proxy` costs what per chunk. Not a product: bench use only.
 *
 *   --layer frame:     the proxy's fetch reply and client reply (fetch-reply.ts, client-reply.ts),
 *                      each upstream read written on as it came (no split, no parse, no guard);
 *   --layer relay:     the same frame with the proxy's relay in it (relay.ts: the events split and
 *                      read by the Chat Completions watch, routed, the repetition guard fed);
 *   --layer unguarded: the relay without the repetition guard.
 *
 * No request is read, judged or rewritten (that is the whole proxy's share), no log line written.
 *
 *   bun test/bench/layer-relay-bun.ts --layer frame|relay|unguarded --upstream http://127.0.0.1:PORT/v1 --listen 127.0.0.1:PORT
 */
import { DEFAULT_CONFIG, repeatGuardOptionsOf } from "@loopguard/effect/config"
import { FetchClientReply } from "../../packages/proxy/src/client-reply.js"
import { FetchReply } from "../../packages/proxy/src/fetch-reply.js"
import { chatProtocol } from "../../packages/proxy/src/protocols/chat.js"
import { HELD_KEEP_ALIVE_MS, relayStream } from "../../packages/proxy/src/relay.js"
import { replyGuardsOf } from "../../packages/proxy/src/proxy-settings.js"
import { arg, serveBunRelay } from "./lib/bun-relay.js"

const layer = arg("--layer")
if (!["frame", "relay", "unguarded"].includes(layer)) throw new Error(`--layer must be frame, relay or unguarded, not "${layer}"`)
const guards = layer === "relay" ? replyGuardsOf(repeatGuardOptionsOf(DEFAULT_CONFIG.repeat)) : null
const limits = { maxResponseBytes: DEFAULT_CONFIG.stream.maxResponseBytes, maxEventBytes: DEFAULT_CONFIG.stream.maxEventBytes, chunkTimeoutMs: 60_000, keepAliveMs: HELD_KEEP_ALIVE_MS }

/** The upstream's bytes, read by the proxy's reply shapes, through the layers asked for. */
const relayed = (reply: FetchReply, client: FetchClientReply): void => {
  if (layer === "frame") {
    reply.on("data", (chunk: Buffer) => void client.write(chunk))
    reply.on("end", () => void client.end())
    reply.resume()
    return
  }
  const relay = { protocol: chatProtocol, watch: chatProtocol.watch({}), upstream: reply, first: null, ended: () => reply.ended, abortUpstream: () => reply.cancel() }
  void relayStream({ ...relay, client, guards, limits, textCalls: null, refuseCalls: () => null })
}

serveBunRelay(`layer relay (${layer})`, (up, signal) => {
  const client = new FetchClientReply(signal)
  client.writeHead(up.status, { "content-type": up.headers.get("content-type") ?? "text/event-stream" })
  relayed(new FetchReply(up, up.body?.getReader() ?? null), client)
  return client.response
})
