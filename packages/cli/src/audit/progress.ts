/**
 * One line of progress on a terminal while an audit works: files and steps done, the rate, and
 * the time left, estimated from bytes (a file's share is done as its replay's steps are). Drawn
 * at most every 200 ms, and cleared before anything else is printed. Not drawn at all when
 * stderr is not a terminal or the output is JSON (the caller decides).
 */

export interface ProgressState {
  readonly files: number
  readonly totalBytes: number
  /** Files finished, their bytes, and their steps. */
  readonly doneFiles: number
  readonly doneBytes: number
  readonly doneSteps: number
  /** The file being audited: its bytes and where its replay is. */
  readonly currentBytes: number
  readonly currentStep: number
  readonly currentSteps: number
  readonly startedMs: number
}

const clock = (seconds: number): string => {
  const s = Math.max(0, Math.round(seconds))
  const m = Math.floor(s / 60)
  return m >= 60 ? `${Math.floor(m / 60)}h${String(m % 60).padStart(2, "0")}m` : `${m}:${String(s % 60).padStart(2, "0")}`
}

/** The progress line for a state at `nowMs`. */
export const progressText = (p: ProgressState, nowMs: number): string => {
  const elapsed = Math.max(0.001, (nowMs - p.startedMs) / 1000)
  const steps = p.doneSteps + p.currentStep
  const share = p.currentSteps > 0 ? p.currentStep / p.currentSteps : 0
  const done = p.totalBytes > 0 ? (p.doneBytes + p.currentBytes * share) / p.totalBytes : p.doneFiles / Math.max(1, p.files)
  const left = done > 0.001 ? clock((elapsed * (1 - done)) / done) : "?"
  return `audit: ${p.doneFiles}/${p.files} files, ${steps} steps, ${Math.round(steps / elapsed)} steps/s, ${Math.round(done * 100)}%, ~${left} left`
}

const THROTTLE_MS = 200

/** Keeps the state and draws it to `write` (stderr), throttled. */
export class ProgressLine {
  private state: ProgressState
  private lastDraw = 0
  private shown = false

  constructor(
    files: number,
    totalBytes: number,
    private readonly write: (s: string) => void,
    private readonly now: () => number = Date.now
  ) {
    this.state = { files, totalBytes, doneFiles: 0, doneBytes: 0, doneSteps: 0, currentBytes: 0, currentStep: 0, currentSteps: 0, startedMs: now() }
  }

  fileStarted(bytes: number): void {
    this.state = { ...this.state, currentBytes: bytes, currentStep: 0, currentSteps: 0 }
    this.draw(true)
  }

  step(step: number, steps: number): void {
    this.state = { ...this.state, currentStep: step + 1, currentSteps: steps }
    this.draw(false)
  }

  fileDone(steps: number): void {
    const s = this.state
    this.state = { ...s, doneFiles: s.doneFiles + 1, doneBytes: s.doneBytes + s.currentBytes, doneSteps: s.doneSteps + steps, currentBytes: 0, currentStep: 0, currentSteps: 0 }
  }

  /** Removes the line (before other output, and at the end). */
  clear(): void {
    if (this.shown) this.write("\r\x1b[2K")
    this.shown = false
  }

  private draw(force: boolean): void {
    const t = this.now()
    if (!force && t - this.lastDraw < THROTTLE_MS) return
    this.lastDraw = t
    this.write(`\r\x1b[2K${progressText(this.state, t)}`)
    this.shown = true
  }
}
