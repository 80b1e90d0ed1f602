/**
 * Runaway shapes (docs/repetition.md, "Runaway shapes"): for each shape, `N` generated instances
 * (seeded, each with its own bodies, openers, lengths and steps) go through RepeatGuard, both
 * rules, in deltas of 64 characters; an instance is caught when the guard trips within 6 000
 * characters of the loop's onset (measured at the end of the delta that tripped). Prints, per
 * shape, the fraction caught, the median characters from onset to the trip, and trips before the
 * onset (on the healthy prefix: false alarms).
 *
 *   bun run test/bench/runaway-shapes.ts [N]
 */
import { RepeatGuard } from "../../packages/core/src/repeat/repeat-guard.js"
import { RUNAWAY_SHAPES, type RunawayInstance } from "../../packages/core/src/repeat/runaway-shapes.fixture.js"

/** Characters from the loop's onset within which a runaway must be caught. */
export const CATCH_WITHIN = 6_000

/** Characters from the onset to the end of the delta that tripped (negative: before the onset), or null. */
export const charsToCatch = (instance: RunawayInstance, deltaSize: number): number | null => {
  const guard = new RepeatGuard()
  const { text, onset } = instance
  for (let at = 0; at < text.length; at += deltaSize) {
    if (guard.push(text.slice(at, at + deltaSize)) !== null) return Math.min(text.length, at + deltaSize) - onset
  }
  return guard.flush() === null ? null : text.length - onset
}

export interface ShapeRow {
  readonly shape: string
  readonly instances: number
  readonly caught: number
  readonly early: number
  readonly medianChars: number | null
}

export const runShapes = (instances = 200, deltaSize = 64): Array<ShapeRow> =>
  RUNAWAY_SHAPES.map((shape) => {
    const at: Array<number> = []
    let early = 0
    for (let seed = 1; seed <= instances; seed++) {
      const chars = charsToCatch(shape.generate(seed), deltaSize)
      if (chars !== null && chars < 0) early++
      else if (chars !== null && chars <= CATCH_WITHIN) at.push(chars)
    }
    at.sort((a, b) => a - b)
    return { shape: shape.name, instances, caught: at.length, early, medianChars: at.length === 0 ? null : at[Math.floor(at.length / 2)]! }
  })

export const main = (instances?: number): Array<ShapeRow> => {
  const n = instances ?? Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 200)
  const rows = runShapes(n)
  console.log(`| shape | caught within ${CATCH_WITHIN} chars | median chars to catch | trips before onset |`)
  console.log("| --- | ---: | ---: | ---: |")
  for (const r of rows) console.log(`| ${r.shape} | ${r.caught}/${r.instances} (${((100 * r.caught) / r.instances).toFixed(1)} %) | ${r.medianChars ?? "-"} | ${r.early} |`)
  return rows
}

if (import.meta.main) main()
