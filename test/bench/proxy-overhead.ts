/**
 * What `loopguard proxy` adds to a stream. Three processes: a scripted upstream
 * (lib/stamped-upstream.ts) that writes its send time into every content event, a load client
 * (lib/stream-client.ts) that reads the streams, and the proxy (`loopguard proxy`, its own event
 * loop, as agents use it). Per chunk, the client's read time minus the send time carried in the
 * chunk (p50, p99, max), read directly and through the proxy by the same client from the same
 * upstream, at 1 stream and at N concurrent streams; "added" is proxied minus direct. Also the
 * time to the first byte, the proxy's CPU, bare relays with no loopguard (the floor: node:http,
 * Effect's own platform server and client (@effect/platform-node's NodeHttpServer, FetchHttpClient),
 * and on Bun also Bun.serve + fetch, the stack the proxy serves with there), the proxy's resident
 * memory per open stream (N streams held open mid-reply), and CPU per verdict. The N-stream runs are
 * also made with the SQLite session store (`--session-dir`), every request's session written as it ends. The N-stream figures
 * are of a proxy (and relays) that already served one burst of N streams: the first burst after a
 * process starts runs code not yet compiled for that load, and is printed on a line of its own.
 * Printed as measured, next to the targets: ≤ 1 ms p50 and ≤ 5 ms p99 added per chunk, ≤ 10 ms
 * added to the first byte, no chunk delayed past 50 ms at 200 streams, ≤ 256 KB per open stream.
 *
 * `--layers` (Bun): the same floor rows for the proxy's relay with its outer layers taken off
 * (test/bench/layer-relay-bun.ts): its reply shapes alone, its relay without and with the guard.
 *
 *   bun run test/bench/proxy-overhead.ts [--quick] [--layers]     (LG_BENCH_PROXY_NODE=1: the proxy on node, from the bundle built
 *   first; LG_BENCH_PROXY_PROF=DIR: the proxy's CPU profile written to DIR)
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { buildCliBundle, bundleForNode, median, root, verdict } from "./lib/measure.js"
import type { StreamTimings } from "./lib/stream-client.js"
import { chatProtocol, judgeRequest, judgeRequestSliced, TurnMemo } from "@loopguard/proxy"
import { DEFAULT_CONFIG, repeatGuardOptionsOf } from "@loopguard/effect/config"
import { streamFrames, textStream } from "@loopguard/ai-sdk/testing"
import { RepeatGuard, RepeatGuardPool } from "@loopguard/core/repeat"
import { SseSplitter } from "../../packages/proxy/src/sse.js"
import { healthyText } from "./lib/stamped-upstream.js"
import { freePort } from "../free-port.js"
import { reusePortProblem } from "../../packages/cli/src/commands/proxy-workers.js"

const percentile = (xs: ReadonlyArray<number>, p: number): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!
}

const onNode = process.env["LG_BENCH_PROXY_NODE"] === "1"

/** A child started and waited for until it prints `ready` on stderr; killed (by its pid) if it does not. */
const startChild = async (args: ReadonlyArray<string>, cmd: string, ready: RegExp, what: string): Promise<{ child: ChildProcess; match: RegExpExecArray }> => {
  const child = spawn(cmd, args, { cwd: root, stdio: ["ignore", "ignore", "pipe"] })
  let err = ""
  child.stderr!.on("data", (d) => (err += d))
  const deadline = Date.now() + 60_000
  for (;;) {
    const match = ready.exec(err)
    if (match !== null) return { child, match }
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill("SIGTERM")
      throw new Error(`${what} did not start: ${err}`)
    }
    await Bun.sleep(20)
  }
}

/** A child process of the bench and the base URL it serves. */
interface Started {
  readonly child: ChildProcess
  readonly base: string
}

/** What relays the streams: `loopguard proxy`, or a bare relay with no loopguard (node:http, Bun's own server and fetch, or Effect's platform server and client). */
type Relay = "proxy" | "bare-node" | "bare-bun" | "bare-effect" | Layer

/** The proxy's Bun relay with its outer layers taken off (`--layers`, test/bench/layer-relay-bun.ts). */
type Layer = "layer-frame" | "layer-unguarded" | "layer-relay"

