import { describe, expect, test } from "bun:test"
import { DEFAULT_CAP_POLICY } from "../caps/index.js"
import type { AssistantMessage, AssistantPart, Message } from "../model/index.js"
import type { AfterStep } from "../judge/index.js"
import { judgeCaps, judgeReply, judgeToolCall, takeToolCooldown } from "./caps.js"
import { judgeCompacted, judgeCompactionCap, judgeCompactionFailed, judgeOutputShrink } from "./compaction.js"
import { judgeCrossStepFindings, judgeCrossStepVerdict } from "./cross-step.js"
import { judgeChildPause, judgeOutcome, judgeRollback, judgeStructured } from "./outcome.js"
import { judgeClassification, judgeDecision, judgeGateVerdict } from "./recovery.js"
import { judgeResume, reexamineLastReply } from "./resume.js"
import { counted, exited, initRunState, nextStep, onUserTurn } from "./state.js"
import { judgeDepth, judgeStepStart, judgeStoredPause, judgeUnpricedBudget } from "./start.js"
import { judgeChildRun } from "./subagent.js"
import { judgeCompletionCheck, judgeGoalGateAnswer, judgeGoalGateTurn } from "./gates.js"

const start = (step = 0) => initRunState({ step, currentUserId: "u0", priced: true })
const reply = (parts: ReadonlyArray<AssistantPart>, extra: Partial<AssistantMessage> = {}): AssistantMessage => ({
  role: "assistant",
  id: "a1",
  parentId: "u0",
  parts,
  finish: "stop",
  step: 0,
  usage: { inputTokens: 10, outputTokens: 5 },
  ...extra
})
const noCap = { decision: "proceed" as const, summaryReason: null }
const tags = (j: { readonly actions: ReadonlyArray<{ readonly _tag: string }> }) => j.actions.map((a) => a._tag)
const after = (over: Partial<AfterStep> = {}): AfterStep => ({ incidents: [], crop: null, reminders: [], exit: null, pause: null, ...over })

describe("RunState", () => {
  test("starts unpriced with an unknown cost, keeps only the first exit, and moves step by step", () => {
    expect(initRunState({ step: 2, currentUserId: "u", priced: false }).meter.costUsd).toBeNull()
    const first = exited(start(3), "max_steps")
    expect(exited(first, "final").exit).toEqual({ reason: "max_steps", step: 3 })
    expect(nextStep(start(3)).step).toBe(4)
    expect(counted(counted(start(), "transport", 0), "remind", 2).retries).toEqual({ remind: 2 })
    expect(onUserTurn({ ...start(), recovery: { ...start().recovery, emptyRetries: 2 } }, "u9")).toMatchObject({ currentUserId: "u9", recovery: start().recovery })
  })
})

