import { expect, test } from "bun:test"
import { batchedLines } from "./batched-lines.js"

test("lines written within the delay go out together, in order, once", async () => {
  const writes: Array<string> = []
  const lines = batchedLines((text) => writes.push(text), 20)
  lines.write("one\n")
  lines.write("two\n")
  expect(writes).toEqual([])
  await Bun.sleep(200)
  expect(writes).toEqual(["one\ntwo\n"])
  lines.write("three\n")
  await Bun.sleep(200)
  expect(writes).toEqual(["one\ntwo\n", "three\n"])
})

test("flush writes what is kept at once, and nothing when nothing is kept", () => {
  const writes: Array<string> = []
  const lines = batchedLines((text) => writes.push(text), 60_000)
  lines.flush()
  lines.write("a\n")
  lines.flush()
  lines.flush()
  expect(writes).toEqual(["a\n"])
})

test("kept text past maxChars is written without waiting", () => {
  const writes: Array<string> = []
  const lines = batchedLines((text) => writes.push(text), 60_000, 10)
  lines.write("12345\n")
  expect(writes).toEqual([])
  lines.write("67890\n")
  expect(writes).toEqual(["12345\n67890\n"])
  lines.write("x\n")
  lines.flush()
  expect(writes).toEqual(["12345\n67890\n", "x\n"])
})

test("a pending batch does not keep the process alive", async () => {
  const child = Bun.spawn([process.execPath, "-e", `const { batchedLines } = await import(${JSON.stringify(import.meta.dir + "/batched-lines.ts")}); const l = batchedLines((t) => process.stdout.write(t), 60_000); l.write("kept\\n"); process.on("exit", l.flush)`], { stdout: "pipe" })
  const exited = await Promise.race([child.exited, Bun.sleep(20_000).then(() => "timeout")])
  expect(exited).toBe(0)
  expect(await new Response(child.stdout).text()).toBe("kept\n")
}, 30_000)
