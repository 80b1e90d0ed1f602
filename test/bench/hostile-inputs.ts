/**
 * `bun run test/bench/hostile-inputs.ts`: what a hostile server and a hostile file cost, with
 * the default limits, through the real provider over local HTTP. A gzip bomb (≈2 MB unpacking to
 * 2 GiB) must end fast as `protocol` with flat memory; `read_file` on a 1 GiB sparse file must
 * cost one small read. Figures are measured in this run and printed, never asserted on time.
 */
import { startScriptedServer } from "@loopguard/ai-sdk/testing"
import { layerOpenAICompatible } from "@loopguard/ai-sdk"
import { ConfigService, DEFAULT_CONFIG, Events, loopguardLayer, Permission, RunLoop, SessionStore, Tools } from "@loopguard/effect"
import { Effect, Layer } from "effect"
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { gzipSync } from "node:zlib"
import { builtinTools } from "../../packages/cli/src/tools.js"
import { makeRedactor, makeShapeStreamRedactor, redactSecrets } from "@loopguard/core/try-best"

const mb = (bytes: number) => (bytes / 1e6).toFixed(1)

const gzipBomb = async () => {
  const bomb = gzipSync(Buffer.concat([Buffer.from(": "), Buffer.alloc(2 * 1024 ** 3 - 16, 0x61)]), { level: 9 })
  const server = await startScriptedServer([
    { type: "error", status: 200, headers: { "content-type": "text/event-stream", "content-encoding": "gzip" }, body: bomb }
  ])
  const config = Layer.succeed(ConfigService, DEFAULT_CONFIG)
  const deps = Layer.mergeAll(
    layerOpenAICompatible({ baseURL: server.baseURL, modelId: server.modelId }),
    Layer.effect(Tools, Tools.make([])).pipe(Layer.provide(config)),
    config,
    Layer.succeed(Events, Events.make(() => {})),
    Permission.layerDeny,
    SessionStore.layerMemory
  )
  Bun.gc(true)
  const before = process.memoryUsage().rss
  const started = performance.now()
  const result = await Effect.runPromise(
    Effect.gen(function* () {
      return yield* (yield* RunLoop).run({ sessionId: "bomb", prompt: "hello" })
    }).pipe(Effect.provide(loopguardLayer(deps)))
  )
  const ms = performance.now() - started
  await server.close()
  console.log(`gzip bomb: ${mb(bomb.length)} MB compressed, 2147.5 MB unpacked → exit ${result.report.reason} in ${ms.toFixed(0)} ms, RSS +${mb(process.memoryUsage().rss - before)} MB`)
}

const sparseFile = async () => {
  const dir = mkdtempSync(join(tmpdir(), "lg-bench-sparse-"))
  try {
    writeFileSync(join(dir, "big.bin"), "start\n")
    truncateSync(join(dir, "big.bin"), 1024 ** 3)
    const readFile = builtinTools(dir, 10_000).find((t) => t.spec.name === "read_file")!
    Bun.gc(true)
    const before = process.memoryUsage().rss
    const started = performance.now()
    const r = await readFile.run({ path: "big.bin" }, new AbortController().signal)
    const ms = performance.now() - started
    console.log(`read_file on a 1 GiB sparse file: ${r.output.length} characters back in ${ms.toFixed(1)} ms, RSS +${mb(process.memoryUsage().rss - before)} MB`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * The redactors over text made to be slow for them: long runs of name characters (`x.x.x.…`), a
 * command name repeated along one line. Each must cost about what ordinary text of its size costs
 * (a pattern tried from every boundary of such a run took seconds per 40 KB). Printed per input as
 * the ratio to 40 KB of prose, whole text and streamed in 500-character pieces.
 */
const redactorInputs = () => {
  const size = 40_000
  const inputs: ReadonlyArray<readonly [string, string]> = [
    ["prose", "The build failed, so I will read the log and run the tests again. ".repeat(size / 66)],
    ["x.x.x… then a name", "x.".repeat(size / 2) + " token=abcd1234"],
    ["a-a-a… then a name", "a-".repeat(size / 2) + " pass=abcd1234"],
    ["mysql repeated on one line", "mysql -u -p ".repeat(size / 12)],
    ["http repeated on one line", "http -a x ".repeat(size / 10)],
    ["a:a:a… then a name", "a:".repeat(size / 2) + " token"]
  ]
  const redact = makeRedactor([])
  const cost = (text: string): { whole: number; streamed: number } => {
    const t0 = performance.now()
    redact(text)
    redactSecrets(text)
    const t1 = performance.now()
    const stream = makeShapeStreamRedactor([])
    for (let i = 0; i < text.length; i += 500) stream.push(text.slice(i, i + 500))
    stream.flush()
    return { whole: t1 - t0, streamed: performance.now() - t1 }
  }
  cost(inputs[0]![1])
  const base = cost(inputs[0]![1])
  for (const [name, text] of inputs) {
    const c = cost(text)
    console.log(`redactors on ${name} (${text.length} chars): whole ${c.whole.toFixed(1)} ms (${(c.whole / base.whole).toFixed(1)}× prose), streamed ${c.streamed.toFixed(1)} ms (${(c.streamed / base.streamed).toFixed(1)}× prose)`)
  }
}

export const main = async () => {
  console.log("## hostile inputs (default limits)")
  await gzipBomb()
  await sparseFile()
  redactorInputs()
}

if (import.meta.main) await main()
