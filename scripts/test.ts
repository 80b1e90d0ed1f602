/**
 * Runs a test suite: `bun run test` (quick), `bun run test:e2e` (end-to-end), `bun run test:all`
 * (both, one after the other; the exit status fails if either failed). Which file is in which suite
 * is decided in scripts/test-suites.ts. Arguments after the suite name go to `bun test`.
 */
import { resolve } from "node:path"
import { splitSuites, testFiles } from "./test-suites.js"

const ROOT = resolve(import.meta.dir, "..")
const SUITES = ["quick", "e2e", "all"] as const
type Suite = (typeof SUITES)[number]

/** One `bun test` over `files`; resolves to its exit code. */
const runBatch = async (name: string, files: ReadonlyArray<string>, extra: ReadonlyArray<string>): Promise<number> => {
  process.stdout.write(`== ${name}: ${files.length} test files\n`)
  if (files.length === 0) return 0
  const child = Bun.spawn([process.execPath, "test", "--timeout", "60000", ...extra, ...files.map((f) => `./${f}`)], { cwd: ROOT, stdio: ["inherit", "inherit", "inherit"] })
  return await child.exited
}

/**
 * A suite in two `bun test` processes, one after the other: the packages' own tests, then the rest.
 * One process keeps every module and test file it loaded, so two halve the peak memory.
 */
const runFiles = async (name: string, files: ReadonlyArray<string>, extra: ReadonlyArray<string>): Promise<number> => {
  const inPackages = files.filter((f) => f.startsWith("packages/"))
  const codes = [
    await runBatch(`${name} suite, packages/`, inPackages, extra),
    await runBatch(`${name} suite, the rest`, files.filter((f) => !inPackages.includes(f)), extra)
  ]
  return codes.find((c) => c !== 0) ?? 0
}

const main = async (): Promise<number> => {
  const [suite, ...extra] = process.argv.slice(2)
  if (!SUITES.includes(suite as Suite)) {
    process.stderr.write(`scripts/test.ts: unknown suite "${suite ?? ""}" (expected one of: ${SUITES.join(", ")})\n`)
    return 2
  }
  const { quick, e2e } = splitSuites(testFiles(ROOT))
  const codes: Array<number> = []
  if (suite !== "e2e") codes.push(await runFiles("quick", quick, extra))
  if (suite !== "quick") codes.push(await runFiles("end-to-end", e2e, extra))
  return codes.find((c) => c !== 0) ?? 0
}

process.exit(await main())
