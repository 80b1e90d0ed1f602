import { describe, expect, test } from "bun:test"
import { credentialValues, credentialVariables, isCredentialName, scrubEnv } from "./tool-env.js"

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

describe("one name rule for credentials", () => {
  const credentials = ["MYSQL_PWD", "DB_PASS", "REDIS_PASS", "NPM_AUTH", "GITHUB_PAT", "SENTRY_DSN", "STRIPE_KEY", "SIGNING_KEY_ID", "OPENAI_APIKEY", "GCP_PRIVATE_KEY_PEM", "PGPASSWORD", "SESSION_SECRET_BASE", "GITHUB_TOKEN", "BASIC_AUTH", "HTTP_AUTHORIZATION", "AZURE_CREDENTIALS", "db_pass"]
  const ordinary = ["PWD", "OLDPWD", "PATH", "HOME", "SSH_AUTH_SOCK", "GIT_AUTHOR_NAME", "XAUTHORITY", "TOKENIZERS_PARALLELISM", "KEYBOARD", "PASSAGE", "EDITOR"]
  test("names holding PASSW, SECRET, TOKEN, AUTH, CREDENTIAL, API_KEY, PRIVATE_KEY, or ending _PASS, _PWD, _PAT, _DSN, _KEY are credentials; PWD, OLDPWD and the like are not", () => {
    for (const name of credentials) expect([name, isCredentialName(name)]).toEqual([name, true])
    for (const name of ordinary) expect([name, isCredentialName(name)]).toEqual([name, false])
  })
  test("the shell gets none of them, whatever the deny-list, and their values are the redactor's", () => {
    const env = Object.fromEntries([...credentials, ...ordinary].map((name) => [name, `value-of-${name}`]))
    expect(Object.keys(scrubEnv(env, { deny: [] })).sort()).toEqual([...ordinary].sort())
    expect([...credentialValues(env)].sort()).toEqual(credentials.map((name) => `value-of-${name}`).sort())
  })
})
