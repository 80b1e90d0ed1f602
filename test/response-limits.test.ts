/**
 * A hostile or broken server, over real HTTP through the real AI SDK provider: a 200 that is not
 * an event stream, a gzip bomb, one endless server-sent event, an endless stream. Each ends the
 * run with exit reason `protocol`, without retrying, and memory stays bounded.
 */
import { textStream, type ScriptedResponse } from "@loopguard/ai-sdk/testing"
import { RunLoop } from "@loopguard/effect"
import { describe, expect } from "bun:test"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { resolve } from "node:path"
import { gzipSync } from "node:zlib"
import { it } from "./effect-test.js"
import { scriptedServer } from "./scoped-resources.js"
import { harness } from "./harness.js"

const run = Effect.gen(function* () {
  return yield* (yield* RunLoop).run({ sessionId: "s", prompt: "hello" })
})

const limits = { maxResponseBytes: 1024 * 1024, maxEventBytes: 64 * 1024 }

/** One run against `response`; its server is closed when it returns. */
const runAgainst = (response: ScriptedResponse) =>
  Effect.scoped(
    Effect.gen(function* () {
      const h = yield* harness([response, textStream("never reached")], { endpoint: { limits } })
      const r = yield* h.provide(run)
      return { report: r.report, requests: h.server.requests.length }
    })
  )

describe("response limits and protocol errors", () => {
  it.live("a 200 with HTML is a protocol error naming the content type, not output_length", () => Effect.gen(function* () {
    const { report, requests } = yield* runAgainst({ type: "error", status: 200, headers: { "content-type": "text/html" }, body: "<html>login</html>" })
    expect(report.reason).toBe("protocol")
    expect(JSON.stringify(report)).toContain('content type \\"text/html\\", not an event stream')
    expect(requests).toBe(1)
  }), 30_000)

  it.live("a 200 with plain JSON is a protocol error too", () => Effect.gen(function* () {
    const { report } = yield* runAgainst({ type: "error", status: 200, body: { choices: [] } })
    expect(report.reason).toBe("protocol")
    expect(JSON.stringify(report)).toContain("application/json")
  }), 30_000)

  it.live("a 200 whose JSON is an error (a gateway's) is that error: named in its own words, retried as its code says, then answered", () => Effect.gen(function* () {
    const h = yield* harness([{ type: "error", status: 200, body: { error: { message: "Provider returned error", code: 502, type: "upstream_error" } } }, textStream("Recovered.")], { endpoint: { limits } })
    const r = yield* h.provide(run)
    expect(r.report.reason).toBe("final")
    expect(h.server.requests.length).toBe(2)
    const told = h.events.filter((e) => e.type === "session.retry.attempt")
    expect(told).toHaveLength(1)
    expect(JSON.stringify(told[0])).toContain("Provider returned error")
  }), 30_000)

  it.live("a gzip bomb is cut at the decompressed-size cap: protocol, and memory stays bounded", () => Effect.gen(function* () {
    // 64 MB of one SSE comment line compresses to ~64 KB.
    const bomb = gzipSync(Buffer.concat([Buffer.from(": "), Buffer.alloc(64 * 1024 * 1024, 0x61)]), { level: 9 })
    const before = process.memoryUsage().rss
    const { report } = yield* runAgainst({
      type: "error",
      status: 200,
      headers: { "content-type": "text/event-stream", "content-encoding": "gzip" },
      body: bomb
    })
    const grown = process.memoryUsage().rss - before
    expect(report.reason).toBe("protocol")
    expect(JSON.stringify(report)).toMatch(/passed stream\.max(Response|Event)Bytes/)
    expect(grown).toBeLessThan(150 * 1024 * 1024)
  }), 30_000)

  it.live("a gzip bomb in an error body is cut short: the error is reported and memory stays bounded", () => Effect.gen(function* () {
    const bomb = gzipSync(Buffer.concat([Buffer.from('{"error":{"message":"'), Buffer.alloc(256 * 1024 * 1024, 0x62)]), { level: 9 })
    const before = process.memoryUsage().rss
    const { report, requests } = yield* runAgainst({
      type: "error",
      status: 400,
      headers: { "content-type": "application/json", "content-encoding": "gzip" },
      body: bomb
    })
    const grown = process.memoryUsage().rss - before
    expect(report.reason).toBe("model_error")
    expect(requests).toBe(1)
    expect(grown).toBeLessThan(150 * 1024 * 1024)
  }), 30_000)

  it.live("one server-sent event past the event cap is a protocol error", () => Effect.gen(function* () {
    const { report } = yield* runAgainst({ type: "stream", chunks: [{ text: "x".repeat(200 * 1024) }], finish: "stop" })
    expect(report.reason).toBe("protocol")
    expect(JSON.stringify(report)).toContain("stream.maxEventBytes (65536 bytes)")
  }), 30_000)

  it.live("many small events past the response cap are a protocol error", () => Effect.gen(function* () {
    // Varied text: a run of one character would be cut first by the in-stream repetition guard.
    let seed = 7
    const varied = () => Array.from({ length: 32 * 1024 }, (_, k) => (k % 8 === 7 ? " " : ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % 36).toString(36))).join("")
    const chunks = Array.from({ length: 40 }, () => ({ text: varied() }))
    const { report } = yield* runAgainst({ type: "stream", chunks, finish: "stop" })
    expect(report.reason).toBe("protocol")
    expect(JSON.stringify(report)).toContain("stream.maxResponseBytes (1048576 bytes after decompression)")
  }), 30_000)

  it.live("an ordinary reply under the limits is untouched", () => Effect.gen(function* () {
    const { report } = yield* runAgainst(textStream("Hello there."))
    expect(report.reason).toBe("final")
  }), 30_000)
})

describe("response limits from the config, through the CLI", () => {
  it.live("LOOPGUARD_STREAM_MAX_RESPONSE_BYTES lowered: a bomb of tiny events ends the run as protocol, exit 1", () => Effect.gen(function* () {
    // 16 MB of keep-alive comments: every event is tiny, only the total is too big.
    const bomb = gzipSync(Buffer.from(": keep-alive\n\n".repeat(1_200_000)), { level: 9 })
    const server = yield* scriptedServer([
      { type: "error", status: 200, headers: { "content-type": "text/event-stream", "content-encoding": "gzip" }, body: bomb }
    ])
    const env: Record<string, string> = {}
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("LOOPGUARD_")) env[k] = v
    env["LOOPGUARD_STREAM_MAX_RESPONSE_BYTES"] = "100000"
    const args = ["run", "packages/cli/src/main.ts", "run", "--base-url", server.baseURL, "--model", "m", "--prompt", "go", "--json"]
    const child = spawn(process.execPath, args, { cwd: resolve(import.meta.dir, ".."), env, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    child.stdout.on("data", (d) => (stdout += d))
    const code = yield* Effect.promise(() => new Promise<number | null>((done) => child.on("close", (c) => done(c))))
    const report = stdout.split("\n").filter((l) => l.startsWith('{"type":"report"')).map((l) => JSON.parse(l).report)[0]
    expect(code).toBe(1)
    expect(report.reason).toBe("protocol")
    expect(report.blockedAt).toContain("stream.maxResponseBytes (100000 bytes after decompression)")
    expect(server.requests).toHaveLength(1)
  }), 60_000)
})
