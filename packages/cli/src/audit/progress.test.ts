import { describe, expect, test } from "bun:test"
import { ProgressLine, progressText } from "./progress.js"

describe("progress line", () => {
  test("files and steps done, the rate, the share done by bytes and the time left", () => {
    const base = { files: 4, totalBytes: 4000, doneFiles: 1, doneBytes: 1000, doneSteps: 500, currentBytes: 2000, currentStep: 250, currentSteps: 500, startedMs: 0 }
    // 1000 + 2000 × ½ of 4000 bytes = 50% in 10 s: 10 s left; 750 steps in 10 s.
    expect(progressText(base, 10_000)).toBe("audit: 1/4 files, 750 steps, 75 steps/s, 50%, ~0:10 left")
    expect(progressText({ ...base, doneBytes: 0, doneFiles: 0, doneSteps: 0, currentStep: 0 }, 1000)).toEndWith("0%, ~? left")
    expect(progressText({ ...base, doneBytes: 40, currentStep: 0 }, 3_600_000)).toContain("~99h00m left")
  })

  test("drawn on one line, throttled, and cleared before other output", () => {
    let now = 0
    const out: Array<string> = []
    const p = new ProgressLine(2, 200, (s) => out.push(s), () => now)
    p.fileStarted(100)
    for (let i = 0; i < 50; i++) p.step(i, 50) // same instant: not redrawn
    now = 500
    p.step(10, 50)
    p.fileDone(50)
    p.clear()
    p.clear()
    expect(out).toHaveLength(3)
    expect(out.slice(0, 2).every((s) => s.startsWith("\r\x1b[2Kaudit: ") && !s.includes("\n"))).toBe(true)
    expect(out[1]).toContain("11 steps")
    expect(out[2]).toBe("\r\x1b[2K")
  })
})