describe("caps", () => {
  test("a step past the step cap is filed under step-cap and stops the run", () => {
    const used = { ...start(5), meter: { ...start().meter, stepsUsed: 5 } }
    const j = judgeCaps(used, { ...DEFAULT_CAP_POLICY, maxSteps: 5, mode: "hard" })
    expect(tags(j)).toEqual(["FileIncident", "Stop"])
    expect(j.actions[0]).toMatchObject({ incident: { step: 5, detector: "step-cap", action: "stop" } })
    expect(judgeCaps(start(), { ...DEFAULT_CAP_POLICY, maxSteps: 5 }).actions).toEqual([])
  })

  test("a tool past its cap is refused and filed; admitted calls are counted", () => {
    const caps = { maxCallsPerTool: 1, perTool: {} }
    const once = judgeToolCall(start(), "bash", caps)
    expect(once.actions).toEqual([])
    expect(once.state.toolCallCounts).toEqual({ bash: 1 })
    const twice = judgeToolCall(once.state, "bash", caps)
    expect(twice.actions[0]).toMatchObject({ _tag: "RefuseTool", incident: { detector: "tool-cap", action: "refused", detail: { tool: "bash", cap: 1 } } })
  })

  test("the cooldown pauses the tools of as many steps as it has left", () => {
    const cooled = takeToolCooldown({ ...start(), toolCooldown: 2 })
    expect(cooled.state).toMatchObject({ toolCooldown: 1, toolsPausedThisStep: true })
    expect(cooled.paused).toContain("1 more step after this one")
    expect(takeToolCooldown(cooled.state).paused).toContain("0 more steps")
    expect(takeToolCooldown(start())).toEqual({ state: { ...start(), toolsPausedThisStep: false }, paused: undefined })
  })

  test("a reply is metered with what it cost, counted and kept", () => {
    const r = reply([{ type: "text", text: "done" }])
    const next = judgeReply(start(), { reply: r, attempts: 3, incidents: [{ step: 0, detector: "repair", action: "repaired" }], usage: r.usage, price: null }, noCap)
    expect(next).toMatchObject({ lastReply: r, retries: { transport: 2 }, incidents: [{ detector: "repair" }] })
    expect(next.meter).toMatchObject({ stepsUsed: 1, tokens: { total: 15 } })
  })

  test("what the step's replayed attempts streamed is metered with it, as one step", () => {
    const r = reply([{ type: "text", text: "done" }])
    const replayedUsage = [{ outputTokens: 400, estimated: true }, { inputTokens: 30, outputTokens: 70 }]
    const next = judgeReply(start(), { reply: r, attempts: 3, incidents: [], usage: r.usage, replayedUsage, price: null }, noCap)
    expect(next.meter).toMatchObject({ stepsUsed: 1, tokens: { input: 40, output: 475, total: 515, estimated: true } })
  })
})

describe("outcome", () => {
  test("a pause is announced, filed and stops; a denied doom loop stops; a summary step ends the run", () => {
    const paused = judgeOutcome(start(), { type: "paused", incident: { kind: "bash_retry" } }, noCap)
    expect(tags(paused)).toEqual(["AnnouncePause", "FileIncident", "Stop"])
    expect(paused.actions[1]).toMatchObject({ incident: { detector: "bash-retry", action: "pause" } })
    expect(judgeOutcome(start(), { type: "stop", reason: "denied" }, noCap).actions).toEqual([{ _tag: "Stop", reason: "doom_loop", error: { tag: "DoomLoopError", message: "denied" } }])
    const summary = judgeOutcome(start(), { type: "continue" }, { decision: { type: "summary", reason: "budget_tokens" }, summaryReason: "budget_tokens" })
    expect(summary.actions).toEqual([{ _tag: "Stop", reason: "budget_tokens" }])
  })

  test("a child's pause is handed up once", () => {
    const j = judgeChildPause({ ...start(), childPause: { detector: "bash-retry", detail: { detail: "x" } } })
    expect(tags(j)).toEqual(["AnnouncePause", "FileIncident", "Stop"])
    expect(j.state.childPause).toBeNull()
    expect(judgeChildPause(start()).actions).toEqual([])
  })

  test("a rollback takes the reply back; at the cap the run ends", () => {
    const trigger = { kind: "format-leak" as const, evidence: "x" } as never
    expect(judgeRollback(start(), null, reply([]), 3).actions).toEqual([])
    expect(tags(judgeRollback(start(), { action: "rollback", trigger }, reply([]), 3))).toEqual(["FileIncident", "TakeBack"])
    const ended = judgeRollback(start(), { action: "end-loop", trigger }, reply([]), 3)
    expect(ended.actions[1]).toMatchObject({ _tag: "Stop", reason: "rollback_cap", error: { message: "3 consecutive rollbacks (format-leak)" } })
  })

  test("a completed structured-output call is the result", () => {
    const call: AssistantPart = { type: "tool", callId: "c1", name: "structured_output", input: { ok: true }, state: "completed" } as AssistantPart
    const j = judgeStructured(start(), reply([call]), "structured_output")
    expect(j.state.structured).toEqual({ value: { ok: true } })
    expect(tags(j)).toEqual(["Recovered", "Stop"])
    expect(judgeStructured(start(), reply([call]), null).actions).toEqual([])
  })
})

