import { describe, expect, test } from "bun:test"
import { scrubEnv } from "./tool-env.js"

const env = { PATH: "/bin", HOME: "/h", MY_KEY_VAR: "k1", LOOPGUARD_MODEL: "m", GITHUB_TOKEN: "t", DB_PASSWORD: "p", LANG: "C" }

describe("scrubEnv", () => {
  test("removes the named secret variable, LOOPGUARD_* and the default deny-list", () => {
    expect(scrubEnv(env, { secretNames: ["MY_KEY_VAR"] })).toEqual({ PATH: "/bin", HOME: "/h", LANG: "C" })
  })
  test("a custom deny-list replaces the default one", () => {
    expect(scrubEnv(env, { deny: ["HOME", "db_*"] })).toEqual({ PATH: "/bin", MY_KEY_VAR: "k1", GITHUB_TOKEN: "t", LANG: "C" })
  })
  test("with an allow-list only those names pass, and the deny-list still wins", () => {
    expect(scrubEnv(env, { allow: ["PATH", "GITHUB_*", "LOOPGUARD_*"] })).toEqual({ PATH: "/bin" })
  })
})
