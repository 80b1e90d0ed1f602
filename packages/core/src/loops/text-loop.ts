/**
 * Cross-step text loop (docs/loops.md): the same visible reply (plus the same tool calls) three steps in
 * a row, or the same long paragraph five steps in a row whatever the calls, with no file changed by
 * another step between them. Escalates mild → strong → terminate over successive triggers. A small state machine with
 * plain, serializable state so a RunLoop can persist it between steps.
 */
import { callInputKey } from "../model/call-key.js"
import { textOf, toolPartsOf, type AssistantMessage } from "../model/message.js"
import { dropLeadingPrefix, firstChars, foldTextHead } from "./normalize.js"

export interface TextLoopOptions {
  /**
   * How many recent step keys are kept (never fewer than `repeats`); as many steps in a row saying
   * one long paragraph (`PARAGRAPH_CHARS`) are a loop whatever calls come with them.
   */
  readonly bufferSize: number
  /** How many identical newest keys make a loop. */
  readonly repeats: number
  /** How many characters of normalized text go into the key. */
  readonly keyChars: number
  /** Filler openings dropped (one, the first that matches) before keying; lowercase. */
  readonly prefixes: ReadonlyArray<string>
}

export const DEFAULT_TEXT_LOOP: TextLoopOptions = {
  bufferSize: 5,
  repeats: 3,
  keyChars: 200,
  prefixes: ["let me ", "i'll ", "i will ", "let's "]
}

export type TextLoopLevel = "mild" | "strong" | "terminate"

export interface TextLoopState {
  /** Newest last. */
  readonly buffer: ReadonlyArray<string>
  /** The long paragraphs of the newest steps in a row that said one, newest last. */
  readonly paragraphs: ReadonlyArray<string>
  /** Triggers so far in this run. */
  readonly triggers: number
}

export interface TextLoopTrigger {
  readonly level: TextLoopLevel
  /** 1-based: which trigger this is. */
  readonly count: number
  readonly key: string
}

export interface TextLoopStep {
  readonly state: TextLoopState
  /** The key recorded for this step, or null when the step was skipped. */
  readonly key: string | null
  readonly trigger: TextLoopTrigger | null
}

export interface TextLoopContext {
  /** True when reasoning-loop cropping (docs/loops.md) cropped in this turn: the step is not recorded. */
  readonly cropped: boolean
  /**
   * The step changed a file. A change made by a step other than the repeating one (an edit
   * between two "Let me run the tests again." steps) is work done between them: the run starts over.
   */
  readonly changed?: boolean
}

/**
 * Tools whose input is the agent's own reasoning written down (OpenHands' `think`, the MCP
 * sequential-thinking server's tool), compared case-insensitively.
 */
const THINK_TOOLS: ReadonlyArray<string> = ["think", "sequentialthinking", "sequential_thinking"]

/**
 * The calls of a step as the text loop compares them: each call's name and arguments, except a think
 * call's, which is reasoning (not part of the key either) and numbers itself ("thought 7 of 9"): the
 * same paragraph said before 25 think calls is one loop, however each thought ends.
 */
const callsKey = (step: AssistantMessage): string =>
  toolPartsOf(step)
    .map((p) => (THINK_TOOLS.includes(p.name.toLowerCase()) ? `${p.name}()` : `${p.name}(${callInputKey(p.input)})`))
    .join(";")

/**
 * The key of one step, or null when its visible (non-synthetic) text is empty: tool-call-only
 * steps are not recorded. Reasoning is deliberately not part of the key.
 */
export const textLoopKey = (step: AssistantMessage, opts: TextLoopOptions = DEFAULT_TEXT_LOOP): string | null => {
  // The key reads at most a filler prefix and `keyChars` code points (2 units each) of the folded text.
  const longestPrefix = opts.prefixes.reduce((n, p) => Math.max(n, p.length), 0)
  const folded = foldTextHead(textOf(step), longestPrefix + 2 * opts.keyChars)
  if (folded.length === 0) return null
  const text = firstChars(dropLeadingPrefix(folded, opts.prefixes), opts.keyChars)
  // Folded text holds no newline, so "\n" separates text from tools unambiguously.
  return `${text}\n${callsKey(step)}`
}

const levelOf = (count: number): TextLoopLevel => (count === 1 ? "mild" : count === 2 ? "strong" : "terminate")

/**
 * Folded characters from which a step's text is a paragraph: said again on `bufferSize` steps in a
 * row it is a loop over any calls. Short narration ("Let me check the next file.") repeats while the
 * work moves on; a paragraph of reasoning ("I apologize for the confusion. Looking at this more
 * carefully…") said over and over is the model stuck, whatever it runs meanwhile.
 */
export const PARAGRAPH_CHARS = 120

/** The text of a key (see `textLoopKey`) when it is a paragraph, else null. */
const paragraphOf = (key: string): string | null => {
  const text = key.slice(0, key.indexOf("\n"))
  return text.length >= PARAGRAPH_CHARS ? text : null
}

const init = (): TextLoopState => ({ buffer: [], paragraphs: [], triggers: 0 })

const consume = (
  state: TextLoopState,
  step: AssistantMessage,
  ctx: TextLoopContext = { cropped: false },
  opts: TextLoopOptions = DEFAULT_TEXT_LOOP
): TextLoopStep => {
  if (ctx.cropped) return { state, key: null, trigger: null }
  const key = textLoopKey(step, opts)
  const workedBetween = ctx.changed === true && key !== state.buffer.at(-1)
  const kept = workedBetween ? { buffer: [], paragraphs: [] } : state
  if (key === null) return { state: { ...kept, triggers: state.triggers }, key: null, trigger: null }

  // A buffer shorter than `repeats` could never hold a loop: it is at least `repeats` long.
  const size = Math.max(1, opts.bufferSize, opts.repeats)
  const buffer = [...kept.buffer, key].slice(-size)
  const paragraph = paragraphOf(key)
  const paragraphs = paragraph === null ? [] : [...kept.paragraphs, paragraph].slice(-size)
  const tail = buffer.slice(-opts.repeats)
  const looped =
    (opts.repeats >= 1 && tail.length === opts.repeats && tail.every((k) => k === key)) ||
    (paragraphs.length === size && paragraphs.every((p) => p === paragraph))
  if (!looped) return { state: { buffer, paragraphs, triggers: state.triggers }, key, trigger: null }

  const count = state.triggers + 1
  // Cleared so the next trigger needs `repeats` fresh identical steps.
  return { state: { buffer: [], paragraphs: [], triggers: count }, key, trigger: { level: levelOf(count), count, key } }
}

/** init → consume after every finished step; one state per run (start a new one per user turn). */
export const TextLoopDetector = { init, consume, key: textLoopKey } as const