const LAYERS: ReadonlyArray<Layer> = ["layer-frame", "layer-unguarded", "layer-relay"]

const isLayer = (relay: Relay): relay is Layer => (LAYERS as ReadonlyArray<Relay>).includes(relay)

const BARE_ENTRY = {
  "bare-node": "test/bench/bare-relay.mjs",
  "bare-bun": "test/bench/bare-relay-bun.ts",
  "bare-effect": "test/bench/bare-relay-effect.ts",
  "layer-frame": "test/bench/layer-relay-bun.ts",
  "layer-unguarded": "test/bench/layer-relay-bun.ts",
  "layer-relay": "test/bench/layer-relay-bun.ts"
} as const

const BARE_LABEL = {
  "bare-node": "a bare node:http relay (test/bench/bare-relay.mjs",
  "bare-bun": "a bare Bun.serve + fetch relay (test/bench/bare-relay-bun.ts",
  "bare-effect": "a bare relay on Effect's platform: NodeHttpServer + FetchHttpClient + HttpServerResponse.stream (test/bench/bare-relay-effect.ts",
  "layer-frame": "the proxy's fetch and client replies alone, each read written on (test/bench/layer-relay-bun.ts --layer frame",
  "layer-unguarded": "the proxy's relay in that frame without the repetition guard: events split, read and routed (test/bench/layer-relay-bun.ts --layer unguarded",
  "layer-relay": "the proxy's relay in that frame with the repetition guard (test/bench/layer-relay-bun.ts --layer relay"
} as const

/** Node cannot run the Effect relay's TypeScript: on node it runs from a bundle built from it (a temporary directory, removed at exit). */
const effectRelayForNode = async (): Promise<string> => {
  const dir = mkdtempSync(join(tmpdir(), "loopguard-bench-effect-relay-"))
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }))
  return bundleForNode(join(root, BARE_ENTRY["bare-effect"]), dir, "bare-relay-effect.mjs")
}

/** The relay asked for, on the runtime the bench was asked for (the Bun relay on Bun only). */
const startProxyProcess = async (upstream: string, relay: Relay = "proxy", workers = 1, extra: ReadonlyArray<string> = []): Promise<Started> => {
  const bare = relay !== "proxy"
  const port = await freePort()
  // On node the proxy runs from the bundle: built from the current sources, so the figures are this code's.
  if (onNode && !bare) buildCliBundle()
  const cmd = onNode && relay !== "bare-bun" ? "node" : process.execPath
  const entry = relay === "proxy" ? (onNode ? "packages/cli/dist/loopguard.mjs" : "packages/cli/src/main.ts") : onNode && relay === "bare-effect" ? await effectRelayForNode() : BARE_ENTRY[relay]
  // LG_BENCH_PROXY_PROF=DIR: the proxy writes a CPU profile there when it exits (bun and node take the same flags).
  const prof = process.env["LG_BENCH_PROXY_PROF"]
  const layer = isLayer(relay) ? ["--layer", relay.slice("layer-".length)] : []
  const args = [...(prof !== undefined && !bare ? ["--cpu-prof", `--cpu-prof-dir=${prof}`] : []), entry, ...(bare ? layer : ["proxy"]), "--upstream", upstream, "--listen", `127.0.0.1:${port}`, ...(workers > 1 ? ["--workers", String(workers)] : []), ...extra]
  const { child } = await startChild(args, cmd, /listening on/, bare ? `the ${relay} relay` : "the proxy")
  return { child, base: `http://127.0.0.1:${port}/v1` }
}

/** The stamped upstream (Bun, a process of its own); its base URL. */
const startUpstream = async (chunks: number): Promise<Started> => {
  const { child, match } = await startChild(["test/bench/lib/stamped-upstream.ts", "--chunks", String(chunks), "--delay", "10"], process.execPath, /listening on (127\.0\.0\.1:\d+)/, "the bench upstream")
  return { child, base: `http://${match[1]}/v1` }
}

/** A fleet's load: N clients back to back for `durationMs`, their first starts spread over `spreadMs` (see lib/stream-client.ts). */
interface Steady {
  readonly durationMs: number
  readonly spreadMs: number
}

