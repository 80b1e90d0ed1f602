import { describe, expect, test } from "bun:test"
import fc from "fast-check"
import type { FinishReason } from "../model/stream.js"
import type { StepClass, StepClassification } from "./classify-step.js"
import { STEP_CLASSES } from "./classify-step.js"
import type { RecoveryAction, RecoveryInput, RecoveryState } from "./recovery-policy.js"
import { DEFAULT_RECOVERY_LIMITS, decideRecovery, initRecovery, onNewUserTurn } from "./recovery-policy.js"
import { reminderText } from "./reminders.js"

const cls = (c: StepClass, degraded?: boolean): StepClassification =>
  degraded === undefined ? { class: c, reason: "test" } : { class: c, reason: "test", degraded }

const input = (classification: StepClassification, over: Partial<RecoveryInput> = {}): RecoveryInput => ({
  classification,
  pendingClientTool: false,
  outcome: "normal",
  structuredOutput: false,
  role: "main",
  ...over
})

/** Feed the same step n times, returning every action and the final state. */
const run = (n: number, make: () => RecoveryInput, start: RecoveryState = initRecovery()) => {
  let state = start
  const actions: RecoveryAction[] = []
  for (let i = 0; i < n; i++) {
    const d = decideRecovery(state, make())
    state = d.state
    actions.push(d.action)
  }
  return { state, actions }
}

const types = (actions: ReadonlyArray<RecoveryAction>) => actions.map((a) => (a.type === "remind" ? `remind:${a.kind}` : a.type === "exit" ? `exit:${a.reason}` : a.type))

describe("length", () => {
  test("three continuations, the fourth truncation exits with OutputLengthError", () => {
    const { actions } = run(4, () => input(cls("unfinished"), { finish: "length" }))
    expect(types(actions)).toEqual(["remind:length-continue", "remind:length-continue", "remind:length-continue", "exit:output_length"])
    const last = actions[3]
    expect(last.type === "exit" && last.error?.tag).toBe("OutputLengthError")
  })

  test("length is handled before classification: a final-looking truncated reply is continued", () => {
    const d = decideRecovery(initRecovery(), input(cls("final"), { finish: "length" }))
    expect(d.action.type).toBe("remind")
    expect(d.action.type === "remind" && d.action.text).toBe(reminderText("length-continue", "main"))
  })

  test("a pending client tool call is never continued with a reminder", () => {
    const d = decideRecovery(initRecovery(), input(cls("continue"), { finish: "length", pendingClientTool: true }))
    expect(d.action).toEqual({ type: "next-step" })
    expect(d.state).toEqual(initRecovery())
  })

  test("a step that made a client tool call is never length-continued and spends no budget, however often", () => {
    const { actions, state } = run(5, () => input(cls("continue"), { finish: "length", madeClientToolCall: true }))
    expect(types(actions)).toEqual(["next-step", "next-step", "next-step", "next-step", "next-step"])
    expect(state.lengthContinuations).toBe(0)
  })

  test("an unfinished stream shares the length counter", () => {
    let { state } = run(2, () => input(cls("unfinished"), { finish: "length" }))
    const third = decideRecovery(state, input(cls("unfinished"), { finish: "unknown" }))
    expect(third.action.type === "remind" && third.action.text).toBe(reminderText("unfinished-stream", "main"))
    // Its own kind: the banner and the report's retries say no finish reason came, not the length limit.
    expect(third.action.type === "remind" && third.action.kind).toBe("unfinished-stream")
    state = third.state
    expect(decideRecovery(state, input(cls("unfinished"), { finish: "unknown" })).action.type).toBe("exit")
  })

  test("the bound is configurable", () => {
    const { actions } = run(2, () => input(cls("unfinished"), { finish: "length", limits: { lengthContinuations: 1 } }))
    expect(types(actions)).toEqual(["remind:length-continue", "exit:output_length"])
  })
})

describe("think-only and invalid share one counter", () => {
  test("think-only twice then an answer is fine", () => {
    const { state, actions } = run(2, () => input(cls("think-only")))
    expect(types(actions)).toEqual(["remind:think-only", "remind:think-only"])
    expect(decideRecovery(state, input(cls("final", false))).action).toEqual({ type: "final", degraded: false })
  })

  test("three think-only replies exit think_only", () => {
    const { actions } = run(3, () => input(cls("think-only")))
    expect(types(actions)).toEqual(["remind:think-only", "remind:think-only", "exit:think_only"])
  })

  test("think-only then invalid then invalid exits invalid_output (shared budget)", () => {
    const a = decideRecovery(initRecovery(), input(cls("think-only")))
    const b = decideRecovery(a.state, input(cls("invalid")))
    const c = decideRecovery(b.state, input(cls("invalid")))
    expect(types([a.action, b.action, c.action])).toEqual(["remind:think-only", "remind:invalid", "exit:invalid_output"])
    expect(c.action.type === "exit" && c.action.error?.message).toBe("empty output")
  })

  test("the reminder is worded per role", () => {
    const texts = (["main", "subagent", "checkpoint"] as const).map((role) => {
      const a = decideRecovery(initRecovery(), input(cls("think-only"), { role })).action
      return a.type === "remind" ? a.text : ""
    })
    expect(texts[0]).toContain("final answer")
    expect(texts[1]).toContain("parent agent")
    expect(texts[2]).toContain("CHECKPOINT_COMPLETE")
  })
})

