/**
 * Stop words: what a stop or pause of the loop ladder says, so a person can judge it at a glance —
 * the steps, the repeated command or span, and the answer that kept coming back, e.g.
 * "stopped: `pytest tests/x.py` ran 8 times in a row (steps 12-19), each time `AssertionError: …`".
 * Read from the step records the detector saw; plain text, no I/O.
 */
import type { StepRecord } from "../loops/index.js"

const cut = (s: string, n: number) => (s.length <= n ? s : `${s.slice(0, n - 1)}…`)

/** A command or call as quoted in a sentence: one line, at most 100 characters. */
const quoted = (s: string): string => `\`${cut(s.replace(/\s+/g, " ").trim(), 100).replace(/`/g, "'")}\``

/** A call signature `tool({...})` as a person writes it: a shell call by its command, others as they are. */
const callText = (signature: string): string => {
  const open = signature.indexOf("(")
  if (open <= 0 || !signature.endsWith(")")) return signature
  try {
    const input: unknown = JSON.parse(signature.slice(open + 1, -1))
    const command = input !== null && typeof input === "object" ? (input as Record<string, unknown>)["command"] : undefined
    return typeof command === "string" ? command : Array.isArray(command) ? command.join(" ") : signature
  } catch {
    return signature
  }
}
const call = (signature: string): string => quoted(callText(signature))

/**
 * A call as the agent wrote it (`./ci.sh`, not the `ci.sh` calls are compared by): the newest of
 * `records` that made `action` (one cut short matched by its start) gives its own words; else the
 * action as compared.
 */
const asWritten = (records: ReadonlyArray<StepRecord>, action: string): string => {
  const made = madeBy(action)
  for (let i = records.length - 1; i >= 0; i--) if (made(records[i]!)) return quotedStep(records[i]!)
  return call(action)
}

/** One step's calls as quoted: a shell step's commands as written, any other as compared. */
const quotedStep = (r: StepRecord): string => (r.written !== undefined ? quoted(r.written) : call(r.action))

/** Whether a record made `action`: a finding's detail cuts a long one short (`…`), matched then by its start. */
const madeBy = (action: string): ((r: StepRecord) => boolean) => {
  const stem = action.endsWith("…") ? action.slice(0, -1) : null
  return (r) => r.action === action || (stem !== null && r.action.startsWith(stem))
}

// The line of an output a person looks for first: an error, a failed test, a refusal.
const TELLING = /(?:\b[A-Z]\w*(?:Error|Exception)\b|\bFAILED\b|\berror:|\bNo replacement was performed|\bcommand not found|\bNo such file or directory|\bnot found\b)[^\n]{0,90}/

/** What came back, as a person would quote it: the telling part of the newest answer, or its head. */
export const answerOf = (r: StepRecord): string => {
  const raw = r.rawObservation.trim()
  if (raw === "") return "nothing"
  return quoted(TELLING.exec(raw)?.[0] ?? raw)
}

/** "step 12", "steps 12-19" or "steps 3, 5, 9" for records in step order. */
export const stepsOf = (records: ReadonlyArray<StepRecord>): string => {
  const steps = [...new Set(records.map((r) => r.step))]
  if (steps.length === 0) return "no step"
  if (steps.length === 1) return `step ${steps[0]}`
  const consecutive = steps.every((s, i) => i === 0 || s === steps[i - 1]! + 1)
  return consecutive ? `steps ${steps[0]}-${steps[steps.length - 1]}` : `steps ${steps.slice(-8).join(", ")}`
}

const num = (v: unknown, fallback: number): number => (typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.floor(v) : fallback)
const str = (v: unknown): string => (typeof v === "string" ? v : "")

/** The sentence for one detector's finding (its `detail`) over the records it was found in. */
const evidenceOf = (detector: string, detail: Readonly<Record<string, unknown>>, records: ReadonlyArray<StepRecord>): string => {
  const last = (n: number) => records.slice(-n)
  const newest = records[records.length - 1]
  const answer = newest === undefined ? "nothing" : answerOf(newest)
  switch (detector) {
    case "repeated-action": {
      const run = last(num(detail["count"], 1))
      return `${asWritten(run, str(detail["signature"]) || (newest?.action ?? ""))} ran ${run.length} times in a row (${stepsOf(run)}), the last answer ${answer}`
    }
    case "repeated-failure": {
      const action = str(detail["action"])
      const runs = records.filter(madeBy(action)).slice(-num(detail["count"], 1))
      // Its own answer, not the newest step's: other steps may come between the failures.
      const failure = runs.length > 0 ? answerOf(runs[runs.length - 1]!) : answer
      return `${asWritten(runs, action)} failed ${runs.length} times the same way (${stepsOf(runs)})${detail["editedBetween"] === true ? ", files edited between" : ""}: ${failure}`
    }
    case "varied-retry": {
      const skeleton = str(detail["skeleton"])
      const tries = records.filter((r) => r.skeleton === skeleton).slice(-num(detail["count"], 1))
      return `${quoted(skeleton)} was tried ${tries.length} times with new arguments (${stepsOf(tries)}), each time ${tries.length > 0 ? answerOf(tries[tries.length - 1]!) : answer}`
    }
    case "repeated-observation": {
      const run = last(num(detail["count"], 1))
      return `${run.length} steps${detail["window"] !== undefined ? ` of the last ${String(detail["window"])}` : " in a row"} got the same answer from ${str(detail["tool"]) || "the tools"} (${stepsOf(run)}): ${answer}`
    }
    case "action-cycle": {
      const all = Array.isArray(detail["cycle"]) ? detail["cycle"].map((c) => asWritten(records, String(c))) : []
      const cycle = all.length > 4 ? [...all.slice(0, 4), `… (${all.length} calls)`] : all
      const span = last(num(detail["period"], 2) * num(detail["replays"], 2))
      return `the cycle ${cycle.join(" → ")} went round again and again (${stepsOf(span)}) with nothing changed`
    }
    case "failure-streak": {
      const run = last(num(detail["count"], 1))
      return `${run.length} steps in a row failed (${stepsOf(run)}), the last ${newest === undefined ? call("") : quotedStep(newest)}: ${answer}`
    }
    case "replayed-sequence": {
      const span = last(num(detail["length"], 1))
      return `the last ${span.length} steps (${stepsOf(span)}) replayed a stretch done ${String(detail["distance"] ?? "some")} steps before`
    }
    case "no-progress-spin": {
      const span = last(num(detail["window"], 1))
      return `no file changed in ${span.length} steps (${stepsOf(span)}) and ${String(detail["repeatedActions"] ?? 0)} of them repeated earlier actions`
    }
    default:
      return Object.entries(detail)
        .map(([k, v]) => `${k}=${cut(typeof v === "string" ? v : JSON.stringify(v), 80)}`)
        .join(", ")
  }
}

/**
 * The stop words of a loop that went on after a note and a reminder: "<verb>: <evidence>
 * (<detector>, after a note and a reminder)".
 */
export const stopSentence = (
  verb: "stopped" | "paused",
  detector: string,
  detail: Readonly<Record<string, unknown>>,
  records: ReadonlyArray<StepRecord>
): string => `${verb}: ${evidenceOf(detector, detail, records)} (${detector}, after a note and a reminder)`
