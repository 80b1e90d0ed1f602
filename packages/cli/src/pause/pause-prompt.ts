/**
 * How a pause is shown to the user (the incident, the choices on offer and why the others are
 * not), and how `ask` reads the answer on a terminal.
 */
import { stepsFromOne } from "../render/explain.js"
import { CHOICE_DESCRIPTIONS, type PauseChoice, type PauseChoices } from "./choices.js"
import type { PausedIncident } from "./paused-incident.js"
import { openTerminalReadline } from "../terminal-readline.js"

export const formatPause = (incident: PausedIncident, choices: PauseChoices): ReadonlyArray<string> => {
  const width = Math.max(...[...choices.offered, ...choices.unavailable.map((u) => u.choice)].map((c) => c.length))
  return [
    // Steps count from 1 here, as the status lines above the menu do (the incident's count from 0).
    `⏸ try-best paused the run at step ${incident.step + 1}: ${incident.detail.startsWith(incident.kind) ? "" : `(${incident.kind}) `}${stepsFromOne(incident.detail)}`,
    "  choices:",
    ...choices.offered.map((c, i) => `    ${i + 1}. ${c.padEnd(width)}  ${CHOICE_DESCRIPTIONS[c]}`),
    ...(choices.unavailable.length > 0 ? ["  not offered:", ...choices.unavailable.map((u) => `       ${u.choice.padEnd(width)}  ${u.reason}`)] : [])
  ]
}

/**
 * Reads an answer: the number shown in the menu, the choice's name, or a hand-off target's
 * bare name (`claude`). Null when the answer names nothing on offer.
 */
export const parseAnswer = (answer: string, choices: PauseChoices): PauseChoice | null => {
  const a = answer.trim().toLowerCase()
  if (a === "") return null
  if (/^\d+$/.test(a)) return choices.offered[Number(a) - 1] ?? null
  return choices.offered.find((c) => c === a || c === `handoff:${a}`) ?? null
}

/** Asks one question and returns the line typed, or null at end of input. */
export type AskLine = (question: string) => Promise<string | null>

/** Reads the answer from the terminal; the question goes to stderr so stdout stays the run's log. */
export const askOnTerminal: AskLine = async (question) => {
  const rl = openTerminalReadline({ input: process.stdin, output: process.stderr })
  try {
    return await new Promise<string | null>((resolve) => {
      rl.once("close", () => resolve(null))
      rl.question(question, resolve)
    })
  } finally {
    rl.close()
  }
}

/**
 * Asks until an offered choice is named; `attempts` wrong answers or the end of input mean
 * `stop`, so an unattended terminal never resumes by accident.
 */
export const askChoice = async (
  ask: AskLine,
  choices: PauseChoices,
  attempts: number,
  warn: (line: string) => void
): Promise<PauseChoice> => {
  const names = choices.offered.map((c, i) => `${i + 1}=${c}`).join(", ")
  for (let i = 0; i < attempts; i++) {
    const line = await ask(`What now? [${names}] `)
    if (line === null) {
      warn("no answer (end of input): stopping")
      return "stop"
    }
    const choice = parseAnswer(line, choices)
    if (choice !== null) return choice
    const refused = choices.unavailable.find((u) => u.choice === line.trim().toLowerCase() || u.choice === `handoff:${line.trim().toLowerCase()}`)
    warn(refused ? refused.reason : `not a choice: ${JSON.stringify(line.trim())}`)
  }
  warn(`no valid answer after ${attempts} tries: stopping`)
  return "stop"
}
