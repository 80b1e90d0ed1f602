/**
 * CrossStepDetectors merges its detectors' verdicts: the ladder's exit outranks the breaker's
 * hand-back in the same step, and a crop found after one reply makes the text loop skip the next.
 */
import { describe, expect, test } from "bun:test"
import { reply, user } from "../loops/fixtures.js"
import type { AssistantMessage, Message } from "../model/index.js"
import { reminderText } from "../classify/reminders.js"
import { CrossStepDetectors, type AfterStep } from "./cross-step.js"
import { DEFAULT_JUDGE_CONFIG as C, type JudgeConfig } from "./judge-config.js"

type CallFields = Omit<Extract<AssistantMessage["parts"][number], { type: "tool" }>, "type" | "callId">

/** Step `i` of one user turn: a reply that made one call. */
const callStep = (i: number, call: CallFields): AssistantMessage => ({
  role: "assistant",
  id: `a${i}`,
  parentId: "u1",
  step: i,
  finish: "tool-calls",
  parts: [{ type: "tool", callId: `c${i}`, ...call }]
})

const failingBuild = (i: number): AssistantMessage => callStep(i, { name: "bash", input: { command: `make t${i}` }, state: "error", error: `boom ${i}` })

/** The verdicts of `replies` fed one step at a time after one user turn. */
const feed = (d: CrossStepDetectors, replies: ReadonlyArray<AssistantMessage>): Array<AfterStep> => {
  const history: Array<Message> = [user("u1")]
  return replies.map((r, i) => {
    history.push(r)
    return d.afterStep([...history], r, i + 1, { final: false, costUsd: null })
  })
}
const detectorsAt = (v: AfterStep | undefined) => v?.incidents.map((i) => `${i.detector}/${i.action}`) ?? []

describe("CrossStepDetectors.afterStep", () => {
  const storm: JudgeConfig = { ...C, breaker: { ...C.breaker, consecutiveFailures: 2, cooldownSteps: 0 } }
  const builds = Array.from({ length: 8 }, (_, i) => failingBuild(i + 1))

  test("the ladder's exit outranks the breaker's hand-back of the same step", () => {
    const step8 = feed(new CrossStepDetectors(storm, "main", false), builds)[7]
    expect(detectorsAt(step8)).toEqual(expect.arrayContaining(["repeated-observation/stop", "breaker/hand-back"]))
    expect(step8?.exit?.reason).toBe("idle")
  })

  test("when the ladder pauses instead (Try-Best), the breaker's hand-back ends the run", () => {
    const step8 = feed(new CrossStepDetectors({ ...storm, tryBest: { ...C.tryBest, enabled: true } }, "main", false), builds)[7]
    expect(step8?.pause).toMatchObject({ kind: "repeated_observation" })
    expect(step8?.exit?.reason).toBe("circuit_open")
  })

  test("a crop found after a reply makes the text loop skip the next reply", () => {
    const same = (i: number) => reply({ id: `r${i}`, reasoning: "I must read a again", text: "Let me read the file a again.", tools: [["read", { path: "a" }]] })
    const replies = Array.from({ length: 8 }, (_, i) => same(i))
    const textLoop = (v: AfterStep) => v.incidents.some((i) => i.detector === "text-loop")
    const plain = feed(new CrossStepDetectors(C, "main", false), replies)
    const cropping = feed(new CrossStepDetectors({ ...C, loopStreakRecovery: { ...C.loopStreakRecovery, enabled: true } }, "main", false), replies)
    expect(cropping.map((v) => v.crop !== null)).toEqual([false, false, true, true, true, true, true, true])
    // Without crops the text loop fires again three replies later; with a crop after every reply from the third on, never again.
    expect(plain.map(textLoop)).toEqual([false, false, true, false, false, true, false, false])
    expect(cropping.map(textLoop)).toEqual([false, false, true, false, false, false, false, false])
  })
})

