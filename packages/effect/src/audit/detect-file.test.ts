import { afterAll, describe, expect, test } from "bun:test"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { DETECT_BYTES, DETECT_MAX_BYTES, detectFileFormat, readDetectionHead } from "./detect-file.js"

const dir = mkdtempSync(join(tmpdir(), "loopguard-detect-file-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A reader over an in-memory file that counts the bytes asked for. */
const readerOf = (file: Buffer) => {
  const asked = { bytes: 0 }
  const readAt = async (buffer: Buffer, position: number): Promise<number> => {
    asked.bytes += buffer.length
    return file.copy(buffer, 0, position, Math.min(file.length, position + buffer.length))
  }
  return { readAt, asked }
}

describe("detectFileFormat", () => {
  test("a first line longer than DETECT_BYTES (a pasted prompt) is read to its end and told", async () => {
    const prompt = "x".repeat(3 * DETECT_BYTES)
    const path = join(dir, "claude.jsonl")
    const records = [
      { type: "user", uuid: "u1", sessionId: "s1", message: { role: "user", content: prompt } },
      { type: "assistant", uuid: "a1", sessionId: "s1", message: { role: "assistant", content: [{ type: "text", text: "done" }] } }
    ]
    writeFileSync(path, records.map((r) => JSON.stringify(r)).join("\n") + "\n")
    expect(await Effect.runPromise(detectFileFormat(path))).toBe("claude-code")
  })

  test("the head stops at the first line's end, at the file's end, or at DETECT_MAX_BYTES for a huge line", async () => {
    const short = readerOf(Buffer.from(`{"a":1}\n`.repeat(20_000)))
    expect((await readDetectionHead(short.readAt)).length).toBe(DETECT_BYTES)
    const long = readerOf(Buffer.from(`{"a":"${"y".repeat(2 * DETECT_BYTES)}"}\n${`{"b":2}\n`.repeat(100_000)}`))
    const head = await readDetectionHead(long.readAt)
    expect(head.length).toBe(3 * DETECT_BYTES)
    expect(head.toString("utf8")).toContain(`"}\n{"b"`)
    const huge = readerOf(Buffer.alloc(DETECT_MAX_BYTES * 2, 0x61))
    expect((await readDetectionHead(huge.readAt)).length).toBe(DETECT_MAX_BYTES)
    expect(huge.asked.bytes).toBe(DETECT_MAX_BYTES)
    const blankFirst = readerOf(Buffer.from(`\n\n${" ".repeat(DETECT_BYTES)}{"a":1}\n`))
    expect((await readDetectionHead(blankFirst.readAt)).toString("utf8")).toEndWith(`{"a":1}\n`)
  })
})
