import { describe, expect, test } from "bun:test"
import { shellWrittenPaths, writesUnnamedFiles } from "./shell-writes.js"

describe("the files a shell command says it writes", () => {
  test("redirections, tee, touch, cp/mv destinations, sed -i", () => {
    expect(shellWrittenPaths("echo hi >> marker.txt")).toEqual(["marker.txt"])
    expect(shellWrittenPaths("npm test > out.log 2> 'err file.log'")).toEqual(["out.log", "err file.log"])
    expect(shellWrittenPaths("cat a | tee -a b.txt c.txt")).toEqual(["b.txt", "c.txt"])
    expect(shellWrittenPaths("touch x && cp src/a.ts dist/a.ts; mv old new")).toEqual(["x", "dist/a.ts", "new"])
    expect(shellWrittenPaths("sed -i 's/a/b/' config.json")).toEqual(["config.json"])
  })

  test("what is not a file written: /dev/null, fd duplication, reading commands", () => {
    expect(shellWrittenPaths("make 2>&1 > /dev/null")).toEqual([])
    expect(shellWrittenPaths("ls -la src")).toEqual([])
    expect(shellWrittenPaths("grep -n 'a>b' file")).toEqual([])
  })

  test("a write whose path the command line does not give", () => {
    expect(writesUnnamedFiles("rm -rf build")).toBe(true)
    expect(writesUnnamedFiles("echo hi > a.txt")).toBe(false)
    expect(writesUnnamedFiles("ls")).toBe(false)
  })
})