describe("the same call that does new work each time", () => {
  const batch = (i: number, output: string): AssistantMessage =>
    callStep(i, { name: "shell", input: { command: ["python", "reembed.py", "--batch-size", "5000"] }, state: "completed", output, exitCode: 0 })
  const firm = (vs: ReadonlyArray<AfterStep>) => vs.some((v) => v.exit !== null || v.pause !== null || v.incidents.some((x) => x.action === "remind"))

  test("a resumable batch whose printed counter moves on each run is noted, never stopped; its last run may find nothing left", () => {
    const runs = Array.from({ length: 10 }, (_, i) => batch(i + 1, `resuming from offset=${i * 5000}\nembedded 5000 docs (${(i + 1) * 5000}/50000) in 6${i}.2s`))
    const done = [...runs, batch(11, "resuming from offset=50000\nnothing left to embed")]
    expect(firm(feed(new CrossStepDetectors(C, "main", false), done))).toBe(false)
    // The same counter each time is the same answer: stopped as usual.
    const stuck = Array.from({ length: 10 }, (_, i) => batch(i + 1, `resuming from offset=5000\nembedded 0 docs (5000/50000) in 0.${i}s`))
    expect(feed(new CrossStepDetectors(C, "main", false), stuck).some((v) => v.exit !== null)).toBe(true)
  })

  test("the note given while it pages says the results were new, not that nothing new came back", () => {
    const notesOf = (outputs: ReadonlyArray<string>) => {
      const d = new CrossStepDetectors(C, "main", false)
      const history: Array<Message> = [user("u1")]
      return outputs.map((output, i) => {
        const r = batch(i + 1, output)
        history.push(r)
        d.afterStep([...history], r, i + 1, { final: false, costUsd: null })
        return d.takeNote()
      })
    }
    const paging = notesOf(Array.from({ length: 6 }, (_, i) => `embedded 5000 docs (${(i + 1) * 5000}/50000)`))
    expect(paging.slice(0, 2)).toEqual([null, null])
    for (const note of paging.slice(2)) expect(note).toBe(reminderText("repeated-action-paging", "main"))
    const stuck = notesOf(Array.from({ length: 4 }, () => "embedded 0 docs (5000/50000)"))
    expect(stuck[2]).toBe(reminderText("repeated-action", "main"))
  })
})

describe("a sub-agent given the same task again", () => {
  test("answers in new words every time, and is still a repeated call: stopped at the 8th", () => {
    const places = ["buffers", "streams", "caches", "timers", "pools", "handles", "sockets", "workers", "images", "queues"]
    const handOff = (i: number): AssistantMessage =>
      callStep(i, { name: "Task", input: { description: "Find the leak", prompt: "Investigate worker/image.ts; find the leak." }, state: "completed", output: `Finding ${"abcdefghij"[i]}: no leak seen in ${places[i]}.` })
    const verdicts = feed(new CrossStepDetectors(C, "main", false), Array.from({ length: 9 }, (_, i) => handOff(i)))
    expect(verdicts.findIndex((v) => v.exit !== null) + 1).toBe(8)
  })
})

