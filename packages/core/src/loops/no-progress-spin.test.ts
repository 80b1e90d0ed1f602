import { describe, expect, test } from "bun:test"
import { noProgressSpin, SpinPrefix } from "./no-progress-spin.js"
import type { StepRecord } from "./step-record.js"
import { stepRecord } from "./fixtures.js"

const rec = (action: string, observation: string): StepRecord => stepRecord({ action, observation })

/** A run that wanders, then spins over commands it already ran (seeded, so the test is the same every time). */
const run = (n: number): Array<StepRecord> => {
  let seed = 7
  const rnd = (k: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % k)
  return Array.from({ length: n }, (_, i) => (i < n / 2 ? rec(`ls dir${i}`, `out ${i}`) : rec(`ls dir${rnd(n / 2)}`, rnd(3) === 0 ? `new ${i}` : `out ${rnd(n / 2)}`)))
}

describe("SpinPrefix (the carried prefix of noProgressSpin)", () => {
  test("carried across a growing run, it gives exactly the answers of a fresh prefix at every step", () => {
    const records = run(120)
    const prefix = new SpinPrefix()
    let spins = 0
    for (let n = 1; n <= records.length; n++) {
      const seen = records.slice(0, n)
      const carried = noProgressSpin(seen, { window: 10, minRepeats: 6 }, prefix)
      expect(carried).toEqual(noProgressSpin(seen, { window: 10, minRepeats: 6 }))
      if (carried !== null) spins++
    }
    expect(spins).toBeGreaterThan(0)
  })

  test("when a record before the window goes away (a rollback), the prefix is rebuilt, not reused", () => {
    const records = run(60)
    const prefix = new SpinPrefix()
    noProgressSpin(records, { window: 10, minRepeats: 6 }, prefix)
    const without = [...records.slice(0, 5), ...records.slice(6)]
    expect(noProgressSpin(without, { window: 10, minRepeats: 6 }, prefix)).toEqual(noProgressSpin(without, { window: 10, minRepeats: 6 }))
    // Each record is its own object: a spin that only the removed record could explain is gone.
    const lone = [rec("a", "x"), ...Array.from({ length: 10 }, (_, i) => rec("a", `y${i}`))]
    const p = new SpinPrefix()
    noProgressSpin(lone, { window: 10, minRepeats: 1 }, p)
    expect(noProgressSpin(lone.slice(1).concat([rec("b", "z")]), { window: 10, minRepeats: 1 }, p)).toEqual(noProgressSpin(lone.slice(1).concat([rec("b", "z")]), { window: 10, minRepeats: 1 }))
  })

  test("with a StepRecordLog's version: trusted while it stays, rebuilt when it changes (a record went away)", () => {
    const p = new SpinPrefix()
    const first = [rec("gone", "x"), rec("b", "y"), rec("c", "z")]
    expect([...p.seen(first, 3, 0).actions]).toEqual(["gone", "b", "c"])
    const next = [rec("b", "y"), rec("c", "z"), rec("d", "w"), rec("e", "v")]
    expect([...p.seen(next, 4, 1).actions].sort()).toEqual(["b", "c", "d", "e"])
    // Same version, one more record: extended, not rebuilt.
    expect([...p.seen([...next, rec("f", "u")], 5, 1).actions].sort()).toEqual(["b", "c", "d", "e", "f"])
  })
})

describe("what a step of the window repeats", () => {
  test("a step counts when it repeats an earlier action or an earlier failure: re-reading one file between retries that fail the same way is a spin", () => {
    const records: Array<StepRecord> = []
    for (let i = 0; i < 7; i++) {
      records.push(stepRecord({ action: "read scripts/sync.py", observation: "def sync(): ...", tool: "read", role: "read", lookup: true }))
      records.push(stepRecord({ action: `bash python scripts/sync.py --mode-${i}`, observation: "HTTPError: 403 Client Error: Forbidden for url: <u>", failed: true }))
    }
    // Five re-reads and five failures of the window: neither half alone is most of it, together they are all of it.
    expect(noProgressSpin(records)).toMatchObject({ window: 10, repeatedActions: 5, repeatedOutputs: 5 })
  })

  test("re-reading a file between runs that each answer something new is no spin", () => {
    const records: Array<StepRecord> = []
    for (let i = 0; i < 7; i++) {
      records.push(stepRecord({ action: "read scripts/sync.py", observation: "def sync(): ...", tool: "read", role: "read", lookup: true }))
      records.push(stepRecord({ action: `bash python scripts/sync.py --mode-${i}`, observation: `synced ${i} rows from table t${i}` }))
    }
    expect(noProgressSpin(records)).toBeNull()
  })
})

describe("noProgressSpin of a batch whose counter moves on", () => {
  test("the same batch run again, its printed counter further each time (masked, its outputs read the same): paging, no spin", () => {
    const batch = (i: number) => stepRecord({ action: "python reembed.py --batch-size 250", observation: "embedded 0 docs (0/0)", rawObservation: `embedded 250 docs (${(i + 1) * 250}/6000)` })
    expect(noProgressSpin(Array.from({ length: 16 }, (_, i) => batch(i)))).toBeNull()
    // The same counter each time is the same answer.
    const stuck = Array.from({ length: 16 }, () => stepRecord({ action: "python reembed.py --batch-size 250", observation: "embedded 0 docs (0/0)", rawObservation: "embedded 0 docs (250/6000)" }))
    expect(noProgressSpin(stuck)).not.toBeNull()
  })
})
