import { expect, test } from "bun:test"
import { PassThrough } from "node:stream"
import { openTerminalReadline } from "./terminal-readline.js"

/** A terminal's two ends as plain streams (readline in terminal mode only needs an output to write to). */
const terminal = () => {
  const input = new PassThrough()
  const output = Object.assign(new PassThrough(), { columns: 160 })
  output.resume()
  return { input, output }
}

const lineOf = (input: PassThrough, output: PassThrough, text: string) => {
  const rl = openTerminalReadline({ input, output })
  const line = new Promise<string>((resolve) => rl.once("line", resolve))
  input.write(text + "\r")
  return line.finally(() => rl.close())
}

test("a paste into a later readline on the same input is as fast as into the first (not quadratic)", async () => {
  const { input, output } = terminal()
  // The first interface on the stream (chat's shell question), then the prompt, then one per turn.
  expect(await lineOf(input, output, "n")).toBe("n")
  expect(await lineOf(input, output, "hello")).toBe("hello")
  const pasted = "lorem ipsum dolor ".repeat(1000).slice(0, 16_000)
  const started = performance.now()
  expect(await lineOf(input, output, pasted)).toBe(pasted)
  // Measured: about 0.1 s; each character measuring the whole line again took 28 s here.
  expect(performance.now() - started).toBeLessThan(5_000)
}, 120_000)
