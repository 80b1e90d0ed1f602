import { describe, expect, test } from "bun:test"
import { execFileSync } from "node:child_process"
import { mkdtempSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { MAX_CONFIG_FILE_BYTES, readConfigFileText } from "./read-file.js"

const dir = () => mkdtempSync(join(tmpdir(), "lg-config-read-"))

describe("readConfigFileText", () => {
  test("a regular file's text, through a link too", () => {
    const d = dir()
    writeFileSync(join(d, "a.json"), `{"repeat": {"window": 400}}`)
    symlinkSync(join(d, "a.json"), join(d, "link.json"))
    expect(readConfigFileText(join(d, "a.json"))).toBe(`{"repeat": {"window": 400}}`)
    expect(readConfigFileText(join(d, "link.json"))).toBe(`{"repeat": {"window": 400}}`)
  })

  test("a FIFO is refused at once, with no writer to wait for", () => {
    const fifo = join(dir(), "loopguard.json")
    execFileSync("mkfifo", [fifo])
    expect(() => readConfigFileText(fifo)).toThrow("is not a regular file (a pipe, socket or device)")
  })

  test("a link to a device, a directory, and a file past the size cap are refused, naming what they are", () => {
    const d = dir()
    symlinkSync("/dev/zero", join(d, "zero.json"))
    expect(() => readConfigFileText(join(d, "zero.json"))).toThrow("is not a regular file")
    expect(() => readConfigFileText(d)).toThrow("is a directory")
    writeFileSync(join(d, "big.json"), Buffer.alloc(MAX_CONFIG_FILE_BYTES + 1, 0x20))
    expect(() => readConfigFileText(join(d, "big.json"))).toThrow(`is ${MAX_CONFIG_FILE_BYTES + 1} bytes`)
  })

  test("a missing file says so", () => {
    expect(() => readConfigFileText(join(dir(), "none.json"))).toThrow("ENOENT")
  })
})
