/**
 * The two test suites. Every test file is in exactly one:
 * - quick (`bun run test`): everything not listed below; what a change is checked with locally.
 * - end-to-end (`bun run test:e2e`): the files listed in END_TO_END: those that need outside tools
 *   (real agent CLIs, a browser, tmux, Postgres), start the `loopguard` CLI as a process, or read whole
 *   corpora. CI runs both (`bun run test:all`).
 * A file moves between suites by adding or removing its line here; scripts/test-suites.test.ts
 * checks that every entry still names a test file and that no quick test file starts the CLI.
 */
import { Glob } from "bun"
import { readdirSync } from "node:fs"
import { join } from "node:path"

export interface EndToEndEntry {
  /** A glob relative to the repository root. */
  readonly pattern: string
  /** Why it is not in the quick suite (a measured time or a tool it needs). */
  readonly why: string
}

/** Seconds are one file's run on the 2-core development machine under a load average of 8-11 (unloaded: about a fifth). */
export const END_TO_END: ReadonlyArray<EndToEndEntry> = [
  // Outside tools and services.
  { pattern: "test/agents.test.ts", why: "installs and drives real agent CLIs behind the proxy (429 s with five agents; Kilo adds 80-110 s)" },
  { pattern: "test/audit-page-browser.test.ts", why: "the audit page in headless Chromium (80 s)" },
  { pattern: "test/*-tmux.test.ts", why: "the chat and run in a real terminal under tmux (13 s each)" },
  { pattern: "test/proxy-replicas.test.ts", why: "two proxy processes on one Postgres" },
  { pattern: "test/pg-password.test.ts", why: "the CLI against a live Postgres (7 s)" },
  { pattern: "test/store-lost.test.ts", why: "the CLI while its Postgres stops answering" },
  { pattern: "packages/effect/src/store/postgres-store.test.ts", why: "the session store suite on a live Postgres" },
  // The `loopguard` CLI started as a process (about a second of startup each time).
  { pattern: "test/cli-newcomer.test.ts", why: "spawns the CLI for every first-run path (80 s)" },
  { pattern: "test/sessions-cli.test.ts", why: "spawns the sessions commands (73 s)" },
  { pattern: "test/store-faults.test.ts", why: "full disks on a tmpfs and two CLI writers (56 s)" },
  { pattern: "test/cli-output.test.ts", why: "the demo, run and chat output through the CLI (50 s)" },
  { pattern: "test/kill9.test.ts", why: "kills the CLI at 14 random moments (48 s)" },
  { pattern: "test/tools-e2e.test.ts", why: "the built-in tools through the CLI (34 s)" },
  { pattern: "test/partial-text.test.ts", why: "a CLI killed mid-reply, then its session read (34 s)" },
  { pattern: "test/secrets-e2e.test.ts", why: "secrets through every CLI output (33 s)" },
  { pattern: "test/found-config-cli.test.ts", why: "a planted ./loopguard.json, a FIFO and /dev/zero in its place, through the CLI (2 s)" },
  { pattern: "test/terminal-escapes.test.ts", why: "escape sequences through the CLI's outputs (29 s)" },
  { pattern: "test/audit-html.test.ts", why: "audit pages written by the CLI (24 s)" },
  { pattern: "test/cli-contract.test.ts", why: "the CLI's exit codes and usage errors (21 s)" },
  { pattern: "test/cli-startup.test.ts", why: "spawns the CLI to list the modules it loads (1 s)" },
  { pattern: "test/response-limits.test.ts", why: "oversized replies, in process and through the CLI (20 s)" },
  { pattern: "test/cli-signals.test.ts", why: "SIGINT and SIGTERM to the CLI (19 s)" },
  { pattern: "test/audit.test.ts", why: "loopguard audit on files and the development traces (18 s)" },
  { pattern: "test/audit-opencode-db.test.ts", why: "loopguard audit and sessions import on OpenCode's database, run as a process (8 s)" },
  { pattern: "test/sessions-import.test.ts", why: "agents' logs imported through the CLI (12 s)" },
  { pattern: "test/proxy-cli.test.ts", why: "loopguard proxy as a process (10 s)" },
  { pattern: "test/proxy-workers.test.ts", why: "loopguard proxy --workers: a supervisor and its worker processes" },
  { pattern: "test/scan-cli.test.ts", why: "loopguard scan as a process on many inputs (9 s)" },
  { pattern: "test/corrupt-record.test.ts", why: "the sessions commands on damaged stores (9 s)" },
  { pattern: "test/lease-fencing.test.ts", why: "two CLI writers, one stopped past its lease (6 s; and on Postgres)" },
  { pattern: "test/env-credentials.test.ts", why: "API keys from the environment through the CLI (4 s)" },
  { pattern: "test/detached-exit.test.ts", why: "the CLI exits while a tool's detached child lives on (3 s)" },
  { pattern: "test/breaker-ladder.test.ts", why: "the breaker's ladder, its last rung through the CLI (3 s)" },
  { pattern: "test/deep-arguments.test.ts", why: "deeply nested tool arguments through the CLI (2 s)" },
  { pattern: "test/pause-e2e.test.ts", why: "try-best pauses, one through the CLI (2 s)" },
  { pattern: "test/renamed-keys-cli.test.ts", why: "old config key names through the CLI (3 s)" },
  // Whole-repository and whole-corpus checks, and large volumes.
  { pattern: "packages/proxy/src/slow-client.test.ts", why: "64 MB replies held back by a client that stops reading, on both HTTP stacks (27 s, 2 GB peak memory)" },
  { pattern: "test/doc-snippets.test.ts", why: "type-checks every code block of the docs with tsc (31 s)" },
  { pattern: "test/examples.test.ts", why: "runs every example program (12 s)" },
  { pattern: "test/healthy-corpus.test.ts", why: "the repetition rule over node_modules' docs and the traces (13 s)" },
  { pattern: "test/harness-traces/*.test.ts", why: "the trace evaluation: generated harness traces and the development traces (18 s)" },
  { pattern: "packages/effect/src/audit/audit-file.dev-traces.test.ts", why: "the streamed audit against the whole-text one on every development trace (35 s)" }
]

/** A test file's name as bun test finds it (its default name patterns). */
const TEST_FILE = /(\.test|_test|\.spec|_spec)\.(ts|tsx|js|jsx|mts|cts|mjs|cjs)$/

/** Every test file under `root` outside node_modules and hidden folders (as bun test skips them), as sorted paths relative to it. */
export const testFiles = (root: string, dir = ""): ReadonlyArray<string> =>
  readdirSync(join(root, dir), { withFileTypes: true })
    .flatMap((e) => {
      const path = dir === "" ? e.name : `${dir}/${e.name}`
      if (e.isDirectory()) return e.name === "node_modules" || e.name.startsWith(".") ? [] : testFiles(root, path)
      return e.isFile() && TEST_FILE.test(e.name) ? [path] : []
    })
    .sort()

/** Whether `file` (relative to the root) belongs to the end-to-end suite. */
export const isEndToEnd = (file: string, entries: ReadonlyArray<EndToEndEntry> = END_TO_END): boolean =>
  entries.some((e) => new Glob(e.pattern).match(file))

/** The files of each suite; together they are `files`, each once. */
export const splitSuites = (files: ReadonlyArray<string>, entries: ReadonlyArray<EndToEndEntry> = END_TO_END) => ({
  quick: files.filter((f) => !isEndToEnd(f, entries)),
  e2e: files.filter((f) => isEndToEnd(f, entries))
})
