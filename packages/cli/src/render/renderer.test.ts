import { describe, expect, test } from "bun:test"
import { buildReport } from "@loopguard/core/report"
import type { LoopguardEvent } from "@loopguard/effect"
import { makeRenderer, type OutputMode } from "./renderer.js"
import { colourWanted, makeStyle, stripAnsi } from "./style.js"

const setup = (mode: OutputMode, colour = false, price: { inputPerMTok: number; outputPerMTok: number } | null = null) => {
  let text = ""
  let clock = 0
  const r = makeRenderer({ mode, style: makeStyle(colour), out: (t) => (text += t), price, now: () => clock })
  return { r, text: () => text, tick: (ms: number) => (clock += ms) }
}

const step: ReadonlyArray<LoopguardEvent> = [{ type: "step.started", step: 0, attempt: 1 }]
const report = buildReport({ reason: "final", stepsUsed: 1, tokens: { input: 10, output: 5, total: 15 }, costUsd: null, finalText: "The answer." })

const playTurn = (s: ReturnType<typeof setup>) => {
  s.r.startTurn()
  for (const e of step) s.r.onEvent(e)
  s.r.onPart({ type: "reasoning-delta", text: "Let me think." })
  s.r.onPart({ type: "text-delta", text: "The " })
  s.r.onPart({ type: "text-delta", text: "answer." })
  s.r.onPart({ type: "finish", finish: "stop", usage: { inputTokens: 1000, outputTokens: 200 } })
  s.tick(1500)
  s.r.onEvent({ type: "step.finished", step: 0, outcome: "continue", finish: "stop" })
  s.r.onEvent({ type: "incident", step: 0, detector: "text-repeat", action: "cut", kind: "loop", detail: { period: 4 } })
  s.r.onReport(report)
}

describe("human output", () => {
  test("piped: the reply streams as plain text, then the status line, the banner and the exit line", () => {
    const s = setup("human", false, { inputPerMTok: 1, outputPerMTok: 10 })
    playTurn(s)
    expect(s.text()).toBe(
      [
        "thinking: Let me think.",
        "The answer.",
        "  · step 1 · 1,200 tokens · $0.0030 · 1.5 s",
        "  ! loopguard: The reply started repeating itself (a block of 4 words over and over); loopguard cut the stream there.",
        "── done: finished with an answer (final) · 1 step · 15 tokens · price unknown · 1.5 s",
        ""
      ].join("\n")
    )
    expect(s.text()).not.toContain("\u001b[")
  })
  test("on a colour terminal reasoning is dimmed and banners are coloured; the words are the same", () => {
    const plain = setup("human", false)
    const coloured = setup("human", true)
    playTurn(plain)
    playTurn(coloured)
    // Dimmed piece by piece, as it is let out.
    expect(coloured.text()).toContain("\u001b[2mLet me \u001b[22m\u001b[2mthink.\u001b[22m")
    expect(coloured.text()).toContain("\u001b[33m  ! loopguard:")
    expect(stripAnsi(coloured.text())).toBe(plain.text())
  })
  test("text streamed outside a step (the goal gate's evaluator) is not shown as the answer", () => {
    const s = setup("human")
    s.r.onPart({ type: "text-delta", text: "NOT MET" })
    expect(s.text()).toBe("")
  })
  test("tools show the command and how it ended", () => {
    const s = setup("human")
    s.r.onEvent({ type: "tool.started", step: 0, callId: "c", name: "bash", input: { command: "npm test" } })
    s.r.onEvent({ type: "tool.finished", step: 0, callId: "c", name: "bash", state: "completed", exitCode: 1, durationMs: 12.4 })
    expect(s.text()).toBe("  ⚙ bash npm test\n    ✗ exit 1 (12 ms)\n")
  })
  test("a stopped run says where and what next, counting steps from 1", () => {
    const s = setup("human")
    s.r.onReport(buildReport({ reason: "max_steps", stepsUsed: 3, blockedAt: "step 2: final (exit:max_steps)" }))
    const lines = s.text().split("\n")
    expect(lines[0]).toStartWith("── stopped: reached the step limit (max_steps) · 3 steps · 0 tokens")
    expect(lines[1]).toBe("   stopped at: step 3: final (exit:max_steps)")
    expect(lines[2]).toStartWith("   next: ")
  })
})

