/**
 * The cross-step loop detectors and the reasoning-loop crop (docs/loops.md), end to end: the
 * real RunLoop over the real AI SDK provider against the scripted HTTP server. Every assertion is
 * on what is observable from outside — the request bodies the server received, the tools that
 * ran, who was asked for permission, the stored session and the run report.
 */
import { textStream, toolCallStream, type ScriptedResponse } from "@loopguard/ai-sdk/testing"
import { reminderText } from "@loopguard/core/classify"
import { CONTINUE_TEXT, TEXT_LOOP_MILD_PROMPT, TEXT_LOOP_STRONG_PROMPT, TEXT_LOOP_TERMINATE_MESSAGE } from "@loopguard/core/loops"
import type { LoopguardConfig } from "@loopguard/effect"
import { describe, expect } from "bun:test"
import { Effect } from "effect"
import { it } from "./effect-test.js"
import { harness } from "./harness.js"
import {
  ANCHOR_REASONING,
  FINAL,
  LOOP_IDS,
  LOOP_REASONING,
  anchor,
  cropOn,
  cropThenRepeatScript,
  drift,
  loopScript
} from "./loops-e2e/crop-scripts.js"
import { actions, answer, range, recordingPermission, storedToolIds, turns } from "./loops-e2e/run.js"
import {
  assistantTexts,
  countUser,
  reasoningTexts,
  recordingShell,
  toolCallIds,
  toolResultIds,
  userTexts,
  wireMessages
} from "./loops-e2e/wire.js"