describe("tool-call recoveries", () => {
  test("text-tool-call excludes the reply, twice, then exits", () => {
    const { actions } = run(3, () => input(cls("text-tool-call"), { finish: "tool-calls" }))
    expect(types(actions)).toEqual(["remind:text-tool-call", "remind:text-tool-call", "exit:text_tool_call"])
    expect(actions[0].type === "remind" && actions[0].exclude).toBe("text-tool-call")
    expect(actions[2].type === "exit" && actions[2].error?.tag).toBe("TextToolCallError")
  })

  test("dropped-tool-call is bounded and ends with dropped_tool_call", () => {
    const { actions } = run(3, () => input(cls("dropped-tool-call"), { finish: "tool-calls" }))
    expect(types(actions)).toEqual(["remind:dropped-tool-call", "remind:dropped-tool-call", "exit:dropped_tool_call"])
    expect(actions[0].type === "remind" && "exclude" in actions[0]).toBe(false)
  })
})

describe("exits without retry", () => {
  test("failed keeps an existing error", () => {
    const d = decideRecovery(initRecovery(), input(cls("failed"), { error: { name: "APICallError", message: "401 bad key", status: 401 } }))
    expect(d.action).toMatchObject({ type: "exit", reason: "model_error", error: { tag: "APICallError", message: "401 bad key" } })
    // And says it for people, with what to do.
    expect(d.action).toMatchObject({ error: { uiMessage: expect.stringContaining("check the API key") } })
  })
  test("failed on a recorded cancel (Ctrl-C) ends cancelled, not model_error", () => {
    const d = decideRecovery(initRecovery(), input(cls("failed"), { error: { name: "CancelledError", message: "cancelled: interrupted before the reply finished" } }))
    expect(d.action).toEqual({ type: "exit", reason: "cancelled", error: { tag: "CancelledError", message: "cancelled: interrupted before the reply finished" } })
    const aborted = decideRecovery(initRecovery(), input(cls("failed"), { error: { name: "AbortError", message: "aborted", aborted: true } }))
    expect(aborted.action).toMatchObject({ type: "exit", reason: "cancelled" })
  })

  test("failed without an error records ModelError", () => {
    const d = decideRecovery(initRecovery(), input(cls("failed"), { finish: "error" }))
    expect(d.action.type === "exit" && d.action.error?.tag).toBe("ModelError")
  })
  test("filtered exits content_filter at once", () => {
    const d = decideRecovery(initRecovery(), input(cls("filtered"), { finish: "content-filter" }))
    expect(d.action.type === "exit" && [d.action.reason, d.action.error?.tag]).toEqual(["content_filter", "ContentFilterError"])
  })
})

describe("structured output", () => {
  test("final, think-only and invalid are asked for the structured-output tool, at most twice", () => {
    const seq: StepClass[] = ["final", "think-only", "invalid"]
    let state = initRecovery()
    const actions: RecoveryAction[] = []
    for (const c of seq) {
      const d = decideRecovery(state, input(cls(c, c === "final" ? false : undefined), { structuredOutput: true }))
      state = d.state
      actions.push(d.action)
    }
    expect(types(actions)).toEqual(["remind:structured-output", "remind:structured-output", "exit:structured_output"])
    expect(state.emptyRetries).toBe(0)
  })
})

describe("text repeat", () => {
  test("REMIND, then REPLAN, then exit with Text repetition detected", () => {
    const { actions } = run(3, () => input(cls("continue"), { outcome: "text-repeat" }))
    expect(types(actions)).toEqual(["remind:text-repeat-remind", "remind:text-repeat-replan", "exit:text_repeat"])
    expect(actions[1].type === "remind" && actions[1].text).toContain("MUST completely replan")
    expect(actions[2].type === "exit" && actions[2].error?.message).toBe("Text repetition detected")
  })
  test("text-repeat wins over a pending tool and over length", () => {
    const d = decideRecovery(initRecovery(), input(cls("continue"), { outcome: "text-repeat", pendingClientTool: true, finish: "length" }))
    expect(d.action.type === "remind" && d.action.kind).toBe("text-repeat-remind")
  })
})

describe("turn boundaries and totality", () => {
  test("a new user turn resets every counter", () => {
    let { state } = run(2, () => input(cls("think-only")))
    state = run(3, () => input(cls("unfinished"), { finish: "length" }), state).state
    state = run(2, () => input(cls("continue"), { outcome: "text-repeat" }), state).state
    expect(state).not.toEqual(initRecovery())
    state = onNewUserTurn(state)
    expect(state).toEqual(initRecovery())
    expect(decideRecovery(state, input(cls("think-only"))).action.type).toBe("remind")
  })

  test("continue and final never touch the counters", () => {
    const s = initRecovery()
    expect(decideRecovery(s, input(cls("continue"))).state).toBe(s)
    expect(decideRecovery(s, input(cls("final", true))).action).toEqual({ type: "final", degraded: true })
  })

  test("any sequence of steps ends within the summed bounds and the state stays serializable", () => {
    const finishArb = fc.constantFrom<FinishReason | undefined>("stop", "length", "tool-calls", "unknown", undefined)
    const stepArb = fc.record({
      c: fc.constantFrom(...STEP_CLASSES.filter((c) => c !== "continue" && c !== "final")),
      finish: finishArb,
      repeat: fc.boolean()
    })
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 20, maxLength: 20 }), (steps) => {
        let state = initRecovery()
        let reminders = 0
        for (const s of steps) {
          const over: Partial<RecoveryInput> = { outcome: s.repeat ? "text-repeat" : "normal" }
          const d = decideRecovery(state, input(cls(s.c), s.finish === undefined ? over : { ...over, finish: s.finish }))
          expect(JSON.parse(JSON.stringify(d.state))).toEqual(d.state)
          state = d.state
          if (d.action.type === "exit") return
          expect(d.action.type).toBe("remind")
          reminders++
        }
        const bound = Object.values(DEFAULT_RECOVERY_LIMITS).reduce((a, b) => a + b, 0)
        expect(reminders).toBeLessThanOrEqual(bound)
      })
    )
  })
})