test("on a terminal a live status line says what the step waits for, and is erased before anything else", () => {
  let text = ""
  let clock = 0
  const r = makeRenderer({ mode: "human", style: makeStyle(false), out: (t) => (text += t), price: null, now: () => clock, live: true })
  r.startTurn()
  r.onEvent({ type: "step.started", step: 2, attempt: 1 })
  clock += 2000
  r.refresh()
  expect(text).toBe("\r\u001b[2K  · step 3 · 0 tokens · 2.0 s · waiting for the model")
  r.onPart({ type: "text-delta", text: "Checking." })
  r.onEvent({ type: "tool.started", step: 2, callId: "c", name: "bash", input: { command: "make" } })
  r.refresh()
  expect(text.split("\r\u001b[2K").slice(1)).toEqual(["  · step 3 · 0 tokens · 2.0 s · waiting for the model", "Checking.\n  ⚙ bash make\n", "  · step 3 · 0 tokens · 2.0 s · running bash"])
  r.onEvent({ type: "step.finished", step: 2, outcome: "continue", finish: "stop" })
  r.refresh()
  // The step streamed "Checking." and no usage came: about 3 tokens, as the run's meter counts them.
  expect(text.endsWith("\r\u001b[2K  · step 3 · 3 tokens · 2.0 s\n")).toBe(true)
})

/** A live renderer on a fake clock, one step started: what it wrote, and the clock to move. */
const liveStep = (options: { readonly stallLimitMs?: number } = {}) => {
  const w = { text: "", clock: 0 }
  const r = makeRenderer({ mode: "human", style: makeStyle(false), out: (t) => (w.text += t), price: null, now: () => w.clock, live: true, ...options })
  r.startTurn()
  r.onEvent({ type: "step.started", step: 0, attempt: 1 })
  return { r, w }
}

test("a silent model is shown as silent, for how long and until when; mid-reply the line goes below the text", () => {
  const { r, w } = liveStep({ stallLimitMs: 480_000 })
  w.clock += 12_000
  r.refresh()
  expect(w.text).toEndWith("· the model has sent nothing for 12 s (loopguard gives up after 8 min of silence)")
  // Each delta ends a word: a word still arriving is held back until its end shows it is no token.
  r.onPart({ type: "text-delta", text: "Looking at the files " })
  w.clock += 1_000
  const before = w.text
  r.refresh()
  expect(w.text).toBe(before)
  w.clock += 64_000
  r.refresh()
  expect(w.text).toEndWith("Looking at the files \n\r\u001b[2K  · step 1 · 0 tokens · 1 min 17 s · the model has sent nothing for 1 min 5 s (loopguard gives up after 8 min of silence)")
  r.onPart({ type: "text-delta", text: "again. " })
  expect(w.text).toEndWith("of silence)\r\u001b[2Kagain. ")
})

test("a running tool is not the model's silence", () => {
  const { r, w } = liveStep()
  r.onEvent({ type: "tool.started", step: 0, callId: "c", name: "bash", input: { command: "make" } })
  w.clock += 30_000
  r.refresh()
  expect(w.text).toEndWith("· running bash")
})

test("piped (not live), refresh never writes", () => {
  const s = setup("human")
  s.r.onEvent({ type: "step.started", step: 0, attempt: 1 })
  s.r.refresh()
  expect(s.text()).toBe("")
})

test("a secret the model repeats is never shown, even split across deltas; the text around it is", () => {
  let text = ""
  const r = makeRenderer({ mode: "human", style: makeStyle(false), out: (t) => (text += t), price: null, secrets: ["sk-live-1234567890"] })
  r.onEvent({ type: "step.started", step: 0, attempt: 1 })
  for (const piece of ["Your key: sk-li", "ve-12345", "67890, keep it safe."]) r.onPart({ type: "text-delta", text: piece })
  r.onEvent({ type: "step.finished", step: 0, outcome: "continue", finish: "stop" })
  r.line("banner quoting sk-live-1234567890")
  expect(text).toContain("Your key: [REDACTED], keep it safe.\n")
  expect(text).toContain("banner quoting [REDACTED]")
  expect(text).not.toContain("sk-li")
})