/** The load client (a process of its own): `streams` concurrent streams to each base, `rounds` times, the bases alternating. */
const runClient = (bases: ReadonlyArray<string>, streams: number, rounds = 1, steady?: Steady): Promise<Record<string, StreamTimings>> =>
  new Promise((resolve, reject) => {
    const load = steady === undefined ? ["--rounds", String(rounds)] : ["--steady", String(steady.durationMs), "--spread", String(steady.spreadMs)]
    const child = spawn(process.execPath, ["test/bench/lib/stream-client.ts", "--bases", bases.join(","), "--streams", String(streams), ...load], { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    let err = ""
    child.stdout!.on("data", (d) => (out += d))
    child.stderr!.on("data", (d) => (err += d))
    child.on("close", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`the bench client failed (${code}): ${err}`))))
  })

/** The client holding `streams` streams open mid-reply; resolves once each has read its first events. */
const holdOpen = async (base: string, streams: number): Promise<ChildProcess> => {
  const child = spawn(process.execPath, ["test/bench/lib/stream-client.ts", "--bases", base, "--streams", String(streams), "--hold"], { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
  let out = ""
  child.stdout!.on("data", (d) => (out += d))
  const deadline = Date.now() + 60_000
  while (!out.includes("held")) {
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill("SIGTERM")
      throw new Error("the bench client could not hold the streams open")
    }
    await Bun.sleep(50)
  }
  return child
}

/** The process and its children (a proxy's workers), by pid. */
const treeOf = (pid: number): Array<number> => {
  let children: Array<number> = []
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter((c) => c !== "").map(Number)
  } catch {
    // No children file on this kernel: the process alone.
  }
  return [pid, ...children.flatMap(treeOf)]
}

/** CPU time (user + system) the process and its children used so far, in ms (Linux clock ticks of 10 ms). */
const cpuMsOf = (pid: number): number =>
  treeOf(pid).reduce((sum, p) => {
    const fields = readFileSync(`/proc/${p}/stat`, "utf8").split(") ")[1]!.split(" ")
    return sum + (Number(fields[11]) + Number(fields[12])) * 10
  }, 0)

/** Resident memory of one process. */
const ownRssOf = (pid: number): number => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? NaN) * 1024

/** Resident memory of the process and its children. */
const rssOf = (pid: number): number =>
  treeOf(pid).reduce((sum, p) => sum + ownRssOf(p), 0)

/**
 * How busy the machine was while the client read one base's streams: each process's CPU over the
 * client's wall time, as a share of all the cores (the client, the upstream and the relay share them).
 */
const machineLoad = (parts: ReadonlyArray<readonly [string, number]>, timings: StreamTimings): string => {
  const wall = timings.wallMs ?? NaN
  const all = [...parts, ["load client", timings.cpuMs ?? NaN] as const]
  const total = all.reduce((sum, [, ms]) => sum + ms, 0)
  const cores = navigator.hardwareConcurrency
  return `${all.map(([who, ms]) => `${who} ${ms.toFixed(0)}`).join(" + ")} ms of CPU in ${wall.toFixed(0)} ms: ${((100 * total) / (wall * cores)).toFixed(0)}% of the ${cores} cores`
}

/**
 * The relay's event loop threads (its main thread; a workers supervisor's workers' main threads):
 * ms they ran on a core and ms they were ready to run but waited for one (the kernel's schedstat;
 * zeros where the kernel keeps none).
 */
const loopThreadOf = (pid: number): { readonly ranMs: number; readonly waitedMs: number } => {
  const tree = treeOf(pid)
  let ranMs = 0
  let waitedMs = 0
  for (const p of tree.length > 1 ? tree.slice(1) : tree) {
    try {
      const [ran, waited] = readFileSync(`/proc/${p}/task/${p}/schedstat`, "utf8").split(" ")
      ranMs += Number(ran) / 1e6
      waitedMs += Number(waited) / 1e6
    } catch {
      // No schedstat on this kernel (or the process is gone): counted as nothing.
    }
  }
  return { ranMs, waitedMs }
}

