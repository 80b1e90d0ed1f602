/**
 * `loopguard demo`: offline, on the built-in scripted model served over local HTTP (the real
 * AI SDK provider talks to it). Each scene shows one mechanism firing; exits 0.
 */
import { layerScripted, repeatLoop, textStream, toolCallStream, type ScriptedResponse } from "@loopguard/ai-sdk/testing"
import { DEFAULT_CONFIG, type LoopguardConfig, type ToolDefinition } from "@loopguard/effect"
import { Console, Effect } from "effect"
import { Command, Flag } from "effect/cli"
import { outputFlags } from "../endpoint.js"
import { colourWanted, exitWords, makeStyle, rendererFor, type OutputMode, type Renderer } from "../render/index.js"
import { runSession } from "../session.js"

interface Scene {
  readonly title: string
  readonly expect: string
  readonly script: ReadonlyArray<ScriptedResponse> | ((body: any, index: number) => ScriptedResponse)
  readonly config?: (c: LoopguardConfig) => LoopguardConfig
}

const thinkOnly = (r: string): ScriptedResponse => ({ type: "stream", chunks: [{ reasoning: r }], finish: "stop" })
const LOOP = "Let me look at the test file once more to understand why the assertion fails."

// Built when the demo runs: the scripted replies are text built at load time, and every other
// command (`run` among them) starts from this same bundle.
const scenes = (): ReadonlyArray<Scene> => [
  {
    title: "A healthy answer",
    expect: "final",
    script: [textStream("The test fails because `sum([])` returns undefined; returning 0 for an empty list fixes it.", { chunkSize: 6, chunkDelayMs: 4 })]
  },
  {
    title: "A looping generation is cut in the stream, then the model is reminded",
    expect: "final",
    script: [repeatLoop(LOOP, 80, { chunkSize: 9, chunkDelayMs: 2 }), textStream("I was repeating myself. The assertion compares strings with numbers; I will convert before comparing.")]
  },
  {
    title: "Reasoning only, no answer: remind, then an answer",
    expect: "final",
    script: [thinkOnly("The user wants the fix... I should check the helper first."), textStream("Fixed: the helper now returns 0 for an empty list.")]
  },
  {
    title: "Tool-call markup written as text: excluded, reminded, then a real call",
    expect: "final",
    script: [
      { type: "stream", chunks: [{ text: '<function_calls><invoke name="bash"><parameter name="command">npm test</parameter></invoke></function_calls>' }], finish: "tool_calls" },
      toolCallStream("bash", { command: "ls src" }),
      textStream("src holds sum.ts and sum.test.ts; the fix goes in sum.ts.")
    ]
  },
  {
    title: "A reply cut at the length limit is continued",
    expect: "final",
    script: [textStream("The fix has two parts: first, the empty-list case", { finish: "length" }), textStream(" returns 0; second, the reducer gets an initial value.")]
  },
  {
    title: "Rate limited: the server's retry-after is obeyed",
    expect: "final",
    script: [{ type: "error", status: 429, headers: { "retry-after": "1" }, body: { error: { message: "Rate limit reached", type: "rate_limit_error", code: "rate_limit_exceeded" } } }, textStream("Done after the wait.")]
  },
  {
    title: "The connection drops mid-reply: the step is replayed, nothing is duplicated",
    expect: "final",
    config: (c) => ({ ...c, retry: { ...c.retry, stream: { initialDelayMs: 300 }, network: { initialDelayMs: 300 } } }),
    script: [
      { ...textStream("The helper returns undefined for an empty list because the reducer has no initial value.", { chunkSize: 8 }), resetAfterChunks: 4 },
      textStream("The helper returns undefined for an empty list because the reducer has no initial value.", { chunkSize: 8 })
    ]
  },
  {
    title: "The same words and the same action three times: text-loop reminder",
    expect: "final",
    script: [
      ...[1, 2, 3].map((i) => toolCallStream("bash", { command: "ls src" }, { id: `l${i}`, text: "Let me list the source folder." })),
      textStream("I was going round in circles: the file list does not change. The fix is in sum.ts.")
    ]
  },
  {
    title: "The same failing command again and again: try-best notes it, then pauses the turn when it goes on",
    expect: "try_best_paused",
    config: (c) => ({ ...c, tryBest: { ...c.tryBest, enabled: true } }),
    // Noted at the 3rd failure (the breaker also holds tools back for two steps), paused at the next one that runs.
    script: [1, 2, 3, 4, 5, 6, 7].map((i) => toolCallStream("bash", { command: "npm test" }, { id: `t${i}`, text: "Running the tests again." }))
  },
  {
    title: "A refusal is rolled back and the step retried, without spending a turn",
    expect: "final",
    script: [textStream("I'm sorry, but I can't help with that."), textStream("The fix: give the reducer an initial value of 0.")]
  },
  {
    title: "The same call three times in one reply: a background agent's doom loop fails the step",
    expect: "doom_loop",
    script: [
      {
        type: "stream",
        chunks: [1, 2, 3].map((i) => ({ toolCall: { id: `d${i}`, name: "bash", arguments: '{"command":"ls src"}' } })),
        finish: "tool_calls"
      }
    ]
  },
  {
    title: "The goal gate: an evaluator says NOT MET, the agent keeps working",
    expect: "final",
    config: (c) => ({ ...c, goalGate: { ...c.goalGate, enabled: true } }),
    script: (() => {
      let judged = 0
      let answered = 0
      return (body: any): ScriptedResponse => {
        if (JSON.stringify(body.messages?.[0] ?? {}).includes("strict evaluator")) {
          judged += 1
          return textStream(judged === 1 ? "NOT MET\nThe answer names the bug but the fix was not applied." : "MET\nFixed and explained.")
        }
        answered += 1
        return answered === 1 ? textStream("The bug is the missing initial value.") : textStream("Applied: reduce((a, b) => a + b, 0). The test passes.")
      }
    })()
  },
  {
    title: "A content filter ends the run at once",
    expect: "content_filter",
    script: [textStream("I cannot", { finish: "content_filter" })]
  },
  {
    title: "A step hangs: the wall clock (loop.maxWallMs) cancels it and the report is written",
    expect: "time_limit",
    config: (c) => ({ ...c, loop: { ...c.loop, maxWallMs: 800 } }),
    script: [{ type: "stream", chunks: [{ text: "Let me think about this for a while" }, { text: "…" }], finish: "stop", stallAfterChunks: 1 }]
  },
  {
    title: "Tool calls keep failing: degrade, tools cool down, then the work is handed back",
    expect: "circuit_open",
    // A deploy that cannot reach its server: failures of a tool, not a test's report (failing tests are no storm).
    script: [1, 2, 3, 4, 5, 6, 7, 8].map((i) => toolCallStream("bash", { command: `./deploy.sh --attempt ${i}` }, { id: `f${i}` }))
  },
  {
    title: "The history outgrows the context: older steps are summarised, the recent ones kept",
    expect: "final",
    config: (c) => ({ ...c, compaction: { ...c.compaction, contextTokens: 250, keepRecentSteps: 1 } }),
    script: [
      ...[1, 2, 3].map((i) => toolCallStream("bash", { command: `ls src/part${i}` }, { id: `c${i}`, text: `Listing part ${i} of the sources.` })),
      textStream("SUMMARY: listed src/part1 and src/part2; sum.ts holds the bug."),
      textStream("The fix goes in sum.ts: give the reducer an initial value of 0.")
    ]
  },
  {
    title: "A sub-task goes to a sub-agent with its own budget; its report rolls up",
    expect: "final",
    config: (c) => ({ ...c, subagents: { ...c.subagents, enabled: true, maxSteps: 3 } }),
    script: [
      toolCallStream("task", { description: "find the helper", prompt: "List src and say which file holds the sum helper." }, { id: "t1" }),
      toolCallStream("bash", { command: "ls src" }, { id: "s1" }),
      textStream("The sum helper is in src/sum.ts."),
      textStream("The sub-agent found the helper in src/sum.ts; the fix goes there.")
    ]
  }
]