describe("looks at a server coming up", () => {
  const health = (i: number): AssistantMessage => callStep(i, { name: "bash", input: { command: "curl -sf http://127.0.0.1:8080/health" }, state: "error", error: "curl: (7) Failed to connect", exitCode: 7 })
  const tail = (i: number, output: string): AssistantMessage => callStep(i, { name: "bash", input: { command: "tail -n 3 app.log" }, state: "completed", output, exitCode: 0 })
  const loopStops = (vs: ReadonlyArray<AfterStep>) => vs.some((v) => v.exit !== null || v.incidents.some((x) => x.kind === "loop" && x.action !== "note"))
  test("a health check refused between reads of a startup log that moves on (its counter further each time): at most noted", () => {
    const steps = Array.from({ length: 18 }, (_, i) => (i % 2 === 0 ? health(i + 1) : tail(i + 1, `2026-12-03T10:00:0${i % 10}Z migrating table ${(i + 1) / 2}/9`)))
    expect(loopStops(feed(new CrossStepDetectors(C, "main", false), steps))).toBe(false)
  })
  test.each([false, true])("the refused checks are the wait, not a storm: no breaker trip, no reminder, and the note says it may wait (the server started in the run: %p)", (started) => {
    const d = new CrossStepDetectors(C, "main", false)
    const history: Array<Message> = [user("u1")]
    const lines = ["Starting app v1.4", "HikariPool-1 - Starting", "HikariPool-1 - Start completed", "Migrating schema to v12", "Flyway: applied 3 migrations", "Tomcat initialized on port 8080", "Started Application in 41.2 seconds"]
    const start = callStep(0, { name: "bash", input: { command: "nohup ./gradlew bootRun > app.log 2>&1 &" }, state: "completed", output: "", exitCode: 0 })
    const steps = [...(started ? [start] : []), ...Array.from({ length: 14 }, (_, i) => (i % 2 === 0 ? health(i + 1) : tail(i + 1, lines[(i - 1) / 2]!)))]
    const found = steps.map((r, i) => {
      history.push(r)
      const v = d.afterStep([...history], r, i + 1, { final: false, costUsd: null })
      return { v, note: d.takeNote() }
    })
    expect(found.flatMap(({ v }) => v.incidents.filter((x) => x.detector === "breaker"))).toEqual([])
    expect(found.flatMap(({ v }) => v.reminders)).toEqual([])
    const notes = found.map(({ note }) => note).filter((n) => n !== null)
    expect(notes.length).toBeGreaterThan(0)
    for (const note of notes) expect(note).toBe(reminderText("repeated-action-polling", "main"))
  })
  test("once the model moves on from the refused checks (it reads the log, lists the files), no note says it is repeating itself", () => {
    const d = new CrossStepDetectors(C, "main", false)
    const history: Array<Message> = [user("u1")]
    const waited = (i: number): AssistantMessage => callStep(i, { name: "bash", input: { command: "sleep 2 && curl -sf http://127.0.0.1:8080/health" }, state: "error", error: "curl: (7) Failed to connect", exitCode: 7 })
    const log = callStep(9, { name: "bash", input: { command: "cat app.log" }, state: "completed", output: "ERROR Port 8080 already in use", exitCode: 0 })
    const list = callStep(10, { name: "bash", input: { command: "ls -la" }, state: "completed", output: "app.log\nserver.sh", exitCode: 0 })
    const notes = [...Array.from({ length: 8 }, (_, i) => waited(i + 1)), log, list].map((r, i) => {
      history.push(r)
      d.afterStep([...history], r, i + 1, { final: false, costUsd: null })
      return d.takeNote()
    })
    expect(notes.slice(3, 8).every((n) => n === reminderText("repeated-action-polling", "main"))).toBe(true)
    expect(notes.slice(8)).toEqual([null, null])
  })
  test("a failing build with edits between: the episode climbs across the edits, noted only at the builds", () => {
    const make = (i: number): AssistantMessage => callStep(i, { name: "bash", input: { command: "make" }, state: "error", error: "error: missing header x.h", exitCode: 2 })
    const edit = (i: number): AssistantMessage => callStep(i, { name: "edit", input: { path: `src/a${i}.c`, old: "a", new: "b" }, state: "completed", output: "ok", path: `src/a${i}.c`, diff: `-a${i}\n+b` })
    const d = new CrossStepDetectors(C, "main", false)
    const history: Array<Message> = [user("u1")]
    const found = Array.from({ length: 16 }, (_, i) => (i % 2 === 0 ? make(i + 1) : edit(i + 1))).map((r, i) => {
      history.push(r)
      const v = d.afterStep([...history], r, i + 1, { final: false, costUsd: null })
      return { build: i % 2 === 0, note: d.takeNote(), failure: v.incidents.filter((x) => x.detector === "repeated-failure").map((x) => x.action) }
    })
    expect(found.filter((f) => !f.build).every((f) => f.note === null)).toBe(true)
    expect(found.some((f) => f.build && f.note === reminderText("repeated-action", "main"))).toBe(true)
    expect(found.flatMap((f) => f.failure)).toEqual(expect.arrayContaining(["note", "remind"]))
  })
  test("a crash loop (the log says the same each time, only its pid new) climbs as usual", () => {
    const steps = Array.from({ length: 18 }, (_, i) => (i % 2 === 0 ? health(i + 1) : tail(i + 1, `Error: listen EADDRINUSE :::8080 (pid ${4000 + i})`)))
    expect(feed(new CrossStepDetectors(C, "main", false), steps).some((v) => v.exit !== null)).toBe(true)
  })
})

