/**
 * A service override: your own Tools and Permission Layers change what a run does.
 *
 * The scripted model calls `lookup` three times with the same input in one reply (a doom loop),
 * then answers. With the built-in `Permission.layerDeny` the third call is refused and the run
 * ends `doom_loop`. With our own Permission (read-only tools may repeat) and our own Tools (an
 * in-memory table, no shell), all three calls run and the run ends `final`.
 *
 * Run: bun examples/service-override.ts   (or node --experimental-strip-types on Node >= 22)
 */
import { layerOpenAICompatible } from "@loopguard/ai-sdk"
import { startScriptedServer, textStream, type ScriptedResponse } from "@loopguard/ai-sdk/testing"
import {
  ConfigService,
  DEFAULT_CONFIG,
  Events,
  loopguardLayer,
  Permission,
  RunLoop,
  SessionStore,
  Tools,
  type PermissionRequest,
  type ToolCall,
  type ToolResult
} from "@loopguard/effect"
import { Effect, Layer } from "effect"

const tripleLookup: ScriptedResponse = {
  type: "stream",
  chunks: [1, 2, 3].map((i) => ({ toolCall: { id: `call_${i}`, name: "lookup", arguments: '{"key":"region"}' } }))
}
const script = [tripleLookup, textStream("The region is eu-west-1.")]

/** Our Tools: a read-only table in memory, counting what it was asked. */
const makeTableTools = (table: Readonly<Record<string, string>>, executed: Array<string>) =>
  Layer.succeed(
    Tools,
    Tools.of({
      specs: [
        {
          name: "lookup",
          description: "Read one value from the deployment table",
          inputSchema: { type: "object", properties: { key: { type: "string" } }, required: ["key"] }
        }
      ],
      execute: (call: ToolCall) =>
        Effect.sync((): ToolResult => {
          executed.push(call.id)
          const key = (call.input as { key?: unknown }).key
          const value = typeof key === "string" ? table[key] : undefined
          return value === undefined ? { state: "error", output: "", error: `no key ${String(key)}` } : { state: "completed", output: value }
        })
    })
  )

/** Our Permission: repeating a read-only tool is fine; anything else is refused. */
const makeReadOnlyPermission = (asked: Array<PermissionRequest>) =>
  Layer.succeed(Permission, Permission.make((request) =>
    Effect.sync(() => {
      asked.push(request)
      return request.tool === "lookup" ? "allow" : "deny"
    })
  ))

/** One user turn against a fresh scripted server, with the given Tools and Permission. */
const runOnce = async (tools: Layer.Layer<Tools>, permission: Layer.Layer<Permission>) => {
  const server = await startScriptedServer(script)
  try {
    // Interactive: the doom loop asks the Permission service instead of failing at once.
    const config = Layer.succeed(ConfigService, { ...DEFAULT_CONFIG, loop: { ...DEFAULT_CONFIG.loop, interactive: true } })
    const deps = Layer.mergeAll(
      layerOpenAICompatible({ baseURL: server.baseURL, modelId: server.modelId }),
      tools,
      config,
      Layer.succeed(Events, Events.make(() => {})),
      permission,
      SessionStore.layerMemory
    )
    const run = Effect.gen(function* () {
      return yield* (yield* RunLoop).run({ sessionId: "override", prompt: "Which region are we deployed in?" })
    })
    const result = await Effect.runPromise(run.pipe(Effect.provide(loopguardLayer(deps))))
    return { reason: result.report.reason, requests: server.requests.length }
  } finally {
    await server.close()
  }
}

const table = { region: "eu-west-1" }

const builtInExecuted: Array<string> = []
const builtIn = await runOnce(makeTableTools(table, builtInExecuted), Permission.layerDeny)
console.log(`built-in Permission.layerDeny: run ended "${builtIn.reason}", ${builtInExecuted.length} lookups ran, ${builtIn.requests} model request(s)`)

const ownExecuted: Array<string> = []
const asked: Array<PermissionRequest> = []
const own = await runOnce(makeTableTools(table, ownExecuted), makeReadOnlyPermission(asked))
console.log(`own Permission + own Tools:   run ended "${own.reason}", ${ownExecuted.length} lookups ran, ${own.requests} model request(s)`)
console.log(`own Permission was asked ${asked.length} time(s): ${asked.map((a) => `${a.kind} on ${a.tool}`).join(", ")}`)

const shown =
  builtIn.reason === "doom_loop" &&
  builtInExecuted.length === 2 &&
  own.reason === "final" &&
  ownExecuted.length === 3 &&
  asked.length === 1 &&
  own.requests === 2
if (!shown) {
  console.error("service-override: the overrides did not change the run as expected")
  process.exit(1)
}
console.log("ok: the runtime's own Tools and Permission decided the outcome")
