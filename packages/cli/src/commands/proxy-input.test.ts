/** What `loopguard proxy` and `run` refuse or say about their inputs: an upstream with a query, a key given as a variable name. */
import { expect, test } from "bun:test"
import { join } from "node:path"
import { warnIfNoApiKey } from "../endpoint.js"
import { unsetVariableShown } from "../env-name.js"
import { upstreamProblem } from "@loopguard/proxy"

const MAIN = join(import.meta.dir, "../main.ts")
const PLANTED_KEY = "gsk_PlainGroqKeyPROBE10abcdef"

const cli = (args: ReadonlyArray<string>, env: Record<string, string> = {}) => {
  const child = Bun.spawnSync([process.execPath, MAIN, ...args], { stdout: "pipe", stderr: "pipe", env: { ...process.env, ...env } })
  return { code: child.exitCode, stderr: child.stderr.toString() }
}

test("an upstream with a query or fragment is refused, naming the flag and not showing the query", () => {
  expect(upstreamProblem("http://127.0.0.1:8080/v1")).toBeNull()
  for (const bad of ["http://h/v1?api-version=2024-10-21", "http://h/v1#x", "http://h/v1?"]) expect(upstreamProblem(bad)).toContain("query or fragment")
  const flag = cli(["proxy", "--upstream", "http://h/v1?key=QueryKeyPROBE10"])
  expect(flag.code).toBe(2)
  expect(flag.stderr).toContain("--upstream: http://h/v1 has a query or fragment")
  expect(flag.stderr).not.toContain("QueryKeyPROBE10")
  const env = cli(["proxy"], { LOOPGUARD_PROXY_UPSTREAM: "http://h/v1?api-version=x" })
  expect(env.code).toBe(2)
  expect(env.stderr).toContain("proxy.upstream: http://h/v1 has a query or fragment")
}, 30_000)

test("an unset variable is named only when its name looks like one: a key given as the name is never echoed", () => {
  expect(unsetVariableShown("OPENAI_API_KEY", "--api-key-env")).toBe("OPENAI_API_KEY")
  expect(unsetVariableShown(PLANTED_KEY, "--api-key-env")).not.toContain("gsk_")
  expect(unsetVariableShown(PLANTED_KEY, "--api-key-env")).toContain("--api-key-env")
  const written: Array<string> = []
  const write = process.stderr.write
  process.stderr.write = ((text: string) => (written.push(text), true)) as typeof process.stderr.write
  try {
    warnIfNoApiKey({ apiKeyEnv: PLANTED_KEY, secrets: [] })
  } finally {
    process.stderr.write = write
  }
  expect(written.join("")).toContain("looks like a key, not a variable name")
  expect(written.join("")).not.toContain("PlainGroqKey")
})

test("proxy.upstreamKeyEnv and proxy.tokenEnv given a key: the error never shows it (exit 2)", () => {
  const held = cli(["proxy", "--upstream", "http://h/v1"], { LOOPGUARD_PROXY_UPSTREAM_KEY_ENV: PLANTED_KEY })
  expect(held.code).toBe(2)
  expect(held.stderr).toContain("proxy.upstreamKeyEnv")
  expect(held.stderr).not.toContain("PlainGroqKey")
  const token = cli(["proxy", "--upstream", "http://h/v1"], { LOOPGUARD_PROXY_UPSTREAM_KEY_ENV: "LG_TEST_HELD_KEY", LG_TEST_HELD_KEY: "upstream-key-value-1234", LOOPGUARD_PROXY_TOKEN_ENV: PLANTED_KEY })
  expect(token.code).toBe(2)
  expect(token.stderr).toContain("proxy.tokenEnv")
  expect(token.stderr).not.toContain("PlainGroqKey")
}, 30_000)

test("an upstream URL carrying a user name or password is refused without echoing the password (exit 2)", () => {
  expect(upstreamProblem("http://alice:UrlPassPROBE@127.0.0.1:8080/v1")).toContain("carries a user name or password")
  expect(upstreamProblem("http://alice:UrlPassPROBE@127.0.0.1:8080/v1")).not.toContain("UrlPassPROBE")
  const flag = cli(["proxy", "--upstream", "http://alice:UrlPassPROBE@127.0.0.1:8080/v1"])
  expect(flag.code).toBe(2)
  expect(flag.stderr).toContain("--upstream: http://127.0.0.1:8080/v1 carries a user name or password")
  expect(flag.stderr).not.toContain("UrlPassPROBE")
}, 30_000)

test("a route's keyEnv is held like proxy.upstreamKeyEnv: unset, or without a token, the proxy does not start (exit 2)", async () => {
  const dir = await import("node:fs/promises").then((fs) => fs.mkdtemp(join(import.meta.dir, ".route-key-")))
  try {
    const config = join(dir, "config.json")
    await Bun.write(config, JSON.stringify({ proxy: { upstream: "http://127.0.0.1:9/v1", routes: { "claude-": { upstream: "http://127.0.0.1:9/anthropic", keyEnv: "LG_TEST_ROUTE_KEY" } } } }))
    const unset = cli(["proxy", "--config", config], { LG_TEST_ROUTE_KEY: "" })
    expect(unset.code).toBe(2)
    expect(unset.stderr).toContain("proxy.routes.claude-.keyEnv names LG_TEST_ROUTE_KEY, which is not set")
    const noToken = cli(["proxy", "--config", config], { LG_TEST_ROUTE_KEY: "route-key-value-1234", LOOPGUARD_PROXY_TOKEN: "" })
    expect(noToken.code).toBe(2)
    expect(noToken.stderr).toContain("proxy.routes.claude-.keyEnv: the proxy holds an upstream key, so clients must present a token")
    expect(noToken.stderr).not.toContain("route-key-value-1234")
  } finally {
    await import("node:fs/promises").then((fs) => fs.rm(dir, { recursive: true, force: true }))
  }
}, 30_000)
