/**
 * Waiting on a job that runs on its own: a poll that sleeps before it looks (`sleep 30 && gh run
 * view 42`, `sleep 3 && curl -s localhost:3000/health`) gives the job time, and a build, a deploy or
 * a server coming up takes minutes. Such a poll is waiting, not looping, while its answer keeps
 * changing or has stayed the same (or failed) for less than its patience; the loop detectors count
 * only what comes past it, from their first rung. A poll that does not sleep is waiting only while
 * every look sees something new (`pollingOnward`), and for at most POLL_MOST_UNCHANGED looks when
 * what is new is only its numbers (a pod's age and restart count, a queued run's seconds).
 */
import { furtherOn } from "./progress-counter.js"
import type { StepRecord } from "./step-record.js"

/** The sleep, in all, a poll may see one answer (or the same failure) through: long enough for a build. */
export const POLL_PATIENCE_S = 600
/** However short its sleep, a poll seeing one answer this many times in a row is past waiting. */
export const POLL_MOST_UNCHANGED = 20
/**
 * The longest a run of one poll waits in all, whatever it sees (a clock that ticks is no progress
 * forever); a training run polled every minute may take hours. Sleeps under a second count as one.
 */
export const POLL_MOST_S = 3 * 3600

/** A date, a time of day, or both (ISO 8601 and the like): when a heartbeat was written, not what moved. */
const CLOCK = /\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b|\b\d{1,2}:\d{2}:\d{2}(?:\.\d+)?\b/g

const withoutClocks = new WeakMap<StepRecord, string>()

/**
 * What a look saw, its clocks left out: a job that says `running, progress 0.37` with a new
 * `updated_at` each minute has not moved, and its looks count against the patience as one answer.
 */
export const clockless = (r: StepRecord): string => {
  let seen = withoutClocks.get(r)
  if (seen === undefined) withoutClocks.set(r, (seen = r.rawObservation.replace(CLOCK, "<time>")))
  return seen
}

/** Looks in a row with one answer that a poll sleeping `waitSeconds` each time is allowed, never fewer than `minimum`. */
export const pollPatience = (waitSeconds: number, minimum: number): number =>
  Math.max(minimum, Math.min(POLL_MOST_UNCHANGED, Math.ceil(POLL_PATIENCE_S / Math.max(waitSeconds, 1))))

/** A look that saw something the one before it did not, its clocks aside (`clockless`). */
export const sawNew = (before: StepRecord | undefined, r: StepRecord): boolean => before === undefined || clockless(before) !== clockless(r)

/**
 * A run of looks at one job coming up (`curl -sf localhost:8080/health` refused, then `tail -n 3
 * app.log`, again), whose polls each saw something the others did not, numbers masked (`Starting`,
 * `HikariPool started`, `Migrating schema`): waiting, though the looks between them fail the same
 * way. A log that says the same each time, only its pid or counter new (a crash loop), is no news.
 */
export const waitingOnStartup = (run: ReadonlyArray<StepRecord>): boolean => {
  if (run.length === 0 || !run.every((r) => r.poll || r.look)) return false
  const polls = run.filter((r) => r.poll && !r.failed)
  if (polls.length < 2) return false
  // Each read new, numbers masked; or its counter further on each time (`migrating table 3/9`, then `4/9`).
  return new Set(polls.map((r) => r.observation)).size === polls.length || polls.every((r, i) => i === 0 || furtherOn(polls[i - 1]!.rawObservation, r.rawObservation))
}

/** The newest records in which looks at a job coming up must each see its log move on (`waitingOnStartup`): three rounds of a check and a read. */
export const STARTUP_LOOKS = 6

/**
 * The looks `waitingOnStartup` judges: the newest records that poll or look, at most STARTUP_LOOKS
 * of them. The step that started the job (`nohup ./server &`) is no look: the wait begins after it.
 */
export const startupLooks = (records: ReadonlyArray<StepRecord>): ReadonlyArray<StepRecord> => {
  let from = records.length
  while (from > 0 && records.length - from < STARTUP_LOOKS && (records[from - 1]!.poll || records[from - 1]!.look)) from--
  return records.slice(from)
}

