/** The CLI reads a config file that still spells keys in snake_case, with one warning line each on stderr. (Old names on purpose.) */
import { expect, test } from "bun:test"
import { spawn } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { cliEnv, scratch } from "./cli-fixture.js"

const ROOT = resolve(import.meta.dir, "..")
const { workdir } = scratch("lg-renamed-keys-")

const cli = (args: ReadonlyArray<string>): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  new Promise((done) => {
    const child = spawn(process.execPath, ["run", "packages/cli/src/main.ts", ...args], { cwd: ROOT, env: cliEnv(), stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    child.on("close", (code) => done({ code, stdout, stderr }))
  })

test("an old key is read and warned about once, naming file:line and the new key; a bad value under it is exit 2 naming its line", async () => {
  const dir = workdir()
  const config = join(dir, "loopguard.jsonc")
  writeFileSync(config, `{\n  // written before the rename\n  "try_best": { "max_resumes": 3 }\n}`)
  const ok = await cli(["sessions", "list", "--session-dir", dir, "--config", config, "--json"])
  expect(ok.code).toBe(0)
  expect(ok.stderr.trim().split("\n")).toEqual([
    `loopguard: warning: ${config}:3: config key try_best is deprecated, use tryBest (the snake_case name is accepted for one release)`,
    `loopguard: warning: ${config}:3: config key try_best.max_resumes is deprecated, use tryBest.maxResumes (the snake_case name is accepted for one release)`
  ])

  writeFileSync(config, `{\n  "try_best": {\n    "max_resumes": -1\n  }\n}`)
  const bad = await cli(["sessions", "list", "--session-dir", dir, "--config", config, "--json"])
  expect(bad.code).toBe(2)
  expect(bad.stderr).toContain(`config field tryBest.maxResumes (from ${config}:3): Expected a value greater than or equal to 0`)
  expect(bad.stderr).not.toMatch(/\n\s+at /)
}, 120_000)
