import { describe, expect, test } from "bun:test"
import fc from "fast-check"
import type { ToolPart } from "../model/message.js"
import { TryBestMonitor, consumeTryBest, initTryBest, type TryBestEvent, type TryBestState } from "./monitor.js"
import { resolveTryBestOptions } from "./options.js"
import { bashPart, editPart, readPart, toolPart } from "./tool-part.fixture.js"

describe("properties", () => {
  const command = fc.constantFrom("npm test", "ls", "pytest -x", "make build", "curl x")
  const file = fc.constantFrom("a.ts", "b.ts", "c.ts")
  const line = fc.constantFrom("one two three", "one two four", "five six seven eight", "x")
  const part: fc.Arbitrary<ToolPart> = fc.oneof(
    fc.tuple(file, line, fc.boolean()).map(([f, l, ok]) => editPart(f, l, "", ok ? {} : { state: "error" as const })),
    fc.tuple(command, fc.integer({ min: 0, max: 2 }), fc.constantFrom("A", "B", "C")).map(([c, code, out]) => bashPart(c, code, out)),
    file.map(readPart)
  )
  const options = resolveTryBestOptions()

  test("state survives a JSON round trip: a restored monitor answers exactly like the original", () => {
    fc.assert(
      fc.property(fc.array(part, { maxLength: 40 }), fc.array(part, { maxLength: 40 }), (before, after) => {
        let state: TryBestState = initTryBest()
        before.forEach((p, step) => (state = consumeTryBest(state, { part: p, step }, options).state))
        const restored: TryBestState = JSON.parse(JSON.stringify(state))
        let a = state
        let b = restored
        after.forEach((p, i) => {
          const event: TryBestEvent = { part: p, step: before.length + i }
          const x = consumeTryBest(a, event, options)
          const y = consumeTryBest(b, event, options)
          expect(y.incident).toEqual(x.incident)
          a = x.state
          b = y.state
        })
      })
    )
  })

  test("consume is pure: the input state is never modified", () => {
    fc.assert(
      fc.property(fc.array(part, { maxLength: 30 }), (parts) => {
        let state: TryBestState = initTryBest()
        parts.forEach((p, step) => {
          const snapshot = JSON.stringify(state)
          const next = consumeTryBest(state, { part: p, step }, options).state
          expect(JSON.stringify(state)).toBe(snapshot)
          state = next
        })
      })
    )
  })

  test("the edit window never holds more than editWindow entries", () => {
    fc.assert(
      fc.property(fc.array(part, { maxLength: 60 }), fc.integer({ min: 0, max: 15 }), (parts, editWindow) => {
        const m = new TryBestMonitor({ editWindow })
        parts.forEach((p, step) => m.consume({ part: p, step }))
        expect(m.state.edits.length).toBeLessThanOrEqual(editWindow)
      })
    )
  })

  test("never throws on arbitrary tool parts", () => {
    const anyPart = fc.record({
      name: fc.oneof(fc.constantFrom("edit", "bash", "write", "apply_patch", "str_replace_editor", "read"), fc.string()),
      input: fc.anything(),
      state: fc.constantFrom("pending", "running", "completed", "error") as fc.Arbitrary<ToolPart["state"]>,
      exitCode: fc.option(fc.integer()),
      output: fc.option(fc.string()),
      diff: fc.option(fc.string()),
      path: fc.option(fc.string())
    })
    fc.assert(
      fc.property(fc.array(anyPart, { maxLength: 20 }), (raw) => {
        const m = new TryBestMonitor()
        raw.forEach((r, step) => {
          const p = toolPart(r.name, r.input, {
            state: r.state,
            ...(r.exitCode !== null ? { exitCode: r.exitCode } : {}),
            ...(r.output !== null ? { output: r.output } : {}),
            ...(r.diff !== null ? { diff: r.diff } : {}),
            ...(r.path !== null ? { path: r.path } : {})
          })
          m.consume({ part: p, step })
        })
      })
    )
  })
})