test("a credential the model writes (one loopguard was not told of) is never shown either, split across deltas or not", () => {
  let text = ""
  const r = makeRenderer({ mode: "human", style: makeStyle(false), out: (t) => (text += t), price: null, secrets: [] })
  r.onEvent({ type: "step.started", step: 0, attempt: 1 })
  const pieces = ["Use gh", "p_abcdefghijklmnopqrst", "uvwxyz0123456789 and Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", " then stop."]
  for (const piece of pieces) r.onPart({ type: "text-delta", text: piece })
  r.onEvent({ type: "step.finished", step: 0, outcome: "continue", finish: "stop" })
  expect(text).toContain("Use [REDACTED] and Authorization: Bearer [REDACTED] then stop.\n")
  expect(text).not.toContain("ghp_")
  expect(text).not.toContain("eyJ")
})

test("a key too short to be one (a local server's \"none\") is not cut out of the words around it", () => {
  let text = ""
  const r = makeRenderer({ mode: "human", style: makeStyle(false), out: (t) => (text += t), price: null, secrets: ["none", "x"] })
  r.line("budget-exhausted: none of the next steps fit")
  expect(text).toContain("budget-exhausted: none of the next steps fit")
})

test("quiet prints the answer and the exit line only", () => {
  const s = setup("quiet")
  playTurn(s)
  expect(s.text()).toBe("The answer.\n── done: finished with an answer (final) · 1 step · 15 tokens · price unknown · 1.5 s\n")
})

test("json mode prints nothing itself (the caller writes JSON Lines)", () => {
  const s = setup("json")
  playTurn(s)
  s.r.line("a note")
  expect(s.text()).toBe("")
})

test("colour: NO_COLOR wins, FORCE_COLOR asks for it, else only a terminal gets it", () => {
  expect(colourWanted(true, {})).toBe(true)
  expect(colourWanted(false, {})).toBe(false)
  expect(colourWanted(true, { NO_COLOR: "1" })).toBe(false)
  expect(colourWanted(true, { NO_COLOR: "1", FORCE_COLOR: "1" })).toBe(false)
  expect(colourWanted(false, { FORCE_COLOR: "1" })).toBe(true)
  expect(colourWanted(true, { TERM: "dumb" })).toBe(false)
  expect(colourWanted(true, { NO_COLOR: "" })).toBe(true)
})

describe("a chunk of parts", () => {
  test("is written at once, with the same text as part by part; nothing stays held after it", () => {
    const writes: Array<Array<string>> = [[], []]
    const renderers = writes.map((w) => makeRenderer({ mode: "human", style: makeStyle(false), out: (t) => void w.push(t), price: null }))
    const parts = [
      { type: "reasoning-delta", text: "Let me " },
      { type: "reasoning-delta", text: "think." },
      { type: "text-delta", text: "The " },
      { type: "text-delta", text: "answer." }
    ] as const
    for (const r of renderers) r.onEvent({ type: "step.started", step: 0, attempt: 1 })
    const before = writes.map((w) => w.length)
    for (const p of parts) renderers[0]!.onPart(p)
    renderers[1]!.onParts(parts)
    expect(writes[1]!.length - before[1]!).toBe(1)
    expect(writes[0]!.length - before[0]!).toBeGreaterThan(1)
    expect(writes[1]!.join("")).toBe(writes[0]!.join(""))
    // What comes after the chunk is written after it, not held back.
    renderers[1]!.line("after")
    expect(writes[1]!.at(-1)).toBe("after\n")
  })
})

test("a step cut before the server's usage came counts what it streamed, estimated as the run's meter does; so does an attempt asked again", () => {
  const s = setup("human")
  s.r.startTurn()
  s.r.onEvent({ type: "step.started", step: 0, attempt: 1 })
  s.r.onPart({ type: "text-delta", text: "x".repeat(400) })
  s.r.onEvent({ type: "step.started", step: 0, attempt: 2 })
  s.r.onPart({ type: "text-delta", text: "y".repeat(40) })
  s.r.onPart({ type: "tool-input-delta", id: "c1", delta: '{"command":"ls"}' })
  s.r.onEvent({ type: "step.finished", step: 0, outcome: "text-repeat", finish: "none" })
  // 400 characters (100) from the first attempt, then 40 + 16 (14) from the second.
  expect(stripAnsi(s.text())).toContain("  · step 1 · 114 tokens")
  s.r.onEvent({ type: "step.started", step: 1, attempt: 1 })
  s.r.onPart({ type: "text-delta", text: "z".repeat(40) })
  s.r.onPart({ type: "finish", finish: "stop", usage: { inputTokens: 50, outputTokens: 10 } })
  s.r.onEvent({ type: "step.finished", step: 1, outcome: "continue", finish: "stop" })
  // A step with the server's usage counts that, not the estimate.
  expect(stripAnsi(s.text())).toContain("  · step 2 · 174 tokens")
})

