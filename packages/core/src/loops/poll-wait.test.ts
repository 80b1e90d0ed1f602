import { describe, expect, test } from "bun:test"
import { stepRecord } from "./fixtures.js"
import { pollOverdue, pollPatience, startupLooks, waitingNow, waitingOnStartup, waitStateOf } from "./poll-wait.js"

const poll = (observation: string, waitSeconds = 30, action = "bash sleep 30 && gh run view 42") => stepRecord({ action, observation, poll: true, waitSeconds })

describe("pollPatience", () => {
  test("ten minutes of sleep, between the minimum and twenty looks", () => {
    expect(pollPatience(30, 3)).toBe(20)
    expect(pollPatience(60, 3)).toBe(10)
    expect(pollPatience(3, 3)).toBe(20)
    expect(pollPatience(600, 3)).toBe(3)
    expect(pollPatience(0.5, 8)).toBe(20)
  })
})

describe("pollOverdue", () => {
  test("no poll, or a poll that does not sleep: nothing is waiting", () => {
    expect(pollOverdue([stepRecord({ action: "bash npm test", observation: "ok" })], 3)).toBeNull()
    expect(pollOverdue([poll("queued", 0), poll("queued", 0)], 3)).toBeNull()
    expect(pollOverdue([], 3)).toBeNull()
  })

  test("a poll that does not sleep, new only in its numbers: over twenty looks it is overdue; a plain repeat is not waiting at all", () => {
    const ticking = Array.from({ length: 22 }, (_, i) => stepRecord({ action: "bash gh run list --limit 1", observation: "queued 0s", rawObservation: `queued ${4 * i}s`, poll: true, waitSeconds: 0 }))
    expect(pollOverdue(ticking.slice(0, 20), 3)).toBeNull()
    expect(pollOverdue(ticking.slice(0, 21), 3)).toBe(1)
    expect(pollOverdue(ticking, 3)).toBe(2)
    const repeat = ticking.map((r) => ({ ...r, rawObservation: "queued 3s" }))
    expect(pollOverdue(repeat, 3)).toBeNull()
  })

  test("a poll whose answer moves on waits; one answer past its patience counts from the first step past it", () => {
    const moving = Array.from({ length: 30 }, (_, i) => poll(i % 2 === 0 ? "in progress, about 1 minute ago" : "in progress, about 2 minutes ago"))
    expect(pollOverdue(moving, 3)).toBe(0)
    const building = Array.from({ length: 20 }, () => poll("BUILDING"))
    expect(pollOverdue(building, 3)).toBe(0)
    expect(pollOverdue([...building, poll("BUILDING")], 3)).toBe(1)
    expect(pollOverdue([...building, poll("READY")], 3)).toBe(0)
  })

  test("a run of one poll waits three hours of sleep at most, whatever it sees", () => {
    const ticking = Array.from({ length: 361 }, (_, i) => poll(`epoch ${i}: loss ${(1 / (i + 1)).toFixed(4)}`))
    expect(pollOverdue(ticking.slice(0, 360), 3)).toBe(0)
    expect(pollOverdue(ticking, 3)).toBe(1)
  })

  test("polls in other words wait on one job: a frozen answer counts across them", () => {
    const frozen = Array.from({ length: 21 }, (_, i) => poll("epoch 3/10 loss=0.412", 30, i % 2 === 0 ? "bash sleep 30 && tail -n 5 job.log" : "bash sleep 30; tail -n 1 job.log"))
    expect(pollOverdue(frozen, 3)).toBe(1)
  })

  test("looks of one job in turns wait as long as the longest of them: a quick look between two waits is part of the wait", () => {
    const status = (i: number) => stepRecord({ action: "bash kubectl rollout status deploy/api --timeout=90s", observation: "x", rawObservation: `${i % 3} of 3 available`, poll: true, waitSeconds: 90 })
    const pods = (i: number) => stepRecord({ action: "bash kubectl get pods", observation: "y", rawObservation: `pods ${i}`, poll: true, waitSeconds: 0 })
    const turns = Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? status(i) : pods(i)))
    expect(pollOverdue(turns, 3)).toBe(0)
  })

  test("another command ends the run: the count starts again", () => {
    const before = Array.from({ length: 25 }, () => poll("BUILDING"))
    expect(pollOverdue([...before, stepRecord({ action: "bash vercel logs", observation: "log" }), poll("BUILDING")], 3)).toBe(0)
  })
})