describe("text loop over HTTP", () => {
  /** The same narration and the same call, step after step (the call id alone differs, as on a real wire). */
  const sameStep = (i: number) => toolCallStream("bash", { command: "cat config.json" }, { id: `call_same${i}`, text: "Let me check the config file." })

  it.live("3 identical steps → MILD, 3 more → STRONG, 3 more → the run ends with text_loop", () => Effect.gen(function* () {
    const shell = recordingShell()
    // The same call 8 times would stop the run first (repeated action, exit idle): this test is
    // about the text loop detector alone.
    const h = yield* harness([...range(9).map(sameStep), answer("never reached")], {
      tools: [shell.tool],
      config: (c) => ({ ...c, repeatedAction: { ...c.repeatedAction, stopAt: null } })
    })
    const { results } = yield* h.provide(turns("Why does the parser fail?"))
    const r = results[0]!
    const s = h.server
    expect(s.requests.length).toBe(9)
    // Two repeats are not a loop.
    expect(countUser(s, 2, TEXT_LOOP_MILD_PROMPT)).toBe(0)
    // The third identical step triggers the MILD reminder, stored, so it stays in later requests.
    expect(countUser(s, 3, TEXT_LOOP_MILD_PROMPT)).toBe(1)
    expect(countUser(s, 3, TEXT_LOOP_STRONG_PROMPT)).toBe(0)
    // The buffer is cleared after a trigger: the 4th and 5th repeats are not a second trigger yet.
    expect(countUser(s, 4, TEXT_LOOP_STRONG_PROMPT)).toBe(0)
    expect(countUser(s, 5, TEXT_LOOP_STRONG_PROMPT)).toBe(0)
    expect(countUser(s, 6, TEXT_LOOP_STRONG_PROMPT)).toBe(1)
    expect(countUser(s, 6, TEXT_LOOP_MILD_PROMPT)).toBe(1)
    expect(TEXT_LOOP_STRONG_PROMPT).toMatch(/once more.*terminated/is)
    expect(countUser(s, 8, TEXT_LOOP_STRONG_PROMPT)).toBe(1)
    // The 9th identical step ends the run: no 10th request.
    expect(r.report.reason).toBe("text_loop")
    expect(r.report.error?.message).toBe(TEXT_LOOP_TERMINATE_MESSAGE)
    expect(r.report.error?.message).toBe("Text loop detected")
    expect(actions(r, "text-loop")).toEqual(["mild", "strong", "terminate"])
    expect(shell.ran.length).toBe(9)
  }))

  it.live("whitespace and case variants, a leading filler phrase, reordered argument keys and other reasoning are one step", () => Effect.gen(function* () {
    const shell = recordingShell()
    const variants: ReadonlyArray<ScriptedResponse> = [
      // Reasoning differs every time: it is not part of the key.
      toolCallStream("bash", '{"command":"cat config.json","cwd":"/repo"}', { id: "call_v1", text: "Let me check the config file.", reasoning: "Maybe a typo." }),
      toolCallStream("bash", '{"cwd":"/repo","command":"cat config.json"}', { id: "call_v2", text: "  CHECK the   config\n file. ", reasoning: "Or a missing key." }),
      toolCallStream("bash", '{ "cwd": "/repo", "command": "cat config.json" }', { id: "call_v3", text: "I'll check the Config File.", reasoning: "Or the encoding." })
    ]
    const h = yield* harness([...variants, answer("The config is fine.")], { tools: [shell.tool] })
    const { results } = yield* h.provide(turns("Check the config"))
    expect(h.server.requests.length).toBe(4)
    expect(countUser(h.server, 2, TEXT_LOOP_MILD_PROMPT)).toBe(0)
    expect(countUser(h.server, 3, TEXT_LOOP_MILD_PROMPT)).toBe(1)
    expect(actions(results[0]!, "text-loop")).toEqual(["mild"])
    expect(results[0]!.report.reason).toBe("final")
  }))

  it.live("a different argument or a different sentence breaks the run: no reminder at all", () => Effect.gen(function* () {
    const shell = recordingShell()
    const a = (i: number) => toolCallStream("bash", { command: "cat config.json" }, { id: `call_a${i}`, text: "Let me check the config file." })
    const otherArgs = toolCallStream("bash", { command: "cat config.yaml" }, { id: "call_b", text: "Let me check the config file." })
    const otherText = toolCallStream("bash", { command: "cat config.json" }, { id: "call_c", text: "Let me check the log file." })
    const script = [a(1), a(2), otherArgs, a(3), a(4), otherText, a(5), a(6), answer("Found it.")]
    const h = yield* harness(script, { tools: [shell.tool] })
    const { results } = yield* h.provide(turns("Check the config"))
    expect(h.server.requests.length).toBe(9)
    for (const i of range(9)) expect(countUser(h.server, i, TEXT_LOOP_MILD_PROMPT)).toBe(0)
    expect(actions(results[0]!, "text-loop")).toEqual([])
    expect(results[0]!.report.reason).toBe("final")
  }))

  it.live("a step with tool calls only is not recorded: it neither counts nor breaks the run", () => Effect.gen(function* () {
    const shell = recordingShell()
    const a = (i: number) => toolCallStream("bash", { command: "cat config.json" }, { id: `call_a${i}`, text: "Let me check the config file." })
    const silent = toolCallStream("bash", { command: "ls" }, { id: "call_silent" })
    const h = yield* harness([a(1), a(2), silent, a(3), answer("Done.")], { tools: [shell.tool] })
    const { results } = yield* h.provide(turns("Check the config"))
    expect(h.server.requests.length).toBe(5)
    expect(countUser(h.server, 3, TEXT_LOOP_MILD_PROMPT)).toBe(0)
    expect(countUser(h.server, 4, TEXT_LOOP_MILD_PROMPT)).toBe(1)
    expect(actions(results[0]!, "text-loop")).toEqual(["mild"])
  }))
})