test("a finished step counts what the run metered for it (step.finished's tokens: a cut step's prompt too), so the step lines add up to the exit line", () => {
  const s = setup("human")
  s.r.startTurn()
  s.r.onEvent({ type: "step.started", step: 0, attempt: 1 })
  s.r.onPart({ type: "text-delta", text: "x".repeat(400) })
  s.r.onEvent({ type: "step.finished", step: 0, outcome: "text-repeat", finish: "none", tokens: { input: 2000, output: 100, total: 2100, estimated: true } })
  expect(stripAnsi(s.text())).toContain("  · step 1 · 2,100 tokens")
  s.r.onEvent({ type: "step.started", step: 1, attempt: 1 })
  s.r.onPart({ type: "finish", finish: "stop", usage: { inputTokens: 50, outputTokens: 10 } })
  // Until its step.finished says, a step counts what its reply reported.
  s.r.refresh()
  s.r.onEvent({ type: "step.finished", step: 1, outcome: "continue", finish: "stop", tokens: { input: 50, output: 10, total: 60, estimated: false } })
  expect(stripAnsi(s.text())).toContain("  · step 2 · 2,160 tokens")
})

describe("a sub-agent's steps", () => {
  test("each session counts its own steps; a sub-agent's lines are marked and indented; the parent's numbers are its own", () => {
    const s = setup("human")
    const parent = { sessionId: "p" }
    const child = { sessionId: "p/task-0-1" }
    const events: ReadonlyArray<LoopguardEvent> = [
      { ...parent, type: "step.started", step: 0, attempt: 1 },
      { ...parent, type: "tool.started", step: 0, callId: "t1", name: "task", input: { description: "find it" } },
      { ...child, type: "step.started", step: 0, attempt: 1 },
      { ...child, type: "tool.started", step: 0, callId: "s1", name: "bash", input: { command: "ls" } },
      { ...child, type: "tool.finished", step: 0, callId: "s1", name: "bash", state: "completed", exitCode: 0, durationMs: 3 },
      { ...child, type: "step.finished", step: 0, outcome: "continue", finish: "tool-calls", tokens: { input: 90, output: 10, total: 100, estimated: false } },
      { ...child, type: "step.started", step: 1, attempt: 1 },
      { ...child, type: "step.finished", step: 1, outcome: "continue", finish: "stop", tokens: { input: 90, output: 10, total: 100, estimated: false } },
      { ...parent, type: "tool.finished", step: 0, callId: "t1", name: "task", state: "completed", durationMs: 9 },
      { ...parent, type: "step.finished", step: 0, outcome: "continue", finish: "tool-calls", tokens: { input: 90, output: 10, total: 100, estimated: false } },
      { ...parent, type: "step.started", step: 1, attempt: 1 },
      { ...parent, type: "step.finished", step: 1, outcome: "continue", finish: "stop", tokens: { input: 90, output: 10, total: 100, estimated: false } }
    ]
    s.r.startTurn()
    for (const e of events) s.r.onEvent(e)
    expect(s.text().split("\n")).toEqual([
      '  ⚙ task {"description":"find it"}',
      "  ↳ sub-agent p/task-0-1",
      "    ⚙ bash ls",
      "      ✓ exit 0 (3 ms)",
      "    · sub-agent step 1 · 100 tokens · 0.0 s",
      "    · sub-agent step 2 · 200 tokens · 0.0 s",
      "    ✓ done (9 ms)",
      "  · step 1 · 300 tokens · 0.0 s",
      "  · step 2 · 400 tokens · 0.0 s",
      ""
    ])
  })

  test("the next turn's session is the turn's own again (demo: one renderer, a session per scene)", () => {
    const s = setup("human")
    for (const id of ["scene-1", "scene-2"]) {
      s.r.startTurn()
      s.r.onEvent({ sessionId: id, type: "step.started", step: 0, attempt: 1 })
      s.r.onEvent({ sessionId: id, type: "step.finished", step: 0, outcome: "continue", finish: "stop" })
    }
    expect(s.text()).not.toContain("sub-agent")
  })
})
