/**
 * Where chat reads its lines. On a terminal: one readline per question, with history kept across
 * questions, so that between questions the terminal is back in its normal mode and Ctrl-C during
 * a turn reaches the process as a signal; at the prompt readline reports Ctrl-C itself. From a
 * pipe: one reader for the whole input (a reader per line would drop what it had buffered), and
 * each line is echoed after the prompt so the transcript reads like the terminal session.
 */
import { createInterface } from "node:readline"
import type { Readable, Writable } from "node:stream"

export type LineRead = { readonly type: "line"; readonly text: string } | { readonly type: "interrupt" } | { readonly type: "end" }

export interface LineSource {
  readonly terminal: boolean
  readonly read: (prompt: string) => Promise<LineRead>
  readonly close: () => void
}

const HISTORY_SIZE = 200

export const terminalLines = (input: Readable, output: Writable): LineSource => {
  let history: Array<string> = []
  let open: { close: () => void } | null = null
  let closed = false
  return {
    terminal: true,
    read: (prompt) =>
      new Promise<LineRead>((resolve) => {
        if (closed) return resolve({ type: "end" })
        const rl = createInterface({ input, output, terminal: true, history, historySize: HISTORY_SIZE, removeHistoryDuplicates: true })
        open = rl
        let done = false
        const finish = (r: LineRead) => {
          if (done) return
          done = true
          history = [...((rl as unknown as { history?: Array<string> }).history ?? history)]
          open = null
          rl.close()
          resolve(r)
        }
        rl.on("SIGINT", () => {
          output.write("^C\n")
          finish({ type: "interrupt" })
        })
        rl.on("close", () => finish({ type: "end" }))
        rl.question(prompt, (text) => finish({ type: "line", text }))
      }),
    close: () => {
      closed = true
      open?.close()
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
        output.write(r.type === "line" ? `${prompt}${r.text}\n` : prompt === "" ? "" : `${prompt}\n`)
        return r
      }
      if (next !== undefined) return Promise.resolve(answer({ type: "line", text: next }))
      if (ended) return Promise.resolve(answer({ type: "end" }))
      return new Promise<LineRead>((resolve) => (waiting = (r) => resolve(answer(r))))
    },
    close: () => rl.close()
  }
}

export const linesFor = (input: Readable & { isTTY?: boolean }, output: Writable): LineSource =>
  input.isTTY === true ? terminalLines(input, output) : streamLines(input, output)
