import { describe, expect, test } from "bun:test"
import fc from "fast-check"
import {
  DEFAULT_STALL_OPTIONS,
  StallMonitor,
  consumeStall,
  initStall,
  type StallOptionsInput,
  type StepSummary
} from "./stall-signals.js"

const quiet = (step: number, extra: Partial<StepSummary> = {}): StepSummary => ({
  step,
  changedFiles: [],
  tokens: 0,
  verificationImproved: false,
  ...extra
})

/** Everything off but the rule under test. */
const onlyRule = (rule: keyof StallOptionsInput, settings: StallOptionsInput = {}): StallOptionsInput => ({
  noFileChange: { enabled: false },
  compactions: { enabled: false },
  cost: { enabled: false },
  artefacts: { enabled: false },
  spendFlat: { enabled: false },
  [rule]: { enabled: true, ...settings[rule] }
})

const feed = (m: StallMonitor, steps: ReadonlyArray<StepSummary>): Array<string> =>
  steps.flatMap((s) => m.consume(s).map((i) => `${i.step}:${i.kind}`))

describe("defaults", () => {
  test("the documented defaults", () => {
    expect(DEFAULT_STALL_OPTIONS.noFileChange).toEqual({ enabled: true, steps: 30 })
    expect(DEFAULT_STALL_OPTIONS.compactions).toEqual({ enabled: true, limit: 5 })
    expect(DEFAULT_STALL_OPTIONS.cost.fraction).toBe(0.8)
    expect(DEFAULT_STALL_OPTIONS.cost.budgetUsd).toBeUndefined()
    expect(DEFAULT_STALL_OPTIONS.spendFlat.window).toBe(10)
  })
})

describe("no file change", () => {
  test("fires at the 30th idle step, then backs off: 60 and 120 idle steps later", () => {
    const m = new StallMonitor(onlyRule("noFileChange"))
    const steps = Array.from({ length: 210 }, (_, i) => quiet(i))
    expect(feed(m, steps)).toEqual(["29:stall-no-file-change", "89:stall-no-file-change", "209:stall-no-file-change"])
  })
  test("a changed file resets the back-off", () => {
    const m = new StallMonitor(onlyRule("noFileChange", { noFileChange: { steps: 3 } }))
    const steps = [quiet(0), quiet(1), quiet(2), quiet(3, { changedFiles: ["a.ts"] }), quiet(4), quiet(5), quiet(6)]
    expect(feed(m, steps)).toEqual(["2:stall-no-file-change", "6:stall-no-file-change"])
  })
  test("a changed file restarts the count", () => {
    const m = new StallMonitor(onlyRule("noFileChange", { noFileChange: { steps: 3 } }))
    const steps = [quiet(0), quiet(1), quiet(2, { changedFiles: ["a.ts"] }), quiet(3), quiet(4), quiet(5)]
    expect(feed(m, steps)).toEqual(["5:stall-no-file-change"])
  })
  test("a shell command that wrote files (paths unknown) restarts the count too, and names no artefact", () => {
    const m = new StallMonitor(onlyRule("noFileChange", { noFileChange: { steps: 3 } }))
    const steps = [quiet(0), quiet(1), quiet(2, { wroteFiles: true }), quiet(3), quiet(4), quiet(5)]
    expect(feed(m, steps)).toEqual(["5:stall-no-file-change"])
    expect(m.state.changed).toEqual([])
  })
  test("off means off", () => {
    const m = new StallMonitor({ ...onlyRule("noFileChange"), noFileChange: { enabled: false, steps: 1 } })
    expect(feed(m, [quiet(0), quiet(1)])).toEqual([])
  })
})

describe("compactions", () => {
  test("fires at the 5th compaction and every one after", () => {
    const m = new StallMonitor(onlyRule("compactions"))
    const steps = Array.from({ length: 8 }, (_, i) => quiet(i, { compaction: i !== 2 }))
    expect(feed(m, steps)).toEqual(["5:stall-compactions", "6:stall-compactions", "7:stall-compactions"])
  })
  test("off means off", () => {
    const m = new StallMonitor({ ...onlyRule("compactions"), compactions: { enabled: false, limit: 1 } })
    expect(feed(m, [quiet(0, { compaction: true })])).toEqual([])
  })
})

