/**
 * The second evaluation set: generated trace-v1 runs that look like OpenHands terminal tasks,
 * Gemini CLI, OpenCode, Claude Code and Codex runs, healthy and stuck, with episode labels in
 * the shape of ../shared/traces/labels.json. Generated (seeded), never copied from real traces.
 */
import { HARNESSES, PRECISION_HARNESSES, STYLES, type HarnessName } from "./harness-style.js"
import { actionCycle, PRECISION_HEALTHY, refusedEditResent, spinOverDone } from "./precision-scenarios.js"
import { HEALTHY, rng, type Scenario } from "./scenarios.js"
import { emptySearches, STUCK } from "./stuck-scenarios.js"

export interface GeneratedEpisode {
  readonly start_step: number
  readonly onset_step: number
  readonly fires_at: number
  readonly end_step: number
  readonly kinds: ReadonlyArray<string>
}

export interface GeneratedTrace {
  readonly file: string
  readonly harness: HarnessName
  readonly scenario: string
  readonly text: string
  readonly n_steps: number
  readonly stuck: boolean
  readonly episodes: ReadonlyArray<GeneratedEpisode>
}

const TASKS = [
  "Recover the flag from the files in /workspace and write it to /workspace/answer.txt.",
  "The service in /workspace must answer on port 8080. Fix it and make the health check pass.",
  "Train the model in train.py to at least 90% accuracy and save metrics.json.",
  "Make the test suite in tests/ pass without changing the tests.",
  "Build the C project with make and fix every compiler error."
]

/** One scenario as one harness would have logged it. */
export const renderTrace = (scenario: Scenario, harness: HarnessName, index: number, seed: number): GeneratedTrace => {
  const r = rng(seed * 7919 + index)
  const style = STYLES[harness]
  const file = `${harness}__${scenario.name}__${String(index).padStart(3, "0")}.jsonl`
  const lines: Array<unknown> = [
    { type: "session", id: file.replace(/\.jsonl$/, ""), model: r.pick(["anthropic/claude-sonnet-4", "google/gemini-2.5-pro", "openai/gpt-5"]), agent: harness },
    { type: "user", text: r.pick(TASKS) }
  ]
  scenario.acts.forEach((act, step) => {
    const { call, result } = style(act)
    const id = `call_${step}_${r.int(1000, 9999)}`
    lines.push({
      type: "assistant",
      text: act.kind === "think" ? "" : `Step ${step}: next I ${act.kind === "shell" ? "run a command" : `do a ${act.kind}`}.`,
      toolCalls: [{ id, name: call.name, input: call.input }],
      finish: "tool-calls",
      usage: { inputTokens: 4000 + step * r.int(300, 900), outputTokens: r.int(40, 400) }
    })
    lines.push({ type: "tool-result", id, name: call.name, ...result })
  })
  return {
    file,
    harness,
    scenario: scenario.name,
    text: lines.map((l) => JSON.stringify(l)).join("\n") + "\n",
    n_steps: scenario.acts.length,
    stuck: scenario.episodes.length > 0,
    episodes: scenario.episodes.map((e) => ({ start_step: e.start, onset_step: e.onset, fires_at: e.onset, end_step: e.end, kinds: [e.kind] }))
  }
}

/**
 * `count` traces: harnesses in turn, healthy and stuck shapes alternating (so each harness gets
 * both), each scenario drawn from the seed.
 */
export const generateHarnessTraces = (seed = 1, count = 90): Array<GeneratedTrace> => {
  const r = rng(seed)
  return Array.from({ length: count }, (_, i) => {
    const harness = HARNESSES[i % HARNESSES.length]!
    const shapes = Math.floor(i / HARNESSES.length) % 2 === 0 ? HEALTHY : STUCK
    const make = shapes[r.int(0, shapes.length - 1)]!
    return renderTrace(make(rng(seed * 104729 + i)), harness, i, seed)
  })
}

/**
 * The precision set: every healthy shape (the repository ones of precision-scenarios.ts and the
 * terminal ones of scenarios.ts) and every looping shape, `perShape` runs of each in every one
 * of SWE-agent, OpenHands, Codex CLI, Claude Code and mini-SWE-agent styles.
 */
export const generatePrecisionSet = (seed = 1, perShape = 2): { readonly healthy: Array<GeneratedTrace>; readonly looping: Array<GeneratedTrace> } => {
  const render = (shapes: ReadonlyArray<(r: ReturnType<typeof rng>) => Scenario>, offset: number): Array<GeneratedTrace> =>
    PRECISION_HARNESSES.flatMap((harness, h) =>
      shapes.flatMap((make, s) =>
        Array.from({ length: perShape }, (_, k) => {
          const index = offset + ((h * shapes.length + s) * perShape + k)
          return renderTrace(make(rng(seed * 15485863 + index)), harness, index, seed)
        })
      )
    )
  return {
    healthy: render([...PRECISION_HEALTHY, ...HEALTHY], 0),
    // Different searches that all find nothing are exploration, not a loop (docs/loops.md): the
    // terminal set's `empty-searches` is left out here; `no-match-exploration` is its healthy twin.
    looping: render([...STUCK.filter((make) => make !== emptySearches), actionCycle, refusedEditResent, spinOverDone], 100_000)
  }
}