describe("repeated action over HTTP", () => {
  const note = reminderText("repeated-action", "main")
  const build = (i: number, text: string) => toolCallStream("bash", { command: "make build" }, { id: `call_build${i}`, text })

  it.live("3 steps with one tool call → the 4th request carries the note; it is ephemeral", () => Effect.gen(function* () {
    expect(note).toMatch(/repeating the same action/i)
    const shell = recordingShell()
    const script = [
      build(1, "Building the project."),
      build(2, "Trying the build once more."),
      build(3, "Running the build again to see the error."),
      toolCallStream("bash", { command: "make test" }, { id: "call_test", text: "Running the tests instead." }),
      answer("The tests pass.")
    ]
    const h = yield* harness(script, { tools: [shell.tool] })
    const { results, stored } = yield* h.provide(turns("Make the build pass"))
    const s = h.server
    expect(s.requests.length).toBe(5)
    expect(countUser(s, 2, note)).toBe(0)
    expect(countUser(s, 3, note)).toBe(1)
    // Appended to the request being built, after the history.
    const last = wireMessages(s, 3).at(-1)
    expect(last?.role).toBe("user")
    expect(userTexts(s, 3).at(-1)).toBe(note)
    // The action changed: the note is gone from the next request, and it was never stored.
    expect(countUser(s, 4, note)).toBe(0)
    expect(stored.some((m) => m.role === "user" && m.text === note)).toBe(false)
    expect(stored.filter((m) => m.role === "user").length).toBe(1)
    expect(results[0]!.report.reason).toBe("final")
    expect(actions(results[0]!, "repeated-action")).toEqual(["note"])
  }))

  it.live("no counter, no termination: a 4th repeat gets the note once more, not twice", () => Effect.gen(function* () {
    const shell = recordingShell()
    const script = [
      build(1, "Building."),
      build(2, "Building again."),
      build(3, "One more build."),
      build(4, "And another build."),
      answer("Gave up on the build; it needs a missing header.")
    ]
    const h = yield* harness(script, { tools: [shell.tool] })
    const { results, stored } = yield* h.provide(turns("Make the build pass"))
    expect(h.server.requests.length).toBe(5)
    expect(countUser(h.server, 3, note)).toBe(1)
    expect(countUser(h.server, 4, note)).toBe(1)
    expect(stored.some((m) => m.role === "user" && m.text === note)).toBe(false)
    expect(results[0]!.report.reason).toBe("final")
  }))

  it.live("a step without tool calls stops the collection: no note after it", () => Effect.gen(function* () {
    const shell = recordingShell()
    const script = [
      build(1, "Building."),
      build(2, "Building again."),
      textStream("The build log says the header", { finish: "length" }),
      build(3, "One more build."),
      answer("Done.")
    ]
    const h = yield* harness(script, { tools: [shell.tool] })
    const { results } = yield* h.provide(turns("Make the build pass"))
    expect(h.server.requests.length).toBe(5)
    for (const i of range(5)) expect(countUser(h.server, i, note)).toBe(0)
    expect(actions(results[0]!, "repeated-action")).toEqual([])
  }))
})