describe("a poll that sleeps is waiting", () => {
  const poll = (i: number, output: string, exitCode = 0): AssistantMessage =>
    callStep(i, { name: "bash", input: { command: "sleep 30 && gh run view 9812" }, state: "completed", output, exitCode })
  const levels = (vs: ReadonlyArray<AfterStep>) => vs.flatMap((v, i) => v.incidents.filter((x) => x.kind === "loop").map((x) => `${i + 1}:${x.detector}/${x.action}`))

  const firmer = (vs: ReadonlyArray<AfterStep>) => levels(vs).filter((l) => !l.endsWith("/note"))

  test("a poll within its patience is told it may wait, not that nothing comes of it; past it, the usual note", () => {
    const d = new CrossStepDetectors(C, "main", false)
    const history: Array<Message> = [user("u1")]
    const notes = Array.from({ length: 24 }, (_, i) => {
      const r = poll(i + 1, "in_progress · build step 3 of 7")
      history.push(r)
      d.afterStep([...history], r, i + 1, { final: false, costUsd: null })
      return d.takeNote()
    })
    expect(notes[2]).toBe(reminderText("repeated-action-polling", "main"))
    expect(notes.at(-1)).toBe(reminderText("repeated-action", "main"))
  })

  test("a wait that ends without the server (the agent reads its log): the held count is not given back at once; polling on, it climbs again", () => {
    const refused = (i: number): AssistantMessage => callStep(i, { name: "bash", input: { command: "sleep 2 && curl -sf http://127.0.0.1:8080/health" }, state: "error", error: "curl: (7) Failed to connect to 127.0.0.1 port 8080", exitCode: 7 })
    const log = (i: number): AssistantMessage => callStep(i, { name: "bash", input: { command: "cat app.log" }, state: "completed", output: "INFO Starting app v1.4\nERROR Port 8080 already in use", exitCode: 0 })
    const waited = [...Array.from({ length: 8 }, (_, i) => refused(i + 1)), log(9)]
    const verdicts = feed(new CrossStepDetectors(C, "main", false), waited)
    expect(firmer(verdicts)).toEqual([])
    expect(verdicts.some((v) => v.exit !== null || v.reminders.length > 0)).toBe(false)
    // The same refused check and the same log, round after round: a loop, stopped all the same.
    const rounds = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? refused(10 + i) : log(10 + i)))
    const looping = feed(new CrossStepDetectors(C, "main", false), [...waited, ...rounds])
    expect(looping.some((v) => v.exit !== null)).toBe(true)
  })

  test("a project's own status script polled after a sleep, its answer moving on in pairs: at most noted", () => {
    const answers = ["queued", "queued", "in_progress build step 1/4", "in_progress build step 1/4", "in_progress build step 2/4", "in_progress build step 3/4", "in_progress build step 3/4", "in_progress build step 4/4", "completed success"]
    const status = (i: number, output: string): AssistantMessage => callStep(i, { name: "bash", input: { command: "sleep 3 && ./ci-status.sh" }, state: "completed", output, exitCode: 0 })
    const verdicts = feed(new CrossStepDetectors(C, "main", false), answers.map((a, i) => status(i + 1, a)))
    expect(firmer(verdicts)).toEqual([])
    expect(verdicts.some((v) => v.exit !== null || v.reminders.length > 0)).toBe(false)
  })

  test("a CI poll whose answer moves on is at most noted, however long the build", () => {
    const polls = Array.from({ length: 40 }, (_, i) => poll(i + 1, `in_progress · started about ${Math.floor(i / 2) + 1} minutes ago`))
    const verdicts = feed(new CrossStepDetectors(C, "main", false), polls)
    expect(firmer(verdicts)).toEqual([])
    expect(verdicts.some((v) => v.exit !== null || v.pause !== null)).toBe(false)
  })

  test("one answer is noted as usual, and past its patience (twenty looks of thirty seconds) reminded, then stopped", () => {
    const polls = Array.from({ length: 30 }, (_, i) => poll(i + 1, "status: queued"))
    const verdicts = feed(new CrossStepDetectors(C, "main", false), polls)
    expect(levels(verdicts).find((l) => l.endsWith("/note"))).toMatch(/^3:/)
    expect(firmer(verdicts).filter((l) => Number(l.split(":")[0]) <= 20)).toEqual([])
    expect(firmer(verdicts)[0]).toMatch(/^23:.*\/remind$/)
    expect(verdicts.findIndex((v) => v.exit !== null) + 1).toBe(26)
  })

  test("a poll that does not sleep, new only in its numbers (a crash-looping pod's age): past twenty looks it climbs, stopped at the 26th", () => {
    const look = (i: number, output: string): AssistantMessage => callStep(i, { name: "bash", input: { command: "kubectl get pods -l app=api" }, state: "completed", output, exitCode: 0 })
    const pod = (i: number) => `api-7d9f8b6c5d-x2k4q 0/1 CrashLoopBackOff ${3 + Math.floor(i / 4)} (${(i * 7) % 60}s ago) ${Math.floor(i / 8)}m${(i * 7) % 60}s`
    const ticking = feed(new CrossStepDetectors(C, "main", false), Array.from({ length: 30 }, (_, i) => look(i + 1, pod(i))))
    expect(firmer(ticking).filter((l) => Number(l.split(":")[0]) <= 20)).toEqual([])
    expect(firmer(ticking)[0]).toMatch(/^23:repeated-action\/remind$/)
    expect(ticking.findIndex((v) => v.exit !== null) + 1).toBe(26)
    // What the pod says moves on in words (Pending, ContainerCreating, Running …): it waits, however long.
    const states = ["Pending", "ContainerCreating", "Running", "Completed", "Terminating"]
    const moving = feed(new CrossStepDetectors(C, "main", false), Array.from({ length: 30 }, (_, i) => look(i + 1, `api-7d9f8b6c5d-x2k4q 0/1 ${states[i % 5]} 0 ${i}s`)))
    expect(moving.some((v) => v.exit !== null || v.pause !== null)).toBe(false)
  })

  test("a heartbeat is no progress: a sleeping poll whose answer moves only in its timestamps is past its patience (ten looks of a minute)", () => {
    const look = (i: number, output: string): AssistantMessage => callStep(i, { name: "bash", input: { command: "sleep 60 && curl -s api/exports/42" }, state: "completed", output, exitCode: 0 })
    const stamp = (i: number) => `2025-06-11T02:${String(10 + i).padStart(2, "0")}:00Z`
    const stuck = feed(new CrossStepDetectors(C, "main", false), Array.from({ length: 40 }, (_, i) => look(i + 1, `{"state": "running", "progress": 0.37, "updated_at": "${stamp(i)}"}`)))
    expect(firmer(stuck).filter((l) => Number(l.split(":")[0]) <= 10)).toEqual([])
    const stoppedAt = stuck.findIndex((v) => v.exit !== null) + 1
    expect(stoppedAt).toBeGreaterThan(10)
    expect(stoppedAt).toBeLessThanOrEqual(20)
    // Its progress moving with the clock is waiting, however long.
    const moving = feed(new CrossStepDetectors(C, "main", false), Array.from({ length: 40 }, (_, i) => look(i + 1, `{"state": "running", "progress": ${(i + 1) / 50}, "updated_at": "${stamp(i)}"}`)))
    expect(moving.some((v) => v.exit !== null || v.pause !== null)).toBe(false)
  })

  test("a background job's output read with nothing new but its timestamp (Claude Code's BashOutput) is a plain repeat: stopped at the 8th", () => {
    const stamped = (i: number) => `<status>running</status>\n<stdout>\nConnecting to postgres...\n</stdout>\n<timestamp>2025-08-14T11:02:${String(10 + i).padStart(2, "0")}.643Z</timestamp>`
    const read = (i: number): AssistantMessage => callStep(i, { name: "BashOutput", input: { bash_id: "bash_3" }, state: "completed", output: stamped(i), exitCode: 0 })
    const verdicts = feed(new CrossStepDetectors(C, "main", false), Array.from({ length: 12 }, (_, i) => read(i + 1)))
    expect(verdicts.findIndex((v) => v.exit !== null) + 1).toBe(8)
  })

  test("a poll narrated in the same words each look is no text loop: the ladder judges it, with its patience", () => {
    const said = (i: number, output: string): AssistantMessage => ({ ...poll(i, output), parts: [{ type: "text", text: "CI is still running. I'll wait another minute and check again." }, ...poll(i, output).parts] })
    const narrated = feed(new CrossStepDetectors(C, "main", false), Array.from({ length: 12 }, (_, i) => said(i + 1, `in_progress · job ${i}`)))
    expect(narrated.flatMap((v) => v.incidents.map((x) => x.detector))).not.toContain("text-loop")
    expect(narrated.some((v) => v.exit !== null)).toBe(false)
  })

  test("a server coming up fails while it waits: neither the breaker nor the ladder stops it", () => {
    const waits = Array.from({ length: 8 }, (_, i) => callStep(i + 1, { name: "bash", input: { command: "sleep 3 && curl -s localhost:3000/health" }, state: "completed", output: "curl: (7) Failed to connect to localhost port 3000", exitCode: 7 }))
    const verdicts = feed(new CrossStepDetectors(C, "main", false), waits)
    expect(verdicts.flatMap((v) => v.incidents.filter((x) => x.action !== "note").map((x) => x.detector))).toEqual([])
    expect(verdicts.some((v) => v.exit !== null || v.pause !== null)).toBe(false)
  })
})