describe("recovery", () => {
  test("an empty reply is classified, reminded and filed; the reminder is the last action", () => {
    const empty = reply([], { finish: "stop" })
    const classified = judgeClassification(start(), { reply: empty, cutForRepetition: false, structuredOutput: false, role: "main", limits: {} })
    expect(tags(classified)).toEqual(["Classified"])
    expect(classified.decided.action.type).toBe("remind")
    const decided = judgeDecision(classified.state, empty, classified.decided)
    expect(tags(decided)).toEqual(["Recovered", "FileIncident", "Remind"])
  })

  test("a final answer is only announced: the host runs the finish gates", () => {
    const done = reply([{ type: "text", text: "All done." }])
    const classified = judgeClassification(start(), { reply: done, cutForRepetition: false, structuredOutput: false, role: "main", limits: {} })
    expect(classified.decided.action.type).toBe("final")
    expect(tags(judgeDecision(classified.state, done, classified.decided))).toEqual(["Recovered", "PassFinishGates"])
  })

  test("the gates' verdicts: accept ends final, continue reminds, exit stops with its reason", () => {
    expect(judgeGateVerdict(start(), { type: "accept" }).actions).toEqual([{ _tag: "Stop", reason: "final" }])
    expect(tags(judgeGateVerdict(start(), { type: "continue", kind: "goal-gate", text: "not yet" }))).toEqual(["Remind"])
    const exit = judgeGateVerdict(start(), { type: "exit", reason: "goal_gate_cap", error: { tag: "GoalGateCapError", message: "m" } })
    expect(exit.actions[0]).toMatchObject({ _tag: "Stop", reason: "goal_gate_cap" })
  })
})

describe("cross-step", () => {
  test("findings are filed with Try-Best's notes and the crop; the compaction flag is spent", () => {
    const note = { kind: "bash_retry", step: 2 } as never
    const j = judgeCrossStepFindings({ ...start(), compactedSinceLastStep: true }, after({ incidents: [{ step: 1, detector: "loop", action: "note" }], crop: { on: "u0", marker: {} as never } }), [note])
    expect(tags(j)).toEqual(["FileIncident", "FileIncident", "Crop"])
    expect(j.actions[1]).toMatchObject({ incident: { detector: "bash-retry", action: "note" } })
    expect(j.state.compactedSinceLastStep).toBe(false)
  })

  test("verdicts: pause, exit, the breaker's rungs (reroute only once, only with a fallback), reminders", () => {
    const breaker = { cooldownSteps: 2, reroute: { from: "m", to: "f" } }
    const j = judgeCrossStepVerdict(start(), after({ pause: { kind: "stall" }, reminders: [{ kind: "loop-remind", text: "t" }], breakerTrip: "reroute" }), breaker)
    expect(tags(j)).toEqual(["AnnouncePause", "Stop", "CoolDownTools", "SwitchModel", "Remind"])
    expect(tags(judgeCrossStepVerdict({ ...start(), rerouted: true }, after({ breakerTrip: "reroute" }), breaker))).toEqual(["CoolDownTools"])
    expect(tags(judgeCrossStepVerdict(start(), after({ breakerTrip: "reroute" }), { ...breaker, reroute: null }))).toEqual(["CoolDownTools"])
  })
})

