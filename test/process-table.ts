/** Judging tool cleanup from outside: what the process table holds. */
import { execFileSync } from "node:child_process"

/** Live processes whose command line holds `marker` (zombies are already dead and excluded). */
export const processesWith = (marker: string): Array<string> =>
  execFileSync("ps", ["-eo", "stat=,args="], { encoding: "utf8" })
    .split("\n")
    .filter((l) => l.includes(marker) && !l.trimStart().startsWith("Z") && !l.includes("ps -eo"))

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Polls until nothing with `marker` is left, giving up after 10 s; returns what is left. */
export const leftoversOf = async (marker: string): Promise<Array<string>> => {
  for (let i = 0; i < 100 && processesWith(marker).length > 0; i++) await pause(100)
  return processesWith(marker)
}

/** Waits (up to 10 s) until a process with `marker` runs. */
export const appears = async (marker: string): Promise<void> => {
  for (let i = 0; i < 200 && processesWith(marker).length === 0; i++) await pause(50)
}

/**
 * Prefix of every `sleep` marker these tests start (`sleep ${TAG}101`): unique to this test
 * process, so suites running at the same time on one machine never see each other's processes.
 */
export const TAG = `302.${String(process.pid % 100_000).padStart(5, "0")}`
