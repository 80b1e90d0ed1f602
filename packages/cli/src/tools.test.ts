import { describe, expect, test } from "bun:test"
import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { builtinTools } from "./tools.js"

const dir = mkdtempSync(join(tmpdir(), "lg-tools-"))
writeFileSync(join(dir, "a.txt"), "hello")
mkdirSync(join(dir, "sub"))
const tools = new Map(builtinTools(dir, 1_000).map((t) => [t.spec.name, t]))
const run = (name: string, input: Record<string, unknown>) => tools.get(name)!.run(input, new AbortController().signal)

describe("the run command's tools", () => {
  test("read_file and list_dir work inside the working directory", async () => {
    expect(await run("read_file", { path: "a.txt" })).toEqual({ state: "completed", output: "hello" })
    expect((await run("list_dir", {})).output).toBe("a.txt\nsub/")
  })
  test("paths outside the working directory are refused", async () => {
    await expect(run("read_file", { path: "../../etc/passwd" })).rejects.toThrow(/outside the working directory/)
  })
  test("bash reports the exit code and output, in the working directory", async () => {
    expect(await run("bash", { command: "pwd; exit 3" })).toEqual({ state: "completed", output: `${dir}\n`, exitCode: 3 })
  })
  test("bash is killed at the timeout", async () => {
    const r = await run("bash", { command: "sleep 5" })
    expect(r.state).toBe("error")
    expect(r.error).toMatch(/timed out after 1000 ms/)
  })
})
