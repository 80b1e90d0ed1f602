import { describe, expect, test } from "bun:test"
import { DEFAULT_TRY_BEST_OPTIONS, resolveTryBestOptions } from "./options.js"
import { isVerificationCommand, simpleCommands, verificationMatcher } from "./verification.js"

const matcher = verificationMatcher(DEFAULT_TRY_BEST_OPTIONS)
const verifies = (command: string): boolean => isVerificationCommand(command, matcher)

describe("isVerificationCommand", () => {
  test.each([
    "bun test",
    "bun test src/a.test.ts",
    "npm test",
    "npm t",
    "npm run test",
    "npm run test:unit -- --watch=false",
    "npm --prefix web run build",
    "pnpm -r test",
    "pnpm lint",
    "yarn typecheck",
    "bun run typecheck",
    "npx tsc --noEmit",
    "bunx tsc -b",
    "tsc -p .",
    "./node_modules/.bin/tsc",
    "npx vitest run",
    "cargo test",
    "cargo +nightly clippy --all",
    "cargo build --release",
    "cargo check",
    "make test",
    "make -j4",
    "cd build && make -j8 2>&1 | tail -20",
    "make -C build check",
    "make lint",
    "pytest -x tests/test_a.py",
    "python -m pytest tests",
    "python3 -m pytest -q",
    "go test ./...",
    "uv run pytest",
    "PYTHONPATH=. python3 -m pytest tests/x.py",
    "timeout 120 npm test",
    "cd /testbed && python -m pytest tests/a.py 2>&1 | tail -20",
    "bash -lc 'npm test'",
    "bash -lc npm test",
    "./gradlew :core:test",
    "mvn -q clean test",
    "python tests/runtests.py queries",
    "python manage.py test app",
    "python reproduce_issue.py",
    "python /testbed/test_edge_cases.py",
    "node test.js",
    "javac Main.java",
    "sh run-tests.sh",
    "./test.sh",
    "bash scripts/test.sh --fast",
    "sh lint.sh",
    "./scripts/run_tests.sh",
    "./runtests.sh",
    "bash -x ./build.sh"
  ])("verification: %s", (command) => {
    expect(verifies(command)).toBe(true)
  })

  test.each([
    "ls -la",
    "cat tsconfig.json",
    "grep -r pytest .",
    "echo done",
    "npm install",
    "npm run dev",
    "bun install",
    "git diff",
    "sed -n '1,20p' test_file.py",
    "cargo run",
    "go run main.go",
    "make install",
    "python setup.py develop",
    "python manage.py migrate",
    "timeout 60 python server.py",
    "find . -name '*.test.ts'",
    "./deploy.sh",
    "sh latest.sh",
    "./contest.sh",
    "cat test.sh",
    "sh test.sh.bak"
  ])("not verification: %s", (command) => {
    expect(verifies(command)).toBe(false)
  })

  test("the pattern list is data: a project can add its own", () => {
    const options = resolveTryBestOptions({
      verificationPatterns: [...DEFAULT_TRY_BEST_OPTIONS.verificationPatterns, String.raw`\./ci\.sh`]
    })
    expect(isVerificationCommand("./ci.sh --fast", verificationMatcher(options))).toBe(true)
    expect(verifies("./ci.sh --fast")).toBe(false)
  })

  test("a bad configured pattern is reported when the matcher is built", () => {
    expect(() => verificationMatcher(resolveTryBestOptions({ verificationPatterns: ["("] }))).toThrow(/invalid verification pattern/)
  })
})

describe("simpleCommands", () => {
  test("cuts at shell separators and strips wrappers", () => {
    expect(simpleCommands("cd app && FOO=1 timeout 30 npx tsc; echo ok | tee log & wait", matcher.wrappers)).toEqual([
      "cd app",
      "tsc",
      "echo ok",
      "tee log",
      "wait"
    ])
  })
  test("2>&1 is a redirection, not a separator", () => {
    expect(simpleCommands("pytest 2>&1", matcher.wrappers)).toEqual(["pytest 2>&1"])
  })
})