describe("compaction", () => {
  test("the cap is filed once; failures and shrinks count toward it", () => {
    const capped = judgeCompactionCap({ ...start(), compactions: 2 }, 2, { reason: "near-limit" })
    expect(capped.allowed).toBe(false)
    expect(tags(capped)).toEqual(["FileIncident"])
    expect(judgeCompactionCap(capped.state, 2, {}).actions).toEqual([])
    expect(judgeCompactionCap(start(), 2, {}).allowed).toBe(true)
    expect(judgeCompactionFailed(start(), {}, "HTTP 500").state.compactions).toBe(1)
    const shrunk = judgeOutputShrink(start(), { maxChars: 100, keepRecent: 2 }, {}, 3)
    expect(shrunk.state).toMatchObject({ compactions: 1, outputShrink: { maxChars: 100, keepRecent: 2 }, retries: { "output-shrink": 1 } })
  })

  test("a summary costs tokens, not a step, and is stored before it is filed", () => {
    const j = judgeCompacted(start(), { why: {}, summary: "s", usage: { inputTokens: 100, outputTokens: 10 }, price: null, range: { from: "a", to: "b" }, replaced: 4 })
    expect(j.state.meter).toMatchObject({ stepsUsed: 0, tokens: { total: 110 } })
    expect(j.state).toMatchObject({ compactions: 1, compactedSinceLastStep: true, retries: { compaction: 1 } })
    expect(tags(j)).toEqual(["AppendCompaction", "FileIncident"])
  })
})

describe("resume and sub-agents", () => {
  test("a resumed session ending on a final answer ends without a request", () => {
    const done = reply([{ type: "text", text: "All done." }])
    const { reply: last, verdict } = reexamineLastReply({ history: [{ role: "user", id: "u0", text: "go" }, done], currentUserId: "u0", limits: {}, role: "main" })
    expect(verdict.type).toBe("final")
    const j = judgeResume(start(), last, verdict)
    expect(tags(j)).toEqual(["FileIncident", "Stop"])
    expect(j.state.lastReply).toBe(done)
    expect(judgeResume(start(), null, { type: "request" }).actions).toEqual([])
  })

  test("a resumed session ending on a reply that failed half-way asks again, without it; one that made calls keeps them", () => {
    const failed = { ...reply([{ type: "text", text: "Start" }]), error: { message: "overloaded", status: 503 } } as AssistantMessage
    const history: ReadonlyArray<Message> = [{ role: "user", id: "u0", text: "go" }, failed]
    const { reply: last, verdict } = reexamineLastReply({ history, currentUserId: "u0", limits: {}, role: "main" })
    expect(verdict).toEqual({ type: "request", exclude: "rollback" })
    const j = judgeResume(start(), last, verdict)
    expect(tags(j)).toEqual(["FileIncident", "Exclude"])
    expect(j.actions[1]).toMatchObject({ messageId: failed.id, reason: "rollback" })
    const withCall = { ...reply([{ type: "tool", callId: "c1", name: "bash", input: { command: "ls" }, state: "completed", output: "a" }]), error: { message: "reset" } } as AssistantMessage
    expect(reexamineLastReply({ history: [history[0]!, withCall], currentUserId: "u0", limits: {}, role: "main" }).verdict).toEqual({ type: "request" })
  })

  test("a finished child joins the meter, the summaries and, paused, the parent's turn", () => {
    const summary = { sessionId: "s/task-0-1", step: 0, depth: 1, status: "paused", reason: "try_best_paused", stepsUsed: 2, tokens: { input: 5, output: 5, total: 10 }, costUsd: null } as const
    const j = judgeChildRun(start(), { summary, budget: { maxSteps: 3 }, pause: { detector: "bash-retry", detail: {} } })
    expect(j.state.meter).toMatchObject({ stepsUsed: 2, tokens: { total: 10 } })
    expect(j.state.subagents).toEqual([summary])
    expect(j.state.childPause).toEqual({ detector: "bash-retry", detail: {} })
    expect(j.actions[0]).toMatchObject({ incident: { detector: "subagent", action: "try_best_paused", detail: { budget: { maxSteps: 3 } } } })
  })
})

