/**
 * Where the renderer's text goes, one place that knows the line the cursor is on: streamed
 * blocks (the model's text, or its reasoning dimmed), whole lines placed after any open block,
 * and the live status line a terminal overwrites in place and erases before anything else.
 * Everything from outside is made terminal-safe and stripped of the environment's secrets here
 * (streamed text also of well-known credential formats).
 */
import { makeShapeStreamRedactor } from "@loopguard/core/try-best"
import { redactText } from "./env-secrets.js"
import type { Style } from "./style.js"
import { terminalSafe } from "./terminal-safe.js"

export type BlockKind = "text" | "reasoning"

export interface TextSink {
  /** One piece of a streamed block; a new kind of block starts on its own line. */
  readonly stream: (kind: BlockKind, piece: string) => void
  /** A whole line, after the open block (which it ends). */
  readonly line: (text: string) => void
  readonly closeBlock: () => void
  /** Overwrites the live line (only when the cursor is at the start of a line). */
  readonly live: (text: string) => void
  /** The live line even mid-line: the open line is ended first, and the text goes on below it. */
  readonly liveBelow: (text: string) => void
  readonly eraseLive: () => void
}

const ERASE_LINE = "\r\u001b[2K"

export const makeTextSink = (out: (text: string) => void, style: Style, secrets: ReadonlyArray<string>): TextSink => {
  let block: BlockKind | "none" = "none"
  let atLineStart = true
  let liveShown = false
  // The model's text as it streams loses what `--json` and the stored session lose: the secrets and
  // the credential formats (a token split over deltas too).
  const redactor = makeShapeStreamRedactor(secrets)

  const eraseLive = () => {
    if (liveShown) out(ERASE_LINE)
    liveShown = false
  }
  const write = (text: string) => {
    if (text === "") return
    eraseLive()
    out(text)
    atLineStart = text.endsWith("\n")
  }
  // Dim each piece on its own: a line break inside a delta must not leave the terminal dimmed.
  const styled = (kind: BlockKind, text: string) => (kind === "reasoning" ? text.split("\n").map(style.dim).join("\n") : text)
  /** What the redactor held back (a tail that could have begun a secret) goes out with its block. */
  const closeBlock = () => {
    const rest = terminalSafe(redactor.flush())
    if (rest !== "" && block !== "none") write(styled(block, rest))
    if (!atLineStart) write("\n")
    block = "none"
  }
  return {
    stream: (kind, piece) => {
      if (block !== kind) {
        closeBlock()
        block = kind
        if (kind === "reasoning") write(style.dim("thinking: "))
      }
      write(styled(kind, terminalSafe(redactor.push(piece))))
    },
    line: (text) => {
      closeBlock()
      write(redactText(text, secrets) + "\n")
    },
    closeBlock,
    live: (text) => {
      if (!atLineStart) return
      out(`${ERASE_LINE}${text}`)
      liveShown = true
    },
    liveBelow: (text) => {
      if (!atLineStart) write("\n")
      out(`${ERASE_LINE}${text}`)
      liveShown = true
    },
    eraseLive
  }
}
