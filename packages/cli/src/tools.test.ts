import { afterAll, describe, expect, test } from "bun:test"
import { execFileSync } from "node:child_process"
import { mkdtempSync, mkdirSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { makeTools } from "@loopguard/effect"
import { Effect } from "effect"
import { builtinTools, MAX_LISTED_ENTRIES, type BuiltinToolOptions } from "./tools.js"
import { terminalApproval } from "./tools/approve.js"

/** Live processes whose command line holds `marker`, polled until none is left (up to 10 s). */
const leftoversOf = async (marker: string): Promise<Array<string>> => {
  const live = () =>
    execFileSync("ps", ["-eo", "stat=,args="], { encoding: "utf8" })
      .split("\n")
      .filter((l) => l.includes(marker) && !l.trimStart().startsWith("Z") && !l.includes("ps -eo"))
  for (let i = 0; i < 100 && live().length > 0; i++) await new Promise((r) => setTimeout(r, 100))
  return live()
}

const base = mkdtempSync(join(tmpdir(), "lg-tools-"))
const dir = join(base, "work")
mkdirSync(dir)
mkdirSync(join(base, "outside"))
writeFileSync(join(base, "outside", "secret.txt"), "TOP SECRET")
writeFileSync(join(dir, "a.txt"), "hello")
writeFileSync(join(dir, "..foo"), "dots are a name")
mkdirSync(join(dir, "sub"))
symlinkSync(join(base, "outside", "secret.txt"), join(dir, "link.txt"))
symlinkSync(join(base, "outside"), join(dir, "linkdir"))
symlinkSync("a.txt", join(dir, "inner-link.txt"))

afterAll(() => rmSync(base, { recursive: true, force: true }))

const toolsIn = (cwd: string, options: BuiltinToolOptions = {}, timeoutMs = 20_000) =>
  new Map(builtinTools(cwd, timeoutMs, options).map((t) => [t.spec.name, t]))
const tools = toolsIn(dir)
const run = (name: string, input: Record<string, unknown>, set = tools) => set.get(name)!.run(input, new AbortController().signal)

describe("the file tools' confinement", () => {
  test("read_file and list_dir work inside the working directory", async () => {
    expect(await run("read_file", { path: "a.txt" })).toEqual({ state: "completed", output: "hello" })
    expect((await run("list_dir", {})).output).toBe("..foo\na.txt\ninner-link.txt@\nlink.txt@\nlinkdir@\nsub/")
  })
  test("paths outside the working directory are refused", async () => {
    await expect(run("read_file", { path: "../../etc/passwd" })).rejects.toThrow(/outside the working directory/)
    await expect(run("read_file", { path: "/etc/passwd" })).rejects.toThrow(/outside the working directory/)
  })
  test("a symlink inside that points outside is refused, for the target and for a parent", async () => {
    await expect(run("read_file", { path: "link.txt" })).rejects.toThrow(/outside the working directory/)
    await expect(run("read_file", { path: "linkdir/secret.txt" })).rejects.toThrow(/outside the working directory/)
    await expect(run("list_dir", { path: "linkdir" })).rejects.toThrow(/outside the working directory/)
  })
  test("a symlink that stays inside is followed", async () => {
    expect((await run("read_file", { path: "inner-link.txt" })).output).toBe("hello")
  })
  test("a huge directory is listed up to a bound, with a note", async () => {
    const big = join(base, "big-dir")
    mkdirSync(big)
    for (let i = 0; i < MAX_LISTED_ENTRIES + 5; i++) writeFileSync(join(big, `f${i}`), "")
    const r = await run("list_dir", {}, toolsIn(big, { maxOutputChars: 100_000 }))
    expect(r.output.split("\n")).toHaveLength(MAX_LISTED_ENTRIES + 1)
    expect(r.output).toContain(`[more than ${MAX_LISTED_ENTRIES} entries; only the first ${MAX_LISTED_ENTRIES} read are shown]`)
  }, 30_000)
  test("a file named ..foo is an ordinary name", async () => {
    expect((await run("read_file", { path: "..foo" })).output).toBe("dots are a name")
  })
})

describe("bounded reads", () => {
  test("a FIFO is refused at once with a clear tool error", async () => {
    execFileSync("mkfifo", [join(dir, "pipe")])
    await expect(run("read_file", { path: "pipe" })).rejects.toThrow(/pipe is a FIFO \(named pipe\): refused/)
  }, 30_000)
  test("a device is refused", async () => {
    await expect(run("read_file", { path: "zero" }, toolsIn("/dev"))).rejects.toThrow(/zero is a device: refused/)
  }, 30_000)
  test("a socket is refused", () =>
    Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const sockDir = mkdtempSync(join(tmpdir(), "lg-sock-"))
          const server = yield* Effect.acquireRelease(Effect.sync(createServer), (s) => Effect.sync(() => s.close()))
          yield* Effect.promise(() => new Promise<void>((r) => server.listen(join(sockDir, "s.sock"), r)))
          yield* Effect.promise(async () => {
            await expect(run("read_file", { path: "s.sock" }, toolsIn(sockDir))).rejects.toThrow(/s\.sock is a socket: refused/)
          })
        })
      )
    ), 30_000)
  test("a 1 GB sparse file is not read whole: the beginning comes back and memory stays flat", async () => {
    const big = join(dir, "big.bin")
    writeFileSync(big, "start of the file\n")
    truncateSync(big, 1024 ** 3)
    const before = process.memoryUsage().rss
    const r = await run("read_file", { path: "big.bin" }, toolsIn(dir, { maxOutputChars: 1_000 }))
    const grown = process.memoryUsage().rss - before
    expect(r.output.startsWith("start of the file\n")).toBe(true)
    expect(r.output).toContain(`[file is ${1024 ** 3} bytes; only the beginning is shown]`)
    expect(grown).toBeLessThan(100 * 1024 ** 2)
  }, 30_000)
})