/** The client's run against `base` (by `runClient`), with the CPU the upstream and the relay (when given) used meanwhile. */
const measured = async (run: () => Promise<Record<string, StreamTimings>>, base: string, upstreamPid: number, relayPid?: number) => {
  const upstreamBefore = cpuMsOf(upstreamPid)
  const relayBefore = relayPid === undefined ? 0 : cpuMsOf(relayPid)
  const loopBefore = relayPid === undefined ? null : loopThreadOf(relayPid)
  const timings = (await run())[base]!
  const upstreamMs = cpuMsOf(upstreamPid) - upstreamBefore
  const relayMs = relayPid === undefined ? null : cpuMsOf(relayPid) - relayBefore
  const loopAfter = relayPid === undefined ? null : loopThreadOf(relayPid)
  const relayLoop = loopBefore === null || loopAfter === null ? null : { ranMs: loopAfter.ranMs - loopBefore.ranMs, waitedMs: loopAfter.waitedMs - loopBefore.waitedMs }
  return { timings, upstreamMs, relayMs, relayLoop }
}

/** One line: the machine's load with and without the relay in between. */
const loadLine = (relayName: string, direct: Awaited<ReturnType<typeof measured>>, relayed: Awaited<ReturnType<typeof measured>>): string => {
  const loop = relayed.relayLoop
  const loopPart = loop === null || loop.ranMs === 0 ? "" : `; the ${relayName}'s event loop thread(s) ran ${loop.ranMs.toFixed(0)} ms (${((100 * loop.ranMs) / (relayed.timings.wallMs ?? NaN)).toFixed(0)}% of the wall time) and waited ${loop.waitedMs.toFixed(0)} ms for a core`
  return `    the machine meanwhile: direct ${machineLoad([["upstream", direct.upstreamMs]], direct.timings)}; through the ${relayName} ${machineLoad([[relayName, relayed.relayMs ?? NaN], ["upstream", relayed.upstreamMs]], relayed.timings)}${loopPart}`
}

const summary = ({ delays, firstByte }: StreamTimings) => ({
  p50: percentile(delays, 50),
  p99: percentile(delays, 99),
  max: delays.reduce((m, d) => Math.max(m, d), -Infinity),
  firstByte: median(firstByte),
  chunks: delays.length
})

type Summary = ReturnType<typeof summary>

const fmt = (ms: number) => `${ms.toFixed(2)} ms`

