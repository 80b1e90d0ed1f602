/**
 * What `loopguard proxy` adds to a stream: the same Chat Completions streams from the scripted
 * server, read directly and through a `loopguard proxy` process (its own event loop, as agents use
 * it). Per chunk, the delay from the moment the server handed the event to its socket to the
 * moment the client read it (p50, p99, max), direct and proxied, at 1 stream and at N concurrent
 * streams; the time to the first byte; and the proxy process's resident memory per open stream
 * (N streams held open mid-reply). Printed as measured, next to the targets: ≤ 1 ms p50 and
 * ≤ 5 ms p99 added per chunk, ≤ 10 ms added to the first byte, no chunk delayed past 50 ms at 200
 * streams, ≤ 256 KB per open stream.
 *
 *   bun run test/bench/proxy-overhead.ts [--quick]     (LG_BENCH_PROXY_NODE=1: the proxy on node, from the bundle built
 *   first; LG_BENCH_PROXY_PROF=DIR: the proxy's CPU profile written to DIR)
 */
import { startScriptedServer, textStream, type RecordedRequest, type ScriptedServer } from "@loopguard/ai-sdk/testing"
import { spawn, type ChildProcess } from "node:child_process"
import { readFileSync } from "node:fs"
import { buildCliBundle, median, root, verdict } from "./lib/measure.js"
import { judgeRequest, TurnMemo } from "@loopguard/proxy"
import { DEFAULT_CONFIG } from "@loopguard/effect/config"
import { freePort } from "../free-port.js"

const WORDS = "alpha beta gamma delta river stone cloud paper engine window garden copper silver yellow orange violet marble thunder forest meadow harbor castle rocket planet".split(" ")

/** Text that never repeats itself (a seeded walk over a word list), so the guard reads it all and never trips. */
const healthyText = (chars: number, seed: number): string => {
  let x = seed
  let out = ""
  while (out.length < chars) {
    x = (x * 1103515245 + 12345) % 2147483648
    out += `${WORDS[x % WORDS.length]}${x % 7 === 0 ? "." : ""} `
  }
  return out.slice(0, chars)
}

const percentile = (xs: ReadonlyArray<number>, p: number): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!
}


const onNode = process.env["LG_BENCH_PROXY_NODE"] === "1"

/** `loopguard proxy`, or (`bare`) the bare relay beside this file, on the runtime the bench was asked for. */
const startProxyProcess = async (upstream: string, bare = false): Promise<{ child: ChildProcess; base: string }> => {
  const port = await freePort()
  // On node the proxy runs from the bundle: built from the current sources, so the figures are this code's.
  if (onNode && !bare) buildCliBundle()
  const cmd = onNode ? "node" : process.execPath
  const entry = bare ? "test/bench/bare-relay.mjs" : onNode ? "packages/cli/dist/loopguard.mjs" : "packages/cli/src/main.ts"
  // LG_BENCH_PROXY_PROF=DIR: the proxy writes a CPU profile there when it exits (bun and node take the same flags).
  const prof = process.env["LG_BENCH_PROXY_PROF"]
  const child = spawn(cmd, [...(prof !== undefined && !bare ? ["--cpu-prof", `--cpu-prof-dir=${prof}`] : []), entry, ...(bare ? [] : ["proxy"]), "--upstream", upstream, "--listen", `127.0.0.1:${port}`], { cwd: root, stdio: ["ignore", "ignore", "pipe"] })
  let err = ""
  child.stderr!.on("data", (d) => (err += d))
  const deadline = Date.now() + 60_000
  while (!err.includes("listening on")) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the proxy did not start: ${err}`)
    await Bun.sleep(20)
  }
  return { child, base: `http://127.0.0.1:${port}/v1` }
}

/** CPU time (user + system) the process used so far, in ms (Linux clock ticks of 10 ms). */
const cpuMsOf = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
  return (Number(fields[11]) + Number(fields[12])) * 10
}

const rssOf = (pid: number): number => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? NaN) * 1024

interface StreamTiming {
  readonly firstByteMs: number
  /** Per content event: client read time − server send time. */
  readonly delays: ReadonlyArray<number>
}

let nextId = 0