/** Demo tools: `npm test` and `./deploy.sh` always fail, anything else succeeds (no real shell is touched). */
const demoTools: ReadonlyArray<ToolDefinition> = [
  {
    spec: { name: "bash", description: "run a shell command", inputSchema: { type: "object", properties: { command: { type: "string" } }, required: ["command"] } },
    run: async (input) => {
      const command = String(input["command"])
      if (command.includes("npm test")) return { state: "completed", output: "FAIL src/sum.test.ts\n  expected 0, received undefined\n1 failing", exitCode: 1 }
      if (command.includes("deploy.sh")) return { state: "completed", output: "deploy: cannot reach staging.internal:22 (connection refused)", exitCode: 1 }
      return { state: "completed", output: "sum.ts\nsum.test.ts", exitCode: 0 }
    }
  }
]

const sceneConfig = (scene: Scene): LoopguardConfig => (scene.config ?? ((c) => c))(structuredClone(DEFAULT_CONFIG))

/** One scene through the real loop; the scene's reason for ending, or "none". */
const playScene = (scene: Scene, index: number, output: OutputMode, renderer: Renderer) =>
  runSession({ config: sceneConfig(scene), llm: layerScripted(scene.script), tools: demoTools, json: output === "json", output, renderer }, [
    { sessionId: `demo-${index + 1}`, prompt: "Fix the failing test in src/sum.test.ts" }
  ]).pipe(Effect.map(([result]) => result?.report.reason ?? "none"))

export const demoCommand = Command.make(
  "demo",
  {
    json: Flag.Boolean("json").pipe(Flag.withDefault(false), Flag.withDescription("print only JSON Lines: scenes, events, reports, verdicts")),
    quiet: Flag.Boolean("quiet").pipe(Flag.withDefault(false), Flag.withDescription("print each scene's title, answer and exit line only"))
  },
  (flags) =>
    Effect.gen(function* () {
      const output = yield* outputFlags(flags.json, flags.quiet)
      const renderer = rendererFor({ mode: output, config: DEFAULT_CONFIG, modelId: "scripted-model" })
      const style = makeStyle(colourWanted(process.stdout.isTTY === true, process.env))
      const json = (value: unknown) => Console.log(JSON.stringify(value))
      let ok = 0
      const all = scenes()
      for (const [i, scene] of all.entries()) {
        if (output === "json") yield* json({ type: "demo.scene", scene: i + 1, title: scene.title, expect: scene.expect })
        else renderer.line(style.bold(`\n=== ${i + 1}. ${scene.title}`))
        const got = yield* playScene(scene, i, output, renderer)
        const asExpected = got === scene.expect
        if (asExpected) ok += 1
        if (output === "json") yield* json({ type: "demo.verdict", scene: i + 1, expected: scene.expect, got, asExpected })
        else if (output === "human") renderer.line(`verdict: ${asExpected ? style.green("as expected") : style.red("UNEXPECTED")} — ${exitWords(got)} (${got})`)
      }
      if (output === "json") yield* json({ type: "demo.summary", scenes: all.length, asExpected: ok })
      else renderer.line(`\n${ok} of ${all.length} scenes ended as expected (offline, scripted model over local HTTP).`)
    })
).pipe(Command.withDescription("Offline demo on the built-in scripted model: each mechanism firing"))