const compare = (label: string, direct: Summary, proxied: Summary, streams: number) => {
  const addedP50 = proxied.p50 - direct.p50
  const addedP99 = proxied.p99 - direct.p99
  const addedFirst = proxied.firstByte - direct.firstByte
  console.log(`  ${label} (${proxied.chunks} chunks read through the proxy)`)
  console.log(`    per chunk, direct   p50 ${fmt(direct.p50)}  p99 ${fmt(direct.p99)}  max ${fmt(direct.max)}`)
  console.log(`    per chunk, proxied  p50 ${fmt(proxied.p50)}  p99 ${fmt(proxied.p99)}  max ${fmt(proxied.max)}`)
  console.log(`    added per chunk     p50 ${fmt(addedP50)} (target ≤ 1 ms: ${verdict(addedP50, 1)})  p99 ${fmt(addedP99)} (target ≤ 5 ms: ${verdict(addedP99, 5)})`)
  console.log(`    first byte          direct ${fmt(direct.firstByte)}  proxied ${fmt(proxied.firstByte)}  added ${fmt(addedFirst)} (target ≤ 10 ms: ${verdict(addedFirst, 10)})`)
  if (streams > 1) console.log(`    longest chunk delay through the proxy at ${streams} streams: ${fmt(proxied.max)} (target ≤ 50 ms: ${verdict(proxied.max, 50)})`)
  // The client and the upstream are processes of their own, but on 2 cores they share the cores with the proxy.
  if (streams > 1 && direct.max > 50) console.log(`    (direct, with no proxy, the longest chunk delay was already ${fmt(direct.max)}: the client and the upstream fall behind on their own)`)
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

/** The longest the event loop waited (a 1 ms interval's largest gap) while a turn of `steps` failing calls was judged at once, and in slices. */
const judgeHoldMs = async (steps: number): Promise<{ readonly atOnce: number; readonly sliced: number }> => {
  const history = [
    { role: "user" as const, id: "m0", text: "fix the test" },
    ...Array.from({ length: steps }, (_, i) => ({
      role: "assistant" as const, id: `m${i + 1}`, parentId: "m0", step: i, finish: "tool-calls" as const,
      parts: [{ type: "tool" as const, callId: `c${i}`, name: "bash", input: { command: "pytest -x" }, state: "error" as const, error: "FAILED test_x", exitCode: 1 }]
    }))
  ]
  const longestGap = async (judge: () => unknown): Promise<number> => {
    let last = performance.now()
    let longest = 0
    const timer = setInterval(() => {
      const now = performance.now()
      longest = Math.max(longest, now - last)
      last = now
    }, 1)
    await Bun.sleep(5)
    await judge()
    await Bun.sleep(5)
    clearInterval(timer)
    return longest
  }
  const atOnce = await longestGap(() => judgeRequest(history, DEFAULT_CONFIG))
  const sliced = await longestGap(() => judgeRequestSliced(history, DEFAULT_CONFIG, undefined, 4))
  return { atOnce, sliced }
}

/**
 * Where the proxy's own CPU goes per stream, in this process (no I/O): the bench's events cut out
 * of their bytes and read by the Chat Completions watch (one JSON.parse each), the repetition
 * guard made, and the guard fed each event's text.
 */
const streamWorkUs = (chunks: number): { readonly watchPerEvent: number; readonly guardMade: number; readonly guardTaken: number; readonly guardPerEvent: number } => {
  const frames = streamFrames(textStream(healthyText(chunks * 8, 7), { chunkSize: 8 }), { id: "chatcmpl-bench", created: 1_700_000_000, model: "scripted-model" })
  const bytes = frames.content.map((f) => Buffer.from(f))
  const options = repeatGuardOptionsOf(DEFAULT_CONFIG.repeat)
  const texts: Array<string> = []
  const read = () => {
    const splitter = new SseSplitter()
    const watch = chatProtocol.watch({})
    for (const b of bytes) for (const event of splitter.push(b)) texts.push(watch.see(event).text ?? "")
  }
  const usOf = (f: () => void, n: number): number => {
    f()
    const t = performance.now()
    for (let i = 0; i < n; i++) f()
    return ((performance.now() - t) * 1000) / n
  }
  const perStream = usOf(read, 50)
  // Guards for 50 streams at once, made new (as the proxy did before its pool) or taken from a
  // pool that got them back from the 50 streams before (as it does now), then fed apart from
  // getting them; in rounds, the median kept: the first rounds run code the runtime has not yet compiled.
  const rounds = Array.from({ length: 15 }, () => {
    // A pool of its own each round: one kept across rounds would fill up and let go of what it is given.
    const pool = new RepeatGuardPool(options)
    const guards: Array<RepeatGuard> = []
    const made = usOf(() => void guards.push(new RepeatGuard(options)), 50)
    const t = performance.now()
    for (const guard of guards) for (let i = 0; i < chunks; i++) guard.push(texts[i]!)
    const fed = ((performance.now() - t) * 1000) / (guards.length * chunks)
    // Given back (started over: its parts made anew on its buffers) and taken again, per guard.
    const t2 = performance.now()
    for (const guard of guards.splice(0)) pool.give(guard)
    for (let i = 0; i < 50; i++) guards.push(pool.take())
    const taken = ((performance.now() - t2) * 1000) / 50
    return { made, taken, fed }
  })
  return { watchPerEvent: perStream / chunks, guardMade: median(rounds.map((r) => r.made)), guardTaken: median(rounds.map((r) => r.taken)), guardPerEvent: median(rounds.map((r) => r.fed)) }
}

/**
 * Resident memory of a repetition guard, 200 of them alive: made new and fed 5 events, and after
 * a stream of `chunks` events given back to a pool (started over, its buffers kept: what an idle
 * proxy holds per guard in its pool). KB per guard, this process's RSS after a full GC.
 */
const guardResidentKb = (chunks: number): { readonly fresh: number; readonly pooled: number; readonly pooledBuffers: number } => {
  const options = repeatGuardOptionsOf(DEFAULT_CONFIG.repeat)
  const text = healthyText(chunks * 8, 3)
  const perGuard = (served: boolean): number => {
    Bun.gc(true)
    const before = ownRssOf(process.pid)
    const pool = new RepeatGuardPool(options)
    const kept = Array.from({ length: 200 }, () => {
      const guard = new RepeatGuard(options)
      const events = served ? chunks : 5
      for (let i = 0; i < events; i++) guard.push(text.slice(i * 8, i * 8 + 8))
      if (served) pool.give(guard)
      return guard
    })
    Bun.gc(true)
    return (ownRssOf(process.pid) - before) / kept.length / 1024
  }
  const served = new RepeatGuard(options)
  for (let i = 0; i < chunks; i++) served.push(text.slice(i * 8, i * 8 + 8))
  return { fresh: perGuard(false), pooled: perGuard(true), pooledBuffers: served.heldBytes / 1024 }
}

/**
 * The same N streams through a bare relay (no loopguard): what the runtime's HTTP stack and this
 * machine give before loopguard adds anything. node:http and Effect's platform server on either
 * runtime; on Bun also Bun's own server and fetch, the stack the proxy serves with there.
 */
const bareRelayFloor = async (upstream: Started, streams: number, relay: Exclude<Relay, "proxy">, steady: Steady): Promise<void> => {
  const bare = await startProxyProcess(upstream.base, relay)
  try {
    // Warmed as the proxy is: one stream, then one burst of N.
    await runClient([bare.base], 1)
    await runClient([bare.base], streams)
    const upstreamPid = upstream.child.pid!
    const directSteadyRun = await measured(() => runClient([upstream.base], streams, 1, steady), upstream.base, upstreamPid)
    const relayedSteadyRun = await measured(() => runClient([bare.base], streams, 1, steady), bare.base, upstreamPid, bare.child.pid!)
    const directRun = await measured(() => runClient([upstream.base], streams), upstream.base, upstreamPid)
    const relayedRun = await measured(() => runClient([bare.base], streams), bare.base, upstreamPid, bare.child.pid!)
    const [directSteady, relayedSteady, direct, relayed] = [summary(directSteadyRun.timings), summary(relayedSteadyRun.timings), summary(directRun.timings), summary(relayedRun.timings)]
    const cpuUsed = relayedRun.relayMs!
    console.log(`  ${isLayer(relay) ? "a layer" : "the floor"}: ${BARE_LABEL[relay]}${isLayer(relay) ? ", no request judged" : ", no loopguard"}) at ${streams} streams`)
    console.log(`    steady: added per chunk p50 ${fmt(relayedSteady.p50 - directSteady.p50)}  p99 ${fmt(relayedSteady.p99 - directSteady.p99)}  longest ${fmt(relayedSteady.max)} (direct ${fmt(directSteady.max)})  first byte added ${fmt(relayedSteady.firstByte - directSteady.firstByte)}`)
    console.log(loadLine("relay", directSteadyRun, relayedSteadyRun))
    process.stdout.write("    opened in the same instant:")
    console.log(` added per chunk p50 ${fmt(relayed.p50 - direct.p50)}  p99 ${fmt(relayed.p99 - direct.p99)}  longest ${fmt(relayed.max)} (direct ${fmt(direct.max)})  first byte added ${fmt(relayed.firstByte - direct.firstByte)}`)
    console.log(loadLine("relay", directRun, relayedRun))
    console.log(`    relay CPU ${cpuUsed} ms, ${((cpuUsed / relayed.chunks) * 1000).toFixed(0)} µs per chunk`)
  } finally {
    bare.child.kill("SIGTERM")
  }
}

/**
 * N streams through one proxy (`workers` processes): first one burst of N after start, printed
 * apart (its code not yet compiled for the load); then a fleet's steady load (N clients back to
 * back, starts spread) and N streams opened in the same instant, each direct and proxied. Returns
 * the proxy's CPU for the burst and the chunks it relayed.
 */
const atN = async (upstream: Started, proxy: Started, streams: number, steady: Steady, workers: number, label?: string): Promise<{ cpuMs: number; chunks: number }> => {
  const who = label ?? (workers > 1 ? `loopguard proxy --workers ${workers}` : "loopguard proxy")
  await runClient([proxy.base], 1)
  const cold = summary((await runClient([proxy.base], streams))[proxy.base]!)
  console.log(`  ${who}: the first ${streams} streams after start (not counted below): p99 ${fmt(cold.p99)}, longest ${fmt(cold.max)}, first byte ${fmt(cold.firstByte)}`)
  const upstreamPid = upstream.child.pid!
  const directSteadyRun = await measured(() => runClient([upstream.base], streams, 1, steady), upstream.base, upstreamPid)
  const proxiedSteadyRun = await measured(() => runClient([proxy.base], streams, 1, steady), proxy.base, upstreamPid, proxy.child.pid!)
  compare(`${streams} concurrent streams, steady (${streams} clients back to back for ${steady.durationMs / 1000} s, starts spread over ${steady.spreadMs} ms), ${who}`, summary(directSteadyRun.timings), summary(proxiedSteadyRun.timings), streams)
  console.log(loadLine("proxy", directSteadyRun, proxiedSteadyRun))
  const directRun = await measured(() => runClient([upstream.base], streams), upstream.base, upstreamPid)
  const proxiedRun = await measured(() => runClient([proxy.base], streams), proxy.base, upstreamPid, proxy.child.pid!)
  const proxied = summary(proxiedRun.timings)
  const cpuMs = proxiedRun.relayMs!
  compare(`${streams} streams opened in the same instant, ${who}`, summary(directRun.timings), proxied, streams)
  console.log(loadLine("proxy", directRun, proxiedRun))
  // The proxy's own work, which the machine's load does not inflate the way it inflates delays.
  console.log(`    ${workers > 1 ? "the workers'" : "proxy"} CPU for the ${streams} streams: ${cpuMs} ms, ${((cpuMs / proxied.chunks) * 1000).toFixed(0)} µs per chunk (requests, verdicts and relaying included)`)
  return { cpuMs, chunks: proxied.chunks }
}

export const main = async (quick = false, layers = false): Promise<void> => {
  const streams = 200
  const runs = quick ? 3 : 6
  const chunks = quick ? 60 : 150
  const upstream = await startUpstream(chunks)
  const proxy = await startProxyProcess(upstream.base).catch((e: unknown) => {
    upstream.child.kill("SIGTERM")
    throw e
  })
  try {
    console.log(`proxy overhead: Chat Completions streams of ${chunks} chunks 10 ms apart, the proxy in its own process (${onNode ? "node, the built bundle" : "bun, the sources"})`)
    console.log(`  the upstream and the load client run in two more processes; the three share this machine's ${navigator.hardwareConcurrency} cores (load average ${loadavg()[0]!.toFixed(2)} at the start)`)
    await runClient([proxy.base], 1)
    const one = await runClient([upstream.base, proxy.base], 1, runs)
    compare("1 stream", summary(one[upstream.base]!), summary(one[proxy.base]!), 1)
    const steady: Steady = { durationMs: quick ? 3000 : 6000, spreadMs: chunks * 10 }
    const { cpuMs: cpuUsed, chunks: chunksN } = await atN(upstream, proxy, streams, steady, 1)
    // Two workers on 2 cores (Linux): the connections spread over both. On node, the node on PATH must be able to share a port.
    const nodeVersion = onNode ? spawnSync("node", ["--version"], { encoding: "utf8" }).stdout.trim().replace(/^v/, "") : undefined
    const noWorkers = reusePortProblem(process.platform, nodeVersion === undefined ? process.versions : ({ node: nodeVersion } as NodeJS.ProcessVersions))
    if (noWorkers !== null) console.log(`  (--workers 2 not measured: ${noWorkers})`)
    else {
      const two = await startProxyProcess(upstream.base, "proxy", 2)
      await atN(upstream, two, streams, steady, 2).finally(() => two.child.kill("SIGTERM"))
    }
    // With the SQLite session store: each request's conversation, and its record, written as it ends.
    const sessions = mkdtempSync(join(tmpdir(), "loopguard-bench-sessions-"))
    try {
      const stored = await startProxyProcess(upstream.base, "proxy", 1, ["--session-dir", sessions])
      await atN(upstream, stored, streams, steady, 1, "loopguard proxy --session-dir (SQLite)").finally(() => stored.child.kill("SIGTERM"))
    } finally {
      rmSync(sessions, { recursive: true, force: true })
    }
    // The floors run while the proxy idles: its memory settles before the idle reading.
    await bareRelayFloor(upstream, streams, "bare-node", steady)
    if (!onNode) await bareRelayFloor(upstream, streams, "bare-bun", steady)
    // --layers (Bun): the proxy's relay with its outer layers taken off, layer by layer.
    if (layers && !onNode) for (const layer of LAYERS) await bareRelayFloor(upstream, streams, layer, steady)
    await bareRelayFloor(upstream, streams, "bare-effect", steady)
    await Bun.sleep(500)
    const idle = rssOf(proxy.child.pid!)
    const cpuBeforeHold = cpuMsOf(proxy.child.pid!)
    const held = await holdOpen(proxy.base, streams)
    await Bun.sleep(300)
    const open = rssOf(proxy.child.pid!)
    // Opening a stream (the request read, judged, sent upstream, its first 5 events relayed) apart from relaying the rest.
    const perRequestMs = (cpuMsOf(proxy.child.pid!) - cpuBeforeHold) / streams
    const perChunkUs = ((cpuUsed - perRequestMs * streams) / chunksN) * 1000
    console.log(`  the proxy's CPU at ${streams} streams, of which: ${perRequestMs.toFixed(2)} ms per request opened (measured on ${streams} streams held after 5 chunks), about ${perChunkUs.toFixed(0)} µs per chunk relayed after that`)
    const perStream = (open - idle) / streams
    // Each open stream's repetition guard came from the pool, whose guards the idle figure already
    // holds: counted here at what a pooled guard holds, so the per-stream figure is not flattered.
    const resident = guardResidentKb(chunks)
    const withGuard = perStream + Math.max(resident.pooled, resident.pooledBuffers) * 1024
    console.log(`  memory: proxy RSS ${(idle / 1048576).toFixed(1)} MB idle (its pool of repetition guards included), ${(open / 1048576).toFixed(1)} MB with ${streams} streams open mid-reply`)
    console.log(`    per open stream ${(perStream / 1024).toFixed(0)} KB, ${(withGuard / 1024).toFixed(0)} KB with its guard counted (target ≤ 256 KB: ${verdict(withGuard, 256 * 1024)})`)
    held.kill("SIGTERM")
    const work = streamWorkUs(chunks)
    console.log(`  the proxy's own work per stream, in this process: events split and read by the watch ${work.watchPerEvent.toFixed(1)} µs each; the repetition guard (median of 15 rounds of 50) made new ${work.guardMade.toFixed(0)} µs, given back to the pool and taken again ${work.guardTaken.toFixed(1)} µs, fed ${work.guardPerEvent.toFixed(1)} µs per event`)
    console.log(`  a repetition guard's resident memory: ${resident.fresh.toFixed(0)} KB made new, ${resident.pooled.toFixed(0)} KB idle in the pool after a stream of ${chunks} events (its buffers: ${resident.pooledBuffers.toFixed(0)} KB)`)
    const turns = quick ? [10, 50] : [10, 50, 200]
    const verdicts = turns.map((n) => ({ n, ...verdictCpuMs(n) }))
    console.log(`  verdict per request (CPU): the whole turn judged ${verdicts.map((v) => `${v.n} steps ${v.fresh.toFixed(1)} ms`).join(", ")}; the turn before kept ${verdicts.map((v) => `${v.n} steps ${v.kept.toFixed(2)} ms`).join(", ")}`)
    const hold = await judgeHoldMs(quick ? 2_000 : 10_000)
    console.log(`  a turn of ${quick ? "2,000" : "10,000"} failing calls judged afresh holds the event loop ${hold.atOnce.toFixed(0)} ms at once, at most ${hold.sliced.toFixed(1)} ms judged in slices of 4 ms as the proxy does (${(hold.atOnce / hold.sliced).toFixed(0)}× shorter)`)
  } finally {
    proxy.child.kill("SIGTERM")
    upstream.child.kill("SIGTERM")
  }
}

if (import.meta.main) await main(process.argv.includes("--quick"), process.argv.includes("--layers"))