describe("cost", () => {
  test("silent without a budget", () => {
    const m = new StallMonitor(onlyRule("cost"))
    expect(feed(m, [quiet(0, { costUsd: 1e6 })])).toEqual([])
  })
  test("fires once when the session's cost reaches 80% of the budget", () => {
    const m = new StallMonitor(onlyRule("cost", { cost: { budgetUsd: 10 } }))
    const steps = [quiet(0, { costUsd: 5 }), quiet(1, { costUsd: 2.99 }), quiet(2, { costUsd: 0.01 }), quiet(3, { costUsd: 5 })]
    expect(feed(m, steps)).toEqual(["2:stall-cost"])
  })
  test("just under the fraction does not fire", () => {
    const m = new StallMonitor(onlyRule("cost", { cost: { budgetUsd: 10 } }))
    expect(feed(m, [quiet(0, { costUsd: 7.99 })])).toEqual([])
  })
  test("off means off", () => {
    const m = new StallMonitor(onlyRule("cost", { cost: { budgetUsd: 1, enabled: false } }))
    expect(feed(m, [quiet(0, { costUsd: 5 })])).toEqual([])
  })
})

describe("required artefacts", () => {
  const required = { artefacts: { required: ["REPORT.md", "out/**/*.json"] } }

  test("missing on a final step fires with the missing globs", () => {
    const m = new StallMonitor(onlyRule("artefacts", required))
    const incidents = m.consume(quiet(0, { final: true, changedFiles: ["src/a.ts"] }))
    expect(incidents.map((i) => i.kind)).toEqual(["stall-artefact-missing"])
    expect(incidents[0]!.detail).toContain("REPORT.md, out/**/*.json")
  })

  test("paths changed earlier in the session count; non-final steps never fire", () => {
    const m = new StallMonitor(onlyRule("artefacts", required))
    expect(feed(m, [quiet(0, { changedFiles: ["./REPORT.md"] }), quiet(1, { changedFiles: ["out/x/y.json"] }), quiet(2, { final: true })])).toEqual([])
  })

  test("exists() satisfies a literal path but never a wildcard", () => {
    const exists = (p: string) => p === "REPORT.md" || p === "out/a.json"
    const m = new StallMonitor(onlyRule("artefacts", required), { exists })
    const incidents = m.consume(quiet(0, { final: true }))
    expect(incidents.map((i) => i.detail)).toEqual(["stall: the reply says the work is done but required artefacts are missing: out/**/*.json."])
  })

  test("absolute changed paths under root meet relative globs", () => {
    const m = new StallMonitor(onlyRule("artefacts", { artefacts: { required: ["REPORT.md"], root: "/work/repo" } }))
    expect(feed(m, [quiet(0, { changedFiles: ["/work/repo/REPORT.md"], final: true })])).toEqual([])
  })

  test("off, or nothing required, means silent", () => {
    expect(feed(new StallMonitor({ ...onlyRule("artefacts", required), artefacts: { enabled: false, required: ["x"] } }), [quiet(0, { final: true })])).toEqual([])
    expect(feed(new StallMonitor(onlyRule("artefacts")), [quiet(0, { final: true })])).toEqual([])
  })
})