describe("pollOverdue of a poll whose answer says the job failed", () => {
  test("a look that worked and answers `failed` has its answer: past the minimum it is overdue; a look that fails (refused while it starts) still waits", () => {
    const failedStatus = Array.from({ length: 5 }, () => stepRecord({ action: "bash sleep 10 && helm status api", observation: "STATUS: failed", poll: true, waitSeconds: 10 }))
    expect(pollOverdue(failedStatus, 3)).toBe(2)
    // Printed nothing (a refused `curl -sf` under a harness that shows "(no output)" and no exit status): no answer yet, it waits.
    const silent = Array.from({ length: 8 }, () => stepRecord({ action: "bash sleep 2 && curl -sf localhost:8080/health", observation: "", poll: true, waitSeconds: 2 }))
    expect(pollOverdue(silent, 3)).toBe(0)
    const refused = Array.from({ length: 5 }, () => stepRecord({ action: "bash sleep 3 && curl -sf localhost:8080/health", observation: "curl: (7) Failed to connect", poll: true, waitSeconds: 3, failed: true }))
    expect(pollOverdue(refused, 3)).toBe(0)
  })
})

describe("waitingOnStartup", () => {
  const health = () => stepRecord({ action: "bash curl -sf localhost:8080/health", observation: "curl: (0) Failed to connect", failed: true, look: true })
  const log = (line: string) => stepRecord({ action: "bash tail -n 3 app.log", observation: line, poll: true, look: true })
  test("looks at a job coming up whose log says something new each time: waiting", () => {
    expect(waitingOnStartup([health(), log("Starting ApiApplication"), health(), log("HikariPool-0 - Start completed."), health(), log("Migrating schema to version 0")])).toBe(true)
  })
  test("a log whose counter moves on (numbers masked, its lines read the same): waiting", () => {
    const counted = (n: number) => stepRecord({ action: "bash tail -n 3 app.log", observation: "migrating table 0/0", rawObservation: `migrating table ${n - 1}/9 migrating table ${n}/9`, poll: true, look: true })
    expect(waitingOnStartup([health(), counted(2), health(), counted(3), health(), counted(4)])).toBe(true)
  })
  test("a log that says the same each time (a crash loop, only its pid new), or a step that does something: not waiting", () => {
    expect(waitingOnStartup([health(), log("Error: listen EADDRINUSE pid 0"), health(), log("Error: listen EADDRINUSE pid 0")])).toBe(false)
    expect(waitingOnStartup([stepRecord({ action: "bash npm start", observation: "x" }), log("a"), log("b")])).toBe(false)
  })
})

describe("waitingNow", () => {
  const health = () => stepRecord({ action: "bash curl -sf localhost:8080/health", observation: "curl: (0) Failed to connect", failed: true, look: true })
  const log = (line: string) => stepRecord({ action: "bash tail -n 3 app.log", observation: line, poll: true, look: true })
  test("a poll within its patience, or startup looks within the newest six: waiting; past either, not", () => {
    const building = Array.from({ length: 20 }, () => poll("BUILDING"))
    expect(waitingNow(building, 3)).toBe(true)
    expect(waitingNow([...building, poll("BUILDING")], 3)).toBe(false)
    const lines = ["Starting ApiApplication", "HikariPool-0 - Start completed.", "Migrating schema to version 0"]
    const startup = lines.flatMap((line) => [health(), log(line)])
    expect(waitingNow(startup, 3)).toBe(true)
    expect(waitingNow([...startup, stepRecord({ action: "bash npm test", observation: "1 failed" })], 3)).toBe(false)
    expect(waitingNow([], 3)).toBe(false)
    expect(waitStateOf(startup, 3)).toEqual({ overdue: null, startingUp: true })
    expect(waitStateOf([...building, poll("BUILDING")], 3)).toEqual({ overdue: 1, startingUp: false })
  })
})

describe("startupLooks", () => {
  test("the newest polls and looks, at most six: the step that started the job is left out", () => {
    const start = stepRecord({ action: "bash nohup ./server &", observation: "" })
    const look = (n: number) => stepRecord({ action: "bash tail -n 3 app.log", observation: `line ${n}`, poll: true, look: true })
    expect(startupLooks([start, look(1), look(2)])).toHaveLength(2)
    expect(startupLooks([start, ...Array.from({ length: 9 }, (_, i) => look(i))])).toHaveLength(6)
    expect(startupLooks([look(1), start])).toEqual([])
  })
})
