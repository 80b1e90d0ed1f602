import { expect, test } from "bun:test"
import { DEFAULT_JUDGE_CONFIG } from "./judge-config.js"
import { tryBestOptionsOf } from "./try-best-options.js"

test("the tryBest section's monitor options pass through by name; the switch and a host's own keys do not", () => {
  const tryBest = { ...DEFAULT_JUDGE_CONFIG.tryBest, enabled: true, editWindow: 7, actionStreak: 4, onPause: "stop" }
  const options = tryBestOptionsOf({ ...DEFAULT_JUDGE_CONFIG, tryBest })
  expect(options).toMatchObject({ editWindow: 7, actionStreak: 4, editTools: DEFAULT_JUDGE_CONFIG.tryBest.editTools })
  expect(Object.keys(options)).not.toContain("enabled")
  expect(Object.keys(options)).not.toContain("onPause")
})
