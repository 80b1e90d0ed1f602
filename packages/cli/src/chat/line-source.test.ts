import { expect, test } from "bun:test"
import { PassThrough } from "node:stream"
import { streamLines } from "./line-source.js"

test("piped lines are read one by one, echoed after the prompt, then the end", async () => {
  const input = new PassThrough()
  const output = new PassThrough()
  let shown = ""
  output.on("data", (d) => (shown += d))
  const lines = streamLines(input, output)
  input.write("first\nsec")
  expect(await lines.read("> ")).toEqual({ type: "line", text: "first" })
  const pending = lines.read("> ")
  input.write("ond\nthird\n")
  expect(await pending).toEqual({ type: "line", text: "second" })
  input.end()
  expect(await lines.read("> ")).toEqual({ type: "line", text: "third" })
  expect(await lines.read("> ")).toEqual({ type: "end" })
  expect(shown).toBe("> first\n> second\n> third\n> \n")
}, 30_000)

test("once closed, a source reads no more: the end at once", async () => {
  const input = new PassThrough()
  const lines = streamLines(input, new PassThrough())
  input.write("queued\n")
  lines.close()
  expect(await lines.read("> ")).toEqual({ type: "line", text: "queued" })
  expect(await lines.read("> ")).toEqual({ type: "end" })
}, 30_000)