describe("a run counted across bookkeeping steps", () => {
  test("its incident says so (bookkeepingSkipped), so a reader knows why steps that were not consecutive count as one run", () => {
    const steps = Array.from({ length: 6 }, (_, i) =>
      i % 2 === 0
        ? callStep(i + 1, { name: "read", input: { path: "src/app.ts" }, state: "completed", output: "the same file" })
        : callStep(i + 1, { name: "TodoWrite", input: { todos: [{ content: `step ${i}`, status: "in_progress" }] }, state: "completed", output: "ok" })
    )
    const verdicts = feed(new CrossStepDetectors(C, "main", false), steps)
    const repeated = verdicts.flatMap((v) => v.incidents).find((i) => i.detector === "repeated-action")
    expect(repeated?.detail).toMatchObject({ count: 3, bookkeepingSkipped: true })
    const plain = feed(new CrossStepDetectors(C, "main", false), Array.from({ length: 3 }, (_, i) => callStep(i + 1, { name: "read", input: { path: "src/app.ts" }, state: "completed", output: "the same file" })))
    expect(plain.flatMap((v) => v.incidents).find((i) => i.detector === "repeated-action")?.detail).not.toHaveProperty("bookkeepingSkipped")
  })
})

describe("a debugger stepped one line at a time", () => {
  const SOURCE: Record<number, string> = { 19: "for num, unit in PATTERN.findall(s):", 20: "n = int(num)", 21: "if unit == 'h':", 22: "total += n * 3600", 23: "elif unit == 'm':", 24: "total += n * 60", 25: "return total", 40: "while not ready():", 41: "time.sleep(poll)" }
  const next = (i: number, line: number) => callStep(i, { name: "execute_bash", input: { command: "n", is_input: "true" }, state: "completed", output: `> /repo/src/durations.py(${line})parse_duration()\n-> ${SOURCE[line]}` })
  const hard = (v: AfterStep) => v.incidents.some((i) => i.action === "stop" || i.action === "pause")

  test("through a loop body that it leaves in the end: never stopped", () => {
    const verdicts = feed(new CrossStepDetectors(C, "main", false), [19, 20, 21, 22, 19, 20, 21, 23, 24, 25].map((line, i) => next(i + 1, line)))
    expect(verdicts.some(hard)).toBe(false)
  })

  test("round a loop it never leaves: stopped at the 8th step, as any repeat", () => {
    const verdicts = feed(new CrossStepDetectors(C, "main", false), [40, 41, 40, 41, 40, 41, 40, 41].map((line, i) => next(i + 1, line)))
    expect(verdicts.map(hard)).toEqual([false, false, false, false, false, false, false, true])
  })
})