describe("doom loop over HTTP", () => {
  /** One reply with three calls of one tool with one input (ids differ, as a provider sends them). */
  const tripleCall = (args = '{"command":"ls"}'): ScriptedResponse => ({
    type: "stream",
    chunks: [1, 2, 3].map((i) => ({ toolCall: { id: `call_d${i}`, name: "bash", arguments: args } }))
  })
  const interactive = (c: LoopguardConfig): LoopguardConfig => ({ ...c, loop: { ...c.loop, interactive: true } })

  it.live("interactive, permission granted: the user is asked once and all 3 calls run", () => Effect.gen(function* () {
    const shell = recordingShell()
    const permission = recordingPermission("allow")
    const h = yield* harness([tripleCall(), answer("Listed the files.")], { tools: [shell.tool], permission: permission.layer, config: interactive })
    const { results } = yield* h.provide(turns("List the files"))
    expect(permission.asked.length).toBe(1)
    expect(permission.asked[0]).toMatchObject({ kind: "doom-loop", tool: "bash", input: { command: "ls" } })
    expect(shell.ran.length).toBe(3)
    expect(toolResultIds(h.server, 1)).toEqual(["call_d1", "call_d2", "call_d3"])
    expect(results[0]!.report.reason).toBe("final")
  }))

  it.live("interactive, permission denied: the 3rd call does not run and the run ends with doom_loop", () => Effect.gen(function* () {
    const shell = recordingShell()
    const permission = recordingPermission("deny")
    const h = yield* harness([tripleCall(), answer("never reached")], { tools: [shell.tool], permission: permission.layer, config: interactive })
    const { results, stored } = yield* h.provide(turns("List the files"))
    expect(permission.asked.length).toBe(1)
    expect(shell.ran.length).toBe(2)
    expect(h.server.requests.length).toBe(1)
    expect(results[0]!.report.reason).toBe("doom_loop")
    const reply = stored.find((m) => m.role === "assistant")
    const third = reply?.role === "assistant" ? reply.parts.find((p) => p.type === "tool" && p.callId === "call_d3") : undefined
    expect(third).toMatchObject({ type: "tool", state: "error" })
  }))

  it.live("non-interactive (the default): fails without asking", () => Effect.gen(function* () {
    const shell = recordingShell()
    // Would allow if asked, so asking at all would let the 3rd call run.
    const permission = recordingPermission("allow")
    const h = yield* harness([tripleCall(), answer("never reached")], { tools: [shell.tool], permission: permission.layer })
    const { results } = yield* h.provide(turns("List the files"))
    expect(permission.asked.length).toBe(0)
    expect(shell.ran.length).toBe(2)
    expect(h.server.requests.length).toBe(1)
    expect(results[0]!.report.reason).toBe("doom_loop")
    expect(h.events.some((e) => e.type === "incident" && e.detector === "doom-loop" && e.action === "fail-non-interactive")).toBe(true)
  }))

  it.live("3 calls of one tool with different inputs are not a doom loop", () => Effect.gen(function* () {
    const shell = recordingShell()
    const permission = recordingPermission("deny")
    const varied: ScriptedResponse = {
      type: "stream",
      chunks: [1, 2, 3].map((i) => ({ toolCall: { id: `call_d${i}`, name: "bash", arguments: `{"command":"ls dir${i}"}` } }))
    }
    const h = yield* harness([varied, answer("Listed.")], { tools: [shell.tool], permission: permission.layer, config: interactive })
    const { results } = yield* h.provide(turns("List the dirs"))
    expect(permission.asked.length).toBe(0)
    expect(shell.ran.length).toBe(3)
    expect(results[0]!.report.reason).toBe("final")
  }))
})

