import { describe, expect, test } from "bun:test"
import type { AssistantMessage } from "../../model/index.js"
import { resolveTryBestOptions } from "../../try-best/index.js"
import { DEFAULT_JUDGE_CONFIG, type JudgeConfig } from "../judge-config.js"
import { tryBestOptionsOf } from "../try-best-options.js"
import { fileChangesOf, StallDetector } from "./stall.js"
import type { StepVerdict } from "./step-detector.js"
import { bashReply, factsOf } from "./test-facts.js"

const reading = (i: number): AssistantMessage => bashReply(i, "cat src/a.ts", { state: "completed", output: "x", exitCode: 0 })
const config = (enabled: boolean): JudgeConfig => ({ ...DEFAULT_JUDGE_CONFIG, stall: { ...DEFAULT_JUDGE_CONFIG.stall, enabled, noFileChangeSteps: 3 } })
const run = (d: StallDetector, n: number): Array<StepVerdict> => Array.from({ length: n }, (_, i) => d.push(factsOf([], i + 1, { reply: reading(i) })))

describe("StallDetector", () => {
  test("enabled: steps without a file change pause the turn, if nothing earlier did", () => {
    const signalled = run(new StallDetector(config(true), false), 5).find((v) => (v.incidents ?? []).length > 0)
    expect(signalled?.incidents?.[0]).toMatchObject({ detector: "stall-no-file-change", action: "pause" })
    expect(signalled?.pauseIfNone).toMatchObject({ kind: "stall-no-file-change" })
    expect(signalled?.pause).toBeUndefined()
  })

  test("shadow mode warns and asks for no pause when the signals are off", () => {
    const verdicts = run(new StallDetector(config(false), true), 5)
    const actions = verdicts.flatMap((v) => v.incidents ?? []).map((i) => i.action)
    expect(actions.length).toBeGreaterThan(0)
    expect(new Set(actions)).toEqual(new Set(["warn"]))
    expect(verdicts.some((v) => v.pauseIfNone !== undefined)).toBe(false)
  })

  test("fileChangesOf: a diffed edit names its file; a writing shell command wrote files unnamed", () => {
    const kinds = resolveTryBestOptions(tryBestOptionsOf(DEFAULT_JUDGE_CONFIG))
    const edit = { type: "tool" as const, callId: "e", name: "edit", input: { path: "src/a.ts" }, state: "completed" as const, output: "", path: "src/a.ts", diff: "-a\n+b" }
    const shell = { type: "tool" as const, callId: "s", name: "bash", input: { command: "echo x > out.txt" }, state: "completed" as const, output: "", exitCode: 0 }
    expect(fileChangesOf([edit], kinds)).toEqual({ changedFiles: ["src/a.ts"], wroteFiles: false })
    expect(fileChangesOf([shell], kinds)).toEqual({ changedFiles: [], wroteFiles: true })
  })
})
