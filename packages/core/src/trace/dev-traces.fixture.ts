/**
 * The labelled development traces in ../shared/traces, for the suites that replay them (read in
 * place, never copied). One rule for a missing corpus: with CI=true it is a broken checkout and the
 * suite fails; elsewhere the suite says loudly that it skipped.
 */
import { existsSync } from "node:fs"

export const DEV_TRACES_DIR = Bun.env["LOOPGUARD_TRACES_DIR"] ?? `${import.meta.dir}/../../../../../shared/traces`

/** A labelled stretch of one trace (labels.json). */
export interface LabelSegment {
  readonly kind: string
  readonly start_step: number
  readonly onset_step: number
  readonly fires_at: number
  readonly end_step: number
}

/** One labelled episode: the segments it joins, by kind. */
export interface LabelEpisode extends Omit<LabelSegment, "kind"> {
  readonly kinds: ReadonlyArray<string>
}

/** labels.json. */
export interface TraceLabels {
  readonly files: Readonly<
    Record<string, { readonly n_steps: number; readonly episodes: ReadonlyArray<LabelEpisode>; readonly segments: ReadonlyArray<LabelSegment> }>
  >
}

/**
 * Whether the development traces are there, for `test.skipIf(!devTracesPresent(what))`: a suite
 * without them is reported as skipped (never passed without running) and says why; with CI=true
 * (the CI clone has ../shared beside the repository) their absence is an error.
 */
export const devTracesPresent = (what: string): boolean => {
  if (existsSync(`${DEV_TRACES_DIR}/labels.json`)) return true
  if (Bun.env["CI"] === "true") throw new Error(`CI=true but there are no development traces at ${DEV_TRACES_DIR} (set LOOPGUARD_TRACES_DIR)`)
  console.warn(`\n⚠️  SKIPPED: no development traces at ${DEV_TRACES_DIR} (set LOOPGUARD_TRACES_DIR); ${what} did not run\n`)
  return false
}

/** A development-trace test's name; when the traces are absent it says why the test is skipped (bun lists skips by name). */
export const devTraceTestName = (name: string, present: boolean): string =>
  present ? name : `${name} [skipped: no development traces at ${DEV_TRACES_DIR}; set LOOPGUARD_TRACES_DIR]`

/** labels.json, or null after saying why the suite skipped (it throws instead when CI=true). */
export const loadLabels = async (what: string): Promise<TraceLabels | null> => {
  if (await Bun.file(`${DEV_TRACES_DIR}/labels.json`).exists()) return (await Bun.file(`${DEV_TRACES_DIR}/labels.json`).json()) as TraceLabels
  if (Bun.env["CI"] === "true") throw new Error(`CI=true but there are no development traces at ${DEV_TRACES_DIR} (set LOOPGUARD_TRACES_DIR)`)
  console.warn(`\n⚠️  SKIPPED: no development traces at ${DEV_TRACES_DIR} (set LOOPGUARD_TRACES_DIR); ${what} did not run\n`)
  return null
}

/** One development trace's text. */
export const readTrace = (file: string): Promise<string> => Bun.file(`${DEV_TRACES_DIR}/${file}`).text()