describe("start", () => {
  test("a replay past its recorded steps ends, a cancel stops, the rollback cap stops only when enforcing", () => {
    const facts = { maxSteps: 2, cancelled: null, rollbackCapReached: false }
    expect(judgeStepStart(start(), facts).actions).toEqual([])
    expect(tags(judgeStepStart({ ...start(), step: 2 }, facts))).toEqual(["EndReplay"])
    const cancelled = judgeStepStart(start(), { ...facts, cancelled: { error: { tag: "CancelledError", message: "Ctrl-C" } } })
    expect(cancelled.actions).toEqual([{ _tag: "Stop", reason: "cancelled", error: { tag: "CancelledError", message: "Ctrl-C" } }])
    const capped = judgeStepStart(start(), { ...facts, rollbackCapReached: true })
    expect(capped.actions[0]).toMatchObject({ _tag: "Enforce", actions: [{ _tag: "Stop", reason: "rollback_cap" }] })
  })

  test("the depth cap, a stored pause and an unpriced cost cap", () => {
    expect(judgeDepth(start(), 1, 1).actions).toEqual([])
    expect(tags(judgeDepth(start(), 2, 1))).toEqual(["FileIncident", "Stop"])
    const pause = judgeStoredPause(start(), { step: 3, incident: { kind: "bash_retry" } })
    expect(pause.actions[0]).toMatchObject({ _tag: "Enforce", actions: [{ _tag: "AnnouncePause" }, { _tag: "FileIncident" }, { _tag: "Stop", reason: "try_best_paused" }] })
    expect(judgeUnpricedBudget(start(), "m", 1, true).actions).toEqual([])
    expect(judgeUnpricedBudget(start(), "m", null, false).actions).toEqual([])
    expect(judgeUnpricedBudget(start(), "m", 1, false).actions[0]).toMatchObject({ _tag: "Enforce", actions: [{ incident: { detector: "budget", action: "warn" } }] })
  })
})

describe("finish gates", () => {
  test("a failing completion check is fed back until its cap, then ends the run; a pass goes on to the goal gate", () => {
    const failed = { ok: false, exitCode: 1, output: "1 failed" }
    const first = judgeCompletionCheck(start(), "npm test", 2, failed)
    expect(first.verdict).toMatchObject({ type: "continue", kind: "completion-check" })
    expect(first.actions[0]).toMatchObject({ incident: { detector: "completion-check", action: "failed", detail: { command: "npm test", exitCode: 1 } } })
    const second = judgeCompletionCheck(first.state, "npm test", 2, failed)
    expect(second.verdict).toEqual({ type: "exit", reason: "completion_check_failed", error: { tag: "CompletionCheckError", message: "`npm test` still fails after 2 attempts" } })
    const passed = judgeCompletionCheck(start(), "npm test", 2, { ok: true, exitCode: 0, output: "" })
    expect(passed.verdict).toBeNull()
    expect(passed.state.completionFailures).toBe(0)
  })

  test("the goal gate is asked until its cap; its answer is filed with the call's number", () => {
    const turn = judgeGoalGateTurn(start(), 1)
    expect(turn.verdict).toBeNull()
    expect(turn.state.goalGateChecks).toBe(1)
    const unmet = judgeGoalGateAnswer(turn.state, { met: false, understood: true, reason: "the test still fails" })
    expect(unmet.verdict).toMatchObject({ type: "continue", kind: "goal-gate" })
    expect(unmet.actions[0]).toMatchObject({ incident: { detector: "goal-gate", action: "not-met", detail: { check: 1 } } })
    expect(judgeGoalGateTurn(turn.state, 1).verdict).toMatchObject({ type: "exit", reason: "goal_gate_cap", error: { message: "the goal gate judged the goal unmet 1 times" } })
    expect(judgeGoalGateAnswer(turn.state, { met: true, understood: false, reason: "?" }).actions[0]).toMatchObject({ incident: { action: "unclear-accepted" } })
  })
})
