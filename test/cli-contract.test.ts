/**
 * The CLI contract from outside (ARCHITECTURE.md): parser errors exit 2 with ONE line on stderr
 * naming the flag and nothing on stdout; help only on --help; --version prints the package version.
 */
import { describe, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { resolve } from "node:path"

const root = resolve(import.meta.dir, "..")
const main = resolve(root, "packages/cli/src/main.ts")

const cli = async (args: ReadonlyArray<string>) => {
  const child = Bun.spawn([process.execPath, main, ...args], { cwd: root, stdin: "ignore", stdout: "pipe", stderr: "pipe" })
  const killer = setTimeout(() => child.kill(), 30_000)
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  clearTimeout(killer)
  return { stdout, stderr, code }
}

const stderrLines = (s: string) => s.split("\n").filter((l) => l.length > 0)

describe("loopguard command-line contract", () => {
  const badUsage: ReadonlyArray<[string, ReadonlyArray<string>, string]> = [
    ["an unknown flag", ["scan", "--windo", "5"], "--windo"],
    ["a bad flag value", ["scan", "--window", "abc"], "--window"],
    ["a missing required flag", ["run", "--model", "m", "--prompt", "p"], "--base-url"],
    ["a bad integer on run", ["run", "--base-url", "http://127.0.0.1:9", "--model", "m", "--prompt", "p", "--max-steps", "nope"], "--max-steps"],
    ["a base URL with a query (the provider would put its paths after it)", ["run", "--base-url", "http://127.0.0.1:9/v1?token=QUERYSECRET", "--model", "m", "--prompt", "p"], "--base-url: give the endpoint without a query"],
    ["an empty --session-dir (it would mean the current folder)", ["run", "--base-url", "http://127.0.0.1:9", "--model", "m", "--prompt", "p", "--session-dir="], "--session-dir: empty"],
    ["an empty --session-dir on import", ["sessions", "import", "package.json", "--session-dir=", "--as", "x"], "--session-dir: empty"],
    ["an empty --api-key-env", ["run", "--base-url", "http://127.0.0.1:9", "--model", "m", "--prompt", "p", "--api-key-env="], "--api-key-env: empty"],
    ["a session id with a space", ["run", "--base-url", "http://127.0.0.1:9", "--model", "m", "--prompt", "p", "--session", "a b"], '--session "a b"'],
    ["an unknown command", ["frob"], "frob"],
    ["no command", [], "--help"]
  ]
  for (const [name, args, named] of badUsage) {
    test(
      `${name}: exit 2, one line on stderr naming ${named}, no help`,
      async () => {
        const r = await cli(args)
        expect(r.code).toBe(2)
        expect(r.stdout).toBe("")
        const lines = stderrLines(r.stderr)
        expect(lines).toHaveLength(1)
        expect(lines[0]).toContain(named)
        expect(r.stderr).not.toContain("USAGE")
      },
      30_000
    )
  }

  test(
    "--wizard is not offered: one line naming it, exit 2, nothing run",
    async () => {
      const r = await cli(["scan", "--wizard"])
      expect([r.code, r.stdout, stderrLines(r.stderr)]).toEqual([2, "", ["loopguard: --wizard is not supported; `loopguard COMMAND --help` lists the flags"]])
      // Nor does the help list it.
      for (const args of [["--help"], ["demo", "--help"]]) expect((await cli(args)).stdout).not.toContain("--wizard")
    },
    30_000
  )

  test(
    "--help prints the help on stdout and exits 0",
    async () => {
      const r = await cli(["scan", "--help"])
      expect(r.code).toBe(0)
      expect(r.stdout).toContain("USAGE")
      expect(r.stdout).toContain("--window")
    },
    30_000
  )

  test(
    "--version prints the version in package.json",
    async () => {
      const { version } = JSON.parse(readFileSync(resolve(root, "packages/cli/package.json"), "utf8")) as { version: string }
      const r = await cli(["--version"])
      expect(r.code).toBe(0)
      expect(r.stdout.trim()).toBe(`loopguard v${version}`)
    },
    30_000
  )
})