/** One streamed request; the delay of each content event from the server's send to this read. */
const readStream = async (server: ScriptedServer, base: string): Promise<StreamTiming> => {
  const id = `bench-${nextId++}`
  const t0 = performance.now()
  const res = await fetch(`${base}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-bench-id": id },
    body: JSON.stringify({ model: "scripted-model", stream: true, messages: [{ role: "user", content: `write ${id}` }] })
  })
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  const arrivals: Array<number> = []
  let firstByte = NaN
  let pending = ""
  for (let c = await reader.read(); !c.done; c = await reader.read()) {
    const now = performance.now()
    if (Number.isNaN(firstByte)) firstByte = now - t0
    pending += decoder.decode(c.value, { stream: true })
    let cut = pending.indexOf("\n\n")
    while (cut !== -1) {
      if (pending.slice(0, cut).includes('"content":')) arrivals.push(now)
      pending = pending.slice(cut + 2)
      cut = pending.indexOf("\n\n")
    }
  }
  const record = server.requests.find((r: RecordedRequest) => r.headers["x-bench-id"] === id)!
  return { firstByteMs: firstByte, delays: arrivals.map((t, i) => t - record.sentAt[i]!) }
}

const summary = (runs: ReadonlyArray<StreamTiming>) => {
  const delays = runs.flatMap((r) => r.delays)
  return { p50: percentile(delays, 50), p99: percentile(delays, 99), max: Math.max(...delays), firstByte: median(runs.map((r) => r.firstByteMs)), chunks: delays.length }
}

const fmt = (ms: number) => `${ms.toFixed(2)} ms`

const compare = (label: string, direct: ReturnType<typeof summary>, proxied: ReturnType<typeof summary>, streams: number) => {
  const addedP50 = proxied.p50 - direct.p50
  const addedP99 = proxied.p99 - direct.p99
  const addedFirst = proxied.firstByte - direct.firstByte
  console.log(`  ${label} (${proxied.chunks} chunks read through the proxy)`)
  console.log(`    per chunk, direct   p50 ${fmt(direct.p50)}  p99 ${fmt(direct.p99)}  max ${fmt(direct.max)}`)
  console.log(`    per chunk, proxied  p50 ${fmt(proxied.p50)}  p99 ${fmt(proxied.p99)}  max ${fmt(proxied.max)}`)
  console.log(`    added per chunk     p50 ${fmt(addedP50)} (target ≤ 1 ms: ${verdict(addedP50, 1)})  p99 ${fmt(addedP99)} (target ≤ 5 ms: ${verdict(addedP99, 5)})`)
  console.log(`    first byte          direct ${fmt(direct.firstByte)}  proxied ${fmt(proxied.firstByte)}  added ${fmt(addedFirst)} (target ≤ 10 ms: ${verdict(addedFirst, 10)})`)
  if (streams > 1) console.log(`    longest chunk delay through the proxy at ${streams} streams: ${fmt(proxied.max)} (target ≤ 50 ms: ${verdict(proxied.max, 50)})`)
  // The client and the scripted server share this process: when it is the one that falls behind, direct reads are late too.
  if (streams > 1 && direct.max > 50) console.log(`    (the bench itself: direct, with no proxy, the longest chunk delay was ${fmt(direct.max)}; past 50 ms the client and server in this process are a bottleneck too)`)
}

const holdOpen = async (server: ScriptedServer, base: string, streams: number): Promise<Array<AbortController>> => {
  const controllers = Array.from({ length: streams }, () => new AbortController())
  for (const c of controllers) {
    void fetch(`${base}/chat/completions`, {
      method: "POST",
      signal: c.signal,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "scripted-model", stream: true, messages: [{ role: "user", content: "hold" }] })
    })
      .then((r) => r.body?.getReader().read())
      .catch(() => {})
  }
  const deadline = Date.now() + 60_000
  while (server.requests.filter((r) => r.body?.messages?.[0]?.content === "hold" && r.chunksWritten >= 5).length < streams && Date.now() < deadline) await Bun.sleep(50)
  return controllers
}

/** CPU per verdict on a turn of `steps` tool steps, judged whole (a fresh process, any replica) and taken up from the memo. */
const verdictCpuMs = (steps: number): { readonly fresh: number; readonly kept: number } => {
  const user = { role: "user" as const, id: "m0", text: "fix the build" }
  const history = [
    user,
    ...Array.from({ length: steps }, (_, i) => ({
      role: "assistant" as const,
      id: `m${i + 1}`,
      parentId: "m0",
      step: i,
      finish: "tool-calls" as const,
      parts: [{ type: "tool" as const, callId: `c${i}`, name: i % 3 === 0 ? "bash" : "read", input: { command: `cat src/f${i}.ts`, path: `src/f${i}.ts` }, state: "completed" as const, output: `line ${i}\n`.repeat(50) }]
    }))
  ]
  judgeRequest(history, DEFAULT_CONFIG)
  const before = process.cpuUsage()
  for (let k = 0; k < 5; k++) judgeRequest(history, DEFAULT_CONFIG)
  const used = process.cpuUsage(before)
  // The same request with the turn of the request before kept (a proxy process's memo): only the new step is judged.
  let memoUs = 0
  for (let k = 0; k < 5; k++) {
    const memo = new TurnMemo()
    judgeRequest(history.slice(0, -1), DEFAULT_CONFIG, { memo, session: "bench" })
    const t = process.cpuUsage()
    judgeRequest(history, DEFAULT_CONFIG, { memo, session: "bench" })
    const d = process.cpuUsage(t)
    memoUs += d.user + d.system
  }
  return { fresh: (used.user + used.system) / 5000, kept: memoUs / 5000 }
}

/**
 * The same N streams through a bare node:http relay on the same runtime (no loopguard): what the
 * runtime's HTTP stack and this machine give before loopguard adds anything.
 */
const bareRelayFloor = async (server: ScriptedServer, streams: number): Promise<void> => {
  const bare = await startProxyProcess(server.baseURL, true)
  try {
    await readStream(server, bare.base)
    const direct = await Promise.all(Array.from({ length: streams }, () => readStream(server, server.baseURL)))
    const cpuBefore = cpuMsOf(bare.child.pid!)
    const relayed = summary(await Promise.all(Array.from({ length: streams }, () => readStream(server, bare.base))))
    const cpuUsed = cpuMsOf(bare.child.pid!) - cpuBefore
    const d = summary(direct)
    console.log(`  the floor: a bare node:http relay (test/bench/bare-relay.mjs, no loopguard) at ${streams} streams`)
    console.log(`    added per chunk p50 ${fmt(relayed.p50 - d.p50)}  p99 ${fmt(relayed.p99 - d.p99)}  longest ${fmt(relayed.max)} (direct ${fmt(d.max)})  first byte added ${fmt(relayed.firstByte - d.firstByte)}`)
    console.log(`    relay CPU ${cpuUsed} ms, ${((cpuUsed / relayed.chunks) * 1000).toFixed(0)} µs per chunk`)
  } finally {
    bare.child.kill("SIGTERM")
  }
}

export const main = async (quick = false): Promise<void> => {
  const streams = 200
  const runs = quick ? 3 : 6
  const chunks = quick ? 60 : 150
  const text = healthyText(chunks * 8, 7)
  const server = await startScriptedServer((body) =>
    body?.messages?.[0]?.content === "hold"
      ? textStream(text, { chunkSize: 8, stallAfterChunks: 5 })
      : textStream(text, { chunkSize: 8, chunkDelayMs: 10 })
  )
  const proxy = await startProxyProcess(server.baseURL)
  try {
    console.log(`proxy overhead: Chat Completions streams of ${chunks} chunks 10 ms apart, the proxy in its own process (${onNode ? "node, the built bundle" : "bun, the sources"})`)
    await readStream(server, proxy.base)
    const direct1: Array<StreamTiming> = []
    const proxied1: Array<StreamTiming> = []
    for (let i = 0; i < runs; i++) {
      direct1.push(await readStream(server, server.baseURL))
      proxied1.push(await readStream(server, proxy.base))
    }
    compare("1 stream", summary(direct1), summary(proxied1), 1)
    const directN = await Promise.all(Array.from({ length: streams }, () => readStream(server, server.baseURL)))
    const cpuBefore = cpuMsOf(proxy.child.pid!)
    const proxiedN = await Promise.all(Array.from({ length: streams }, () => readStream(server, proxy.base)))
    const cpuUsed = cpuMsOf(proxy.child.pid!) - cpuBefore
    compare(`${streams} concurrent streams`, summary(directN), summary(proxiedN), streams)
    const chunksN = summary(proxiedN).chunks
    // The proxy's own work, which the machine's load does not inflate the way it inflates delays.
    console.log(`    proxy CPU for the ${streams} streams: ${cpuUsed} ms, ${((cpuUsed / chunksN) * 1000).toFixed(0)} µs per chunk (requests, verdicts and relaying included)`)
    await bareRelayFloor(server, streams)
    await Bun.sleep(500)
    const idle = rssOf(proxy.child.pid!)
    const cpuBeforeHold = cpuMsOf(proxy.child.pid!)
    const held = await holdOpen(server, proxy.base, streams)
    await Bun.sleep(300)
    const open = rssOf(proxy.child.pid!)
    // Opening a stream (the request read, judged, sent upstream, its first 5 events relayed) apart from relaying the rest.
    const perRequestMs = (cpuMsOf(proxy.child.pid!) - cpuBeforeHold) / streams
    const perChunkUs = ((cpuUsed - perRequestMs * streams) / chunksN) * 1000
    console.log(`    of which: ${perRequestMs.toFixed(2)} ms per request opened (measured on ${streams} streams held after 5 chunks), about ${perChunkUs.toFixed(0)} µs per chunk relayed after that`)
    const perStream = (open - idle) / streams
    console.log(`  memory: proxy RSS ${(idle / 1048576).toFixed(1)} MB idle, ${(open / 1048576).toFixed(1)} MB with ${streams} streams open mid-reply`)
    console.log(`    per open stream ${(perStream / 1024).toFixed(0)} KB (target ≤ 256 KB: ${verdict(perStream, 256 * 1024)})`)
    for (const c of held) c.abort()
    const turns = quick ? [10, 50] : [10, 50, 200]
    const verdicts = turns.map((n) => ({ n, ...verdictCpuMs(n) }))
    console.log(`  verdict per request (CPU): the whole turn judged ${verdicts.map((v) => `${v.n} steps ${v.fresh.toFixed(1)} ms`).join(", ")}; the turn before kept ${verdicts.map((v) => `${v.n} steps ${v.kept.toFixed(2)} ms`).join(", ")}`)
  } finally {
    proxy.child.kill("SIGTERM")
    await server.close()
  }
}

if (import.meta.main) await main(process.argv.includes("--quick"))