describe("spend flat", () => {
  test("fires after 10 spending steps without a verification improvement, then backs off (20, 40 steps)", () => {
    const m = new StallMonitor(onlyRule("spendFlat"))
    const steps = Array.from({ length: 70 }, (_, i) => quiet(i, { tokens: 1000 }))
    expect(feed(m, steps)).toEqual(["9:stall-spend-flat", "29:stall-spend-flat", "69:stall-spend-flat"])
  })
  test("when callers report verification runs, exploring without running anything is no evidence", () => {
    const m = new StallMonitor(onlyRule("spendFlat", { spendFlat: { window: 4 } }))
    const exploring = Array.from({ length: 8 }, (_, i) => quiet(i, { tokens: 100, verificationRan: false }))
    expect(feed(m, exploring)).toEqual([])
    const m2 = new StallMonitor(onlyRule("spendFlat", { spendFlat: { window: 4 } }))
    const testing = Array.from({ length: 4 }, (_, i) => quiet(i, { tokens: 100, verificationRan: i % 2 === 0 }))
    expect(feed(m2, testing)).toEqual(["3:stall-spend-flat"])
  })
  test("a file change is progress too: the window starts over", () => {
    const m = new StallMonitor(onlyRule("spendFlat", { spendFlat: { window: 3 } }))
    const steps = [quiet(0, { tokens: 5 }), quiet(1, { tokens: 5, changedFiles: ["a.ts"] }), quiet(2, { tokens: 5 }), quiet(3, { tokens: 5 })]
    expect(feed(m, steps)).toEqual([])
  })
  test("an improvement restarts the window", () => {
    const m = new StallMonitor(onlyRule("spendFlat", { spendFlat: { window: 3 } }))
    const steps = [quiet(0, { tokens: 5 }), quiet(1, { tokens: 5 }), quiet(2, { tokens: 5, verificationImproved: true }), quiet(3, { tokens: 5 }), quiet(4, { tokens: 5 }), quiet(5, { tokens: 5 })]
    expect(feed(m, steps)).toEqual(["5:stall-spend-flat"])
  })
  test("no spend is no rising spend; minTokens is honoured", () => {
    expect(feed(new StallMonitor(onlyRule("spendFlat", { spendFlat: { window: 2 } })), [quiet(0), quiet(1), quiet(2)])).toEqual([])
    const m = new StallMonitor(onlyRule("spendFlat", { spendFlat: { window: 2, minTokens: 100 } }))
    expect(feed(m, [quiet(0, { tokens: 50 }), quiet(1, { tokens: 50 }), quiet(2, { tokens: 51 })])).toEqual(["2:stall-spend-flat"])
  })
  test("off means off", () => {
    const m = new StallMonitor({ ...onlyRule("spendFlat"), spendFlat: { enabled: false, window: 1 } })
    expect(feed(m, [quiet(0, { tokens: 10 })])).toEqual([])
  })
})

describe("monitor", () => {
  test("several rules can fire on one step, in a fixed order", () => {
    const m = new StallMonitor({ noFileChange: { steps: 1 }, compactions: { limit: 1 }, spendFlat: { window: 1 } })
    expect(m.consume(quiet(0, { compaction: true, tokens: 9 })).map((i) => i.kind)).toEqual([
      "stall-no-file-change",
      "stall-compactions",
      "stall-spend-flat"
    ])
  })

  test("state survives a JSON round trip", () => {
    const summary = fc.record({
      changedFiles: fc.array(fc.constantFrom("a.ts", "REPORT.md", "out/x.json"), { maxLength: 2 }),
      tokens: fc.integer({ min: 0, max: 500 }),
      costUsd: fc.double({ min: 0, max: 2, noNaN: true }),
      verificationImproved: fc.boolean(),
      compaction: fc.boolean(),
      final: fc.boolean()
    })
    const options = { ...DEFAULT_STALL_OPTIONS, cost: { enabled: true, fraction: 0.8, budgetUsd: 5 }, artefacts: { enabled: true, required: ["REPORT.md"] }, noFileChange: { enabled: true, steps: 4 } }
    fc.assert(
      fc.property(fc.array(summary, { maxLength: 30 }), fc.array(summary, { maxLength: 30 }), (before, after) => {
        let state = initStall()
        before.forEach((s, step) => (state = consumeStall(state, { ...s, step }, options).state))
        let a = state
        let b = JSON.parse(JSON.stringify(state))
        after.forEach((s, i) => {
          const x = consumeStall(a, { ...s, step: before.length + i }, options)
          const y = consumeStall(b, { ...s, step: before.length + i }, options)
          expect(y.incidents).toEqual(x.incidents)
          a = x.state
          b = y.state
        })
      })
    )
  })

  test("reset() starts over", () => {
    const m = new StallMonitor(onlyRule("compactions", { compactions: { limit: 2 } }))
    m.consume(quiet(0, { compaction: true }))
    m.reset()
    expect(m.consume(quiet(1, { compaction: true }))).toEqual([])
  })
})
