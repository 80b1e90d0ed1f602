import { describe, expect, test } from "bun:test"
import { credentialValues, credentialVariables, scrubEnv } from "./tool-env.js"

const env = { PATH: "/bin", HOME: "/h", MY_KEY_VAR: "k1", LOOPGUARD_MODEL: "m", GITHUB_TOKEN: "t", DB_PASSWORD: "p", LANG: "C" }

describe("scrubEnv", () => {
  test("removes the named secret variable, LOOPGUARD_* and the default deny-list", () => {
    expect(scrubEnv(env, { secretNames: ["MY_KEY_VAR"] })).toEqual({ PATH: "/bin", HOME: "/h", LANG: "C" })
  })
  test("a custom deny-list replaces the default one; credential-looking names still go unless passed", () => {
    expect(scrubEnv(env, { deny: ["HOME", "db_*"] })).toEqual({ PATH: "/bin", LANG: "C" })
    expect(scrubEnv(env, { deny: ["HOME", "db_*"], pass: ["MY_KEY_VAR", "GITHUB_TOKEN", "DB_PASSWORD"] })).toEqual({ PATH: "/bin", MY_KEY_VAR: "k1", GITHUB_TOKEN: "t", LANG: "C" })
  })
  test("with an allow-list only those names pass, and the deny-list still wins", () => {
    expect(scrubEnv(env, { allow: ["PATH", "GITHUB_*", "LOOPGUARD_*"] })).toEqual({ PATH: "/bin" })
  })
})

describe("credentials found by shape, not only by list", () => {
  const env = {
    STRIPE_KEY: "sk_live_x1",
    PGPASSWORD: "pw1",
    DATABASE_URL: "postgres://app:dbpw@db/app",
    REDIS_URL: "redis://cache:6379",
    GITHUB_TOKEN: "ghp_1",
    SSH_AUTH_SOCK: "/tmp/agent",
    PATH: "/usr/bin"
  }
  test("a deny-list that says nothing of them still removes them", () => {
    expect(Object.keys(scrubEnv(env, { deny: [] })).sort()).toEqual(["PATH", "REDIS_URL", "SSH_AUTH_SOCK"])
  })
  test("pass lets named ones through", () => {
    expect(scrubEnv(env, { deny: [], pass: ["GITHUB_*"] })).toMatchObject({ GITHUB_TOKEN: "ghp_1" })
    expect(credentialVariables(["GITHUB_TOKEN"])("GITHUB_TOKEN", "x")).toBe(false)
  })
  test("their values (and a URL's password) are what the redactor must know", () => {
    expect([...credentialValues(env)].sort()).toEqual(["dbpw", "ghp_1", "postgres://app:dbpw@db/app", "pw1", "sk_live_x1"])
  })
})