describe("reasoning-loop crop over HTTP", () => {

  it.live("3 replies with one reasoning are cropped from the next request; the anchor stays; Continue. closes it", () => Effect.gen(function* () {
    const shell = recordingShell()
    const h = yield* harness(loopScript(), { tools: [shell.tool], config: cropOn })
    const { results, stored } = yield* h.provide(turns("Fix the config parser", "Please fix it now"))
    const s = h.server
    expect(s.requests.length).toBe(6)
    // Before the crop the looping replies are sent as usual (two of them: no streak yet).
    expect(toolCallIds(s, 3)).toEqual(["call_anchor", "call_loop1", "call_loop2"])
    expect(reasoningTexts(s, 3)).toContain(LOOP_REASONING)

    // The request after the third: the range is gone, the anchor (the reply before it) stays.
    expect(toolCallIds(s, 4)).toEqual(["call_anchor"])
    expect(toolResultIds(s, 4)).toEqual(["call_anchor"])
    expect(reasoningTexts(s, 4)).not.toContain(LOOP_REASONING)
    expect(reasoningTexts(s, 4)).toContain(ANCHOR_REASONING)
    expect(JSON.stringify(wireMessages(s, 4))).not.toContain("config.json")
    // It would have ended with the anchor: "Continue." is appended, and nothing else is said.
    expect(wireMessages(s, 4).at(-1)?.role).toBe("user")
    expect(userTexts(s, 4)).toEqual(["Fix the config parser", CONTINUE_TEXT])
    expect(results[0]!.report.reason).toBe("final")
    expect(actions(results[0]!, "streak-crop")).toContain("crop")

    // A new user turn (second run, same store): the persisted crop is re-applied.
    expect(toolCallIds(s, 5)).toEqual(["call_anchor"])
    expect(reasoningTexts(s, 5)).not.toContain(LOOP_REASONING)
    expect(assistantTexts(s, 5)).toContain(FINAL)
    expect(userTexts(s, 5).at(-1)).toBe("Please fix it now")
    // The prefix up to the anchor's tool result is byte-for-byte what the previous request sent.
    expect(wireMessages(s, 5).slice(0, 3)).toEqual(wireMessages(s, 4).slice(0, 3))
    expect(results[1]!.report.reason).toBe("final")

    // Nothing was deleted from storage; the marker sits on the user message of the turn.
    const replies = stored.filter((m) => m.role === "assistant")
    for (const id of LOOP_IDS) expect(replies.some((m) => storedToolIds(m).includes(id))).toBe(true)
    const firstUser = stored.find((m) => m.role === "user")
    const crops = firstUser?.role === "user" ? (firstUser.crops ?? []) : []
    expect(crops.length).toBe(1)
    const idOf = (callId: string) => replies.find((m) => storedToolIds(m).includes(callId))?.id
    expect(crops[0]).toMatchObject({ from: idOf("call_loop1"), to: idOf("call_loop3"), truncated: false })
    expect(crops[0]!.key).toMatch(/^reason:[0-9a-f]{16}$/)
  }))

  it.live("a text-only reply inside the range stays in the request", () => Effect.gen(function* () {
    const shell = recordingShell()
    const TEXT_ONLY = "Reading config.json now; the parser chokes on"
    const script: ReadonlyArray<ScriptedResponse> = [
      anchor,
      drift(1, "cat config.json"),
      textStream(TEXT_ONLY, { finish: "length" }),
      drift(2, "cat ./config.json"),
      drift(3, "head -50 config.json"),
      answer(FINAL)
    ]
    const h = yield* harness(script, { tools: [shell.tool], config: cropOn })
    const { results } = yield* h.provide(turns("Fix the config parser"))
    const s = h.server
    expect(s.requests.length).toBe(6)
    expect(toolCallIds(s, 4)).toEqual(["call_anchor", "call_loop1", "call_loop2"])
    expect(toolCallIds(s, 5)).toEqual(["call_anchor"])
    expect(reasoningTexts(s, 5)).not.toContain(LOOP_REASONING)
    expect(assistantTexts(s, 5)).toContain(TEXT_ONLY)
    // The request already ends on a user message (the length continuation): no "Continue.".
    expect(countUser(s, 5, CONTINUE_TEXT)).toBe(0)
    expect(wireMessages(s, 5).at(-1)?.role).toBe("user")
    expect(results[0]!.report.reason).toBe("final")
  }))

  it.live("a streak across a user turn is cropped; the marker goes on the newer user message", () => Effect.gen(function* () {
    const shell = recordingShell()
    const script = [anchor, drift(1, "cat config.json"), drift(2, "cat ./config.json"), drift(3, "head -50 config.json"), answer(FINAL)]
    // Three steps per run: the first run stops (max_steps) in the middle of the streak.
    const config = (c: LoopguardConfig): LoopguardConfig => cropOn({ ...c, loop: { ...c.loop, maxSteps: 3 } })
    const h = yield* harness(script, { tools: [shell.tool], config })
    const { results, stored } = yield* h.provide(turns("Fix the config parser", "Keep going"))
    const s = h.server
    expect(results[0]!.report.reason).toBe("max_steps")
    expect(s.requests.length).toBe(5)
    // Right after the new user message the streak is not yet "newer than the user": no crop.
    expect(toolCallIds(s, 3)).toEqual(["call_anchor", "call_loop1", "call_loop2"])
    expect(toolCallIds(s, 4)).toEqual(["call_anchor"])
    expect(userTexts(s, 4)).toEqual(["Fix the config parser", "Keep going"])
    expect(results[1]!.report.reason).toBe("final")
    const users = stored.filter((m) => m.role === "user")
    expect(users.map((u) => (u.role === "user" ? (u.crops ?? []).length : -1))).toEqual([0, 1])
  }))

  it.live("the text loop records nothing in a step whose request was just cropped", () => Effect.gen(function* () {
    const shell = recordingShell()
    const h = yield* harness(cropThenRepeatScript(), { tools: [shell.tool], config: cropOn })
    const { results } = yield* h.provide(turns("Fix the config parser"))
    const s = h.server
    expect(s.requests.length).toBe(6)
    expect(toolCallIds(s, 4)).toEqual(["call_anchor"])
    expect(countUser(s, 5, TEXT_LOOP_MILD_PROMPT)).toBe(0)
    expect(actions(results[0]!, "text-loop")).toEqual([])
    expect(results[0]!.report.reason).toBe("final")
  }))

  it.live("the same script without the crop does get the text-loop reminder (control for the test above)", () => Effect.gen(function* () {
    const shell = recordingShell()
    const h = yield* harness(cropThenRepeatScript(), { tools: [shell.tool] })
    const { results } = yield* h.provide(turns("Fix the config parser"))
    expect(h.server.requests.length).toBe(6)
    expect(countUser(h.server, 5, TEXT_LOOP_MILD_PROMPT)).toBe(1)
    expect(actions(results[0]!, "text-loop")).toEqual(["mild"])
  }))

  it.live("cropping more than 20 content blocks logs a cache-risk flag; 20 or fewer does not", () => Effect.gen(function* () {
    // Each looping reply is 3 blocks (reasoning 1 + tool call and result 2).
    const cacheRiskFor = (replies: number) =>
      Effect.scoped(
        Effect.gen(function* () {
          const shell = recordingShell()
          const script = [anchor, ...range(replies).map((i) => drift(i + 1, `cat config.json # try ${i}`)), answer(FINAL)]
          const config = (c: LoopguardConfig): LoopguardConfig => ({
            ...c,
            loopStreakRecovery: { ...c.loopStreakRecovery, enabled: true, triggerCount: replies, maxSpan: 64 }
          })
          const h = yield* harness(script, { tools: [shell.tool], config })
          const { results } = yield* h.provide(turns("Fix the config parser"))
          expect(toolCallIds(h.server, replies + 1)).toEqual(["call_anchor"])
          return actions(results[0]!, "streak-crop")
        })
      )
    expect(yield* cacheRiskFor(7)).toEqual(["crop", "cache-risk"])
    expect(yield* cacheRiskFor(6)).toEqual(["crop"])
  }))

  it.live("off by default: the same script is sent uncropped", () => Effect.gen(function* () {
    const shell = recordingShell()
    const h = yield* harness(loopScript(), { tools: [shell.tool] })
    const { results, stored } = yield* h.provide(turns("Fix the config parser", "Please fix it now"))
    const s = h.server
    expect(s.requests.length).toBe(6)
    expect(toolCallIds(s, 4)).toEqual(["call_anchor", ...LOOP_IDS])
    expect(reasoningTexts(s, 4)).toContain(LOOP_REASONING)
    expect(countUser(s, 4, CONTINUE_TEXT)).toBe(0)
    expect(toolCallIds(s, 5)).toEqual(["call_anchor", ...LOOP_IDS])
    expect(actions(results[0]!, "streak-crop")).toEqual([])
    expect(stored.some((m) => m.role === "user" && (m.crops ?? []).length > 0)).toBe(false)
  }))
})