/** How the newest steps wait on a job: `overdue` as `pollOverdue` says; `startingUp` when no poll is newest and looks at a job coming up see its log move on. */
export interface WaitState {
  readonly overdue: number | null
  readonly startingUp: boolean
}

/** The wait state of the newest steps (`minimum` as for `pollOverdue`): the loop ladder caps its counts by it. */
export const waitStateOf = (records: ReadonlyArray<StepRecord>, minimum: number): WaitState => {
  const overdue = pollOverdue(records, minimum)
  return { overdue, startingUp: overdue === null && waitingOnStartup(startupLooks(records)) }
}

/**
 * The newest steps wait on a job: a poll within its patience (`pollOverdue` 0), or looks at a job
 * coming up while its log moves on. What fails meanwhile (a health check refused) is the wait, not
 * a storm, and saying nothing new comes back would be false.
 */
export const isWaiting = ({ overdue, startingUp }: WaitState): boolean => overdue === 0 || startingUp

/** `isWaiting` of the newest steps' wait state. */
export const waitingNow = (records: ReadonlyArray<StepRecord>, minimum: number): boolean => isWaiting(waitStateOf(records, minimum))

/** Every step of a run polls a running job and saw something its predecessor did not: waiting, however alike the calls. */
export const pollingOnward = (run: ReadonlyArray<StepRecord>): boolean => run.length > 0 && run.every((r, i) => r.poll && sawNew(run[i - 1], r))

/**
 * How far the newest steps, a run of polls of which one waits (a sleep, or a command that blocks), are
 * past their patience, in steps: 0 while they wait; null when the newest step is no poll, or no poll
 * of the run waits and none is past looking `POLL_MOST_UNCHANGED` times at one answer but its numbers.
 * `minimum`: the fewest looks with one answer allowed, whatever the sleep.
 */
export const pollOverdue = (records: ReadonlyArray<StepRecord>, minimum: number): number | null => {
  const newest = records.at(-1)
  if (newest === undefined || !newest.poll) return null
  let run = 1
  let unchanged = 1
  // Looks of one job in turns (`kubectl rollout status --timeout=90s`, then `kubectl get pods`) wait
  // as long as the longest of them: the quick look between two waits is part of the wait.
  let wait = newest.waitSeconds
  for (let i = records.length - 2; i >= 0; i--) {
    const r = records[i]!
    // Polls in other words (`sleep 30 && tail -n 5 job.log`, then `sleep 60; tail -n 1 job.log`) wait on the same job.
    if (!r.poll) break
    run++
    wait = Math.max(wait, r.waitSeconds)
    if (unchanged === run - 1 && clockless(r) === clockless(newest)) unchanged++
  }
  if (wait <= 0) return tickingOverdue(records)
  // A look that worked and answers that the job failed (`STATUS: failed`, "unable to place a task")
  // has its answer: waiting on it longer changes nothing. A look that fails (a server refusing
  // connections while it comes up) still waits; so does one that printed nothing (`curl -sf`
  // refused, under a harness that shows "(no output)" and no exit status): silence says no job
  // failed.
  const saidNo = newest.saysNo && !newest.failed && newest.rawObservation !== ""
  const patience = saidNo ? minimum : pollPatience(wait, minimum)
  const pastUnchanged = unchanged - patience
  const pastAll = run - Math.max(minimum, Math.ceil(POLL_MOST_S / Math.max(wait, 1)))
  return Math.max(0, pastUnchanged, pastAll)
}

/**
 * A poll that does not sleep, each look new only in its numbers (`observation` masks them): how
 * many looks it is past POLL_MOST_UNCHANGED; null while within them, or when a look saw nothing new
 * at all (a plain repeat, which the detectors count as any other).
 */
const tickingOverdue = (records: ReadonlyArray<StepRecord>): number | null => {
  const newest = records.at(-1)!
  let run = 1
  for (let i = records.length - 2; i >= 0; i--) {
    const r = records[i]!
    if (!r.poll || r.waitSeconds > 0 || r.observation !== newest.observation) break
    run++
  }
  if (run <= POLL_MOST_UNCHANGED || !pollingOnward(records.slice(-run))) return null
  return run - POLL_MOST_UNCHANGED
}
