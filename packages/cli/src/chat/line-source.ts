/**
 * Where chat reads its lines. On a terminal: one readline kept open from one question to the next
 * (a Ctrl-C or a command at the prompt leaves no moment where a key press is lost) and closed
 * while a turn runs (`suspend`), so the terminal is back in its normal mode and Ctrl-C during the
 * turn reaches the process as a signal; history is kept across. From a pipe: one reader for the
 * whole input (a reader per line would drop what it had buffered), and each line is echoed after
 * the prompt so the transcript reads like the terminal session.
 */
import { createInterface, type Interface } from "node:readline"
import type { Readable, Writable } from "node:stream"
import { terminalSafe } from "../render/terminal-safe.js"
import { openTerminalReadline } from "../terminal-readline.js"

export type LineRead = { readonly type: "line"; readonly text: string } | { readonly type: "interrupt" } | { readonly type: "end" }

export interface LineSource {
  readonly terminal: boolean
  readonly read: (prompt: string) => Promise<LineRead>
  /** A turn starts: give the terminal back (no-op for a pipe). */
  readonly suspend: () => void
  readonly close: () => void
}

const HISTORY_SIZE = 200

export const terminalLines = (input: Readable, output: Writable): LineSource => {
  let history: Array<string> = []
  let rl: Interface | null = null
  let suspending = false
  let ended = false
  const pending: Array<LineRead> = []
  let waiting: ((r: LineRead) => void) | null = null
  const deliver = (r: LineRead) => {
    const w = waiting
    waiting = null
    if (w !== null) w(r)
    else pending.push(r)
  }
  const open = (): Interface => {
    if (rl !== null) return rl
    const created = openTerminalReadline({ input, output, history, historySize: HISTORY_SIZE, removeHistoryDuplicates: true })
    created.on("line", (text) => deliver({ type: "line", text }))
    created.on("SIGINT", () => {
      output.write("^C\n")
      deliver({ type: "interrupt" })
    })
    created.on("close", () => {
      history = [...((created as unknown as { history?: Array<string> }).history ?? history)]
      rl = null
      // Closed by Ctrl-D or the end of input, not by a turn starting: the chat is over.
      if (!suspending) {
        ended = true
        deliver({ type: "end" })
      }
    })
    rl = created
    return created
  }
  const suspend = () => {
    if (rl === null) return
    suspending = true
    rl.close()
    suspending = false
  }
  return {
    terminal: true,
    read: (prompt) => {
      const queued = pending.shift()
      if (queued !== undefined) return Promise.resolve(queued)
      if (ended) return Promise.resolve({ type: "end" })
      const r = open()
      r.setPrompt(prompt)
      r.prompt()
      return new Promise<LineRead>((resolve) => (waiting = resolve))
    },
    suspend,
    close: () => {
      ended = true
      suspend()
      deliver({ type: "end" })
    }
  }
}

export const streamLines = (input: Readable, output: Writable): LineSource => {
  const rl = createInterface({ input, terminal: false })
  const queue: Array<string> = []
  let ended = false
  let waiting: ((r: LineRead) => void) | null = null
  const hand = (r: LineRead) => {
    const w = waiting
    waiting = null
    w?.(r)
  }
  rl.on("line", (line) => (waiting !== null ? hand({ type: "line", text: line }) : queue.push(line)))
  rl.on("close", () => {
    ended = true
    hand({ type: "end" })
  })
  return {
    terminal: false,
    read: (prompt) => {
      const next = queue.shift()
      const answer = (r: LineRead): LineRead => {
        // The piped line is echoed as shown, never as escape sequences for the terminal.
        output.write(r.type === "line" ? `${prompt}${terminalSafe(r.text)}\n` : prompt === "" ? "" : `${prompt}\n`)
        return r
      }
      if (next !== undefined) return Promise.resolve(answer({ type: "line", text: next }))
      if (ended) return Promise.resolve(answer({ type: "end" }))
      return new Promise<LineRead>((resolve) => (waiting = (r) => resolve(answer(r))))
    },
    suspend: () => {},
    close: () => rl.close()
  }
}

export const linesFor = (input: Readable & { isTTY?: boolean }, output: Writable): LineSource =>
  input.isTTY === true ? terminalLines(input, output) : streamLines(input, output)