describe("the bash tool", () => {
  test("reports the exit code and output, in the working directory", async () => {
    expect(await run("bash", { command: "pwd; exit 3" })).toEqual({ state: "completed", output: `${dir}\n`, exitCode: 3 })
  })
  test("a missing or non-string command is a tool error, nothing is run", async () => {
    expect((await run("bash", {})).error).toMatch(/no command given/)
    expect((await run("bash", { command: ["ls"] })).error).toMatch(/no command given/)
  })
  test("is killed at the timeout with every process it started: no orphan outlives the call", async () => {
    // A child shell with its own sleep, a background sleep and a foreground one: three processes to reap.
    const r = await run("bash", { command: "sh -c 'sleep 303.201' & sleep 303.202 & sleep 303.203; echo never" }, toolsIn(dir, {}, 1_000))
    expect(r.state).toBe("error")
    expect(r.error).toMatch(/timed out after 1000 ms/)
    expect(r.output).not.toContain("never")
    for (const marker of ["303.201", "303.202", "303.203"]) expect(await leftoversOf(marker)).toEqual([])
  }, 30_000)
  test("does not see the API key variable, LOOPGUARD_* or deny-listed names", async () => {
    const env = { PATH: process.env["PATH"], MY_KEY: "sk-live-123", LOOPGUARD_X: "1", GITHUB_TOKEN: "ghp", KEEP: "kept" }
    const set = toolsIn(dir, { env, secretEnvNames: ["MY_KEY"] })
    const r = await run("bash", { command: 'echo "[$MY_KEY][$LOOPGUARD_X][$GITHUB_TOKEN][$KEEP]"' }, set)
    expect(r.output).toBe("[][][][kept]\n")
    const allow = toolsIn(dir, { env, envAllow: ["PATH"] })
    expect((await run("bash", { command: 'echo "[$KEEP]"' }, allow)).output).toBe("[]\n")
  }, 30_000)
  test("with approval on, a command runs only after a yes; without a terminal it is refused unrun", async () => {
    const marker = join(dir, "ran")
    const viaRuntime = (options: BuiltinToolOptions) => (command: string) =>
      Effect.runPromise(makeTools(builtinTools(dir, 20_000, options), 20_000).execute({ id: "c", name: "bash", input: { command } }))
    const asked: Array<string> = []
    const no = viaRuntime({ approve: terminalApproval(true, async (q) => (asked.push(q), "n")) })
    expect(await no(`touch ${marker}`)).toEqual({ state: "error", output: "", error: "the user did not approve this command; it was not run", notRun: true })
    expect(asked[0]).toContain(`touch ${marker}`)
    const headless = viaRuntime({ approve: terminalApproval(false, async () => "y") })
    expect((await headless(`touch ${marker}`)).error).toMatch(/no terminal to ask on/)
    expect(execFileSync("ls", [dir], { encoding: "utf8" })).not.toContain("ran")
    const yes = viaRuntime({ approve: terminalApproval(true, async () => "y") })
    expect(await yes(`touch ${marker}; echo ok`)).toEqual({ state: "completed", output: "ok\n", exitCode: 0 })
    expect(execFileSync("ls", [dir], { encoding: "utf8" })).toContain("ran")
  }, 30_000)
})

describe("tools.maxOutputChars: redacted, then cut", () => {
  // A key of a well-known shape (fake), placed so that the head/tail cut of a 200-character cap splits it.
  const KEY = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
  const { makeRedactor } = require("@loopguard/core/try-best") as typeof import("@loopguard/core/try-best")
  const capped = makeTools(builtinTools(dir, 20_000, { maxOutputChars: 200 }), 20_000, makeRedactor([]))
  const outputOf = (name: string, input: Record<string, unknown>) => Effect.runPromise(capped.execute({ id: "c1", name, input })).then((r) => r.output)
  const pieces = (text: string) => [KEY.slice(8, 16), KEY.slice(-8)].filter((p) => text.includes(p))

  test("a key the head/tail cut splits in two (4 characters in the head, the rest in the tail) reaches the model as [REDACTED]", async () => {
    const output = await outputOf("bash", { command: `printf '%s' "$(printf 'x%.0s' $(seq 95)) ${KEY} $(printf 'y%.0s' $(seq 70))"` })
    expect(output).toContain("[REDACTED]")
    expect(pieces(output)).toEqual([])
  }, 30_000)

  test("a key split where a long output's tail begins, and one at read_file's cut, are not half shown", async () => {
    const tailCut = await outputOf("bash", { command: `head -c 30000 /dev/zero | tr '\\0' 'z'; printf ' %s %s' "${KEY}" "$(printf 'w%.0s' $(seq 80))"` })
    expect(pieces(tailCut)).toEqual([])
    writeFileSync(join(dir, "cut-key.txt"), `${"r".repeat(165)} ${KEY} more`)
    expect(pieces(await outputOf("read_file", { path: "cut-key.txt" }))).toEqual([])
  }, 30_000)
})
