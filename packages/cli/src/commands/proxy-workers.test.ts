/**
 * The parts of `loopguard proxy --workers` that are not processes: who is a worker, which runtimes
 * can share a port, and which IPC messages are the supervisor's and its workers'.
 */
import { describe, expect, test } from "bun:test"
import { isWorkerMessage, reusePortProblem, WORKER_ENV, workerCount, workerRole, workersFlagValue } from "./proxy-workers.js"

describe("workerRole", () => {
  test("a process given a role and an IPC channel is a worker", () => {
    expect(workerRole({ [WORKER_ENV]: "2:4477" }, true)).toEqual({ index: 2, port: 4477 })
    expect(workerRole({ [WORKER_ENV]: "1:0" }, true)).toEqual({ index: 1, port: 0 })
  })

  test("without a channel, without the variable, or with a malformed one, it is not", () => {
    expect(workerRole({ [WORKER_ENV]: "2:4477" }, false)).toBeNull()
    expect(workerRole({}, true)).toBeNull()
    for (const bad of ["", "2", "a:1", "1:2:3", "1:123456", "123:1"]) expect(workerRole({ [WORKER_ENV]: bad }, true)).toBeNull()
  })
})

describe("reusePortProblem", () => {
  const node = (version: string) => ({ ...process.versions, node: version, bun: undefined }) as unknown as NodeJS.ProcessVersions

  test("Linux on Bun, or on Node 22.12 and later, can share a port", () => {
    expect(reusePortProblem("linux", { ...process.versions, bun: "1.4.5" } as NodeJS.ProcessVersions)).toBeNull()
    for (const v of ["22.12.0", "22.20.1", "23.1.0", "24.0.0"]) expect(reusePortProblem("linux", node(v))).toBeNull()
  })

  test("older Node and other systems are named in the answer", () => {
    expect(reusePortProblem("linux", node("22.11.0"))).toContain("needs Node 22.12 or later, whose servers can share a port (this is Node 22.11.0)")
    expect(reusePortProblem("linux", node("20.18.0"))).toContain("this is Node 20.18.0")
    expect(reusePortProblem("darwin", node("24.0.0"))).toContain("needs Linux")
    expect(reusePortProblem("win32", node("24.0.0"))).toContain("(this is win32)")
  })
})

test("isWorkerMessage: ready and hold, whole; anything else is not one", () => {
  expect(isWorkerMessage({ type: "ready", port: 4477 })).toBe(true)
  expect(isWorkerMessage({ type: "hold", upstream: "http://u/v1", untilMs: 1 })).toBe(true)
  for (const m of [null, "ready", { type: "ready" }, { type: "hold", upstream: "u" }, { type: "hold", upstream: 1, untilMs: 1 }, { type: "other", port: 1 }]) {
    expect(isWorkerMessage(m)).toBe(false)
  }
})

describe("workerCount", () => {
  test("a number is taken as asked", () => {
    expect(workerCount(1, 8, null)).toBe(1)
    expect(workerCount(3, 2, null)).toBe(3)
  })

  test("auto: one per core, at most 64, at least 1", () => {
    expect(workerCount("auto", 2, null)).toBe(2)
    expect(workerCount("auto", 96, null)).toBe(64)
    expect(workerCount("auto", 0, null)).toBe(1)
  })

  test("auto where processes cannot share a port is one process, not a refusal", () => {
    expect(workerCount("auto", 8, "more than one worker needs Linux")).toBe(1)
  })
})

test("workersFlagValue: a number as typed is read as one (the config check names a bad one); other text is passed on as written", () => {
  expect(workersFlagValue("4")).toBe(4)
  expect(workersFlagValue(" 2 ")).toBe(2)
  expect(workersFlagValue("2.5")).toBe(2.5)
  expect(workersFlagValue("-1")).toBe(-1)
  expect(workersFlagValue("auto")).toBe("auto")
  expect(workersFlagValue("lots")).toBe("lots")
})
