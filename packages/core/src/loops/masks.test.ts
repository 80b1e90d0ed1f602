import { describe, expect, test } from "bun:test"
import fc from "fast-check"
import { maskArguments, maskInputEcho, maskObservation, maskVolatile } from "./masks.js"

describe("maskObservation", () => {
  test("a six-character hex label (Codex's `Chunk ID: 5f1305`) is an id, not the answer", () => {
    const run = (id: string) => `Chunk ID: ${id}\nWall time: 0.0011 seconds\nProcess exited with code 0\nOutput:\nx`
    expect(maskObservation(run("5f1305"))).toBe(maskObservation(run("a07c9e")))
    expect(maskObservation("found 3 results")).not.toBe(maskObservation("found no results"))
  })
})

describe("maskVolatile", () => {
  test("what changes between two runs of one command is masked; answers are kept", () => {
    expect(maskVolatile("done in 0.42s at 2026-11-30T19:02:11Z (pid 4242)")).toBe(maskVolatile("done in 12 ms at 2026-12-01 08:00:00 (pid 99)"))
    expect(maskVolatile("object at 0x7f3a2b1c commit 3f9a2c1d7e")).toBe(maskVolatile("object at 0x10 commit 0b1c2d3e4f5a"))
    expect(maskVolatile("answer=122 steps=5")).not.toBe(maskVolatile("answer=129 steps=5"))
    expect(maskVolatile("error: 'foo' undeclared")).not.toBe(maskVolatile("error: 'bar' undeclared"))
  })
})

describe("random ids with a kind prefix", () => {
  test("a request id new on every call is no new answer; a test named in snake case stays", () => {
    const run = (id: string) => `FAIL test/payments.int.test.ts\n  StripeInvalidRequestError: No such customer\n  request-id: ${id}`
    expect(maskObservation(run("req_PRyHEBdAYASzmL"))).toBe(maskObservation(run("req_nFmJBZRxGQTmak")))
    expect(maskVolatile(run("req_PRyHEBdAYASzmL"))).toBe(maskVolatile(run("req_nFmJBZRxGQTmak")))
    expect(maskVolatile("msg_01XFDUDYJgAACzvnptvVoYEL done")).toBe(maskVolatile("msg_01Aq9w938a90dw8q done"))
    expect(maskVolatile("FAILED test_creates_charge")).not.toBe(maskVolatile("FAILED test_refunds_charge"))
  })
})

describe("maskArguments", () => {
  test("an output that echoes the command's arguments is the same answer, whole words only", () => {
    expect(maskArguments("Trying 17... Wrong answer.", "python solve.py 17")).toBe(maskArguments("Trying 18... Wrong answer.", "python solve.py 18"))
    expect(maskArguments("No matching distribution found for torch==1.9.0", "pip install torch==1.9.0")).toBe(
      maskArguments("No matching distribution found for torch==2.0.1", "pip install torch==2.0.1")
    )
    // The guess "flag" leaves "flag.txt" alone.
    expect(maskArguments("skipping: flag.txt incorrect password", "unzip -P flag s.zip")).toBe(maskArguments("skipping: flag.txt incorrect password", "unzip -P admin s.zip"))
  })

  test("given the output's volatile mask, the answer is the same as without it, echo or none", () => {
    for (const [output, command] of [
      ["Trying 17... Wrong answer at 12:01:02.", "python solve.py 17"],
      ["build took 3.2s, 0 errors", "make all"],
      ["no echo here, pid 4242", "ls -la /tmp"],
      ["plain", "true"]
    ] as const) expect(maskArguments(output, command, maskVolatile(output))).toBe(maskArguments(output, command))
  })

  // The echo pattern is built only when the output holds some argument: one echoed among others
  // that are not is still masked.
  test("one echoed argument is masked when the command's others are not in the output", () => {
    expect(maskArguments("Trying 17 now", "python solve.py 17 --fast")).toBe(maskArguments("Trying 99 now", "python solve.py 99 --fast"))
    const word = fc.stringMatching(/^[a-z]{3,8}[0-9]{1,3}$/)
    fc.assert(
      fc.property(word, word, (echoed, other) => {
        fc.pre(!echoed.includes(other) && !other.includes(echoed))
        expect(maskArguments(`found ${echoed} here`, `tool ${echoed} ${other}`)).toBe(maskVolatile("found <a> here"))
        expect(maskArguments("nothing echoed", `tool ${echoed} ${other}`)).toBe(maskVolatile("nothing echoed"))
      }),
      { numRuns: 200 }
    )
  })
})

describe("maskInputEcho", () => {
  test("a search pattern the answer quotes is masked there only; the matched lines keep the text they found", () => {
    const answer = (pattern: string) => `Found 3 matches for pattern "${pattern}" in path "src":\nL42: export async function refreshToken(session) {`
    expect(maskInputEcho(answer("refreshToken"), [{ pattern: "refreshToken", path: "src" }])).toBe(maskInputEcho(answer("refresh[Tt]oken"), [{ pattern: "refresh[Tt]oken", path: "src" }]))
    expect(maskInputEcho(answer("refreshToken"), [{ pattern: "refreshToken" }])).toContain("function refreshToken(")
    // Another folder's answer is another answer.
    expect(maskInputEcho('Found 1 match in path "src"', [{ pattern: "x" }])).not.toBe(maskInputEcho('Found 1 match in path "lib"', [{ pattern: "x" }]))
  })
})
