import { expect, test } from "bun:test"
import { Redacted } from "effect"
import { libpqOptions, pgSecrets, redactUrl } from "./pg-target.js"

test("redactUrl drops the user part and every password= value, however the password is spelled", () => {
  expect(redactUrl("postgres://me:s3cret@db:5432/app")).toBe("postgres://db:5432/app")
  expect(redactUrl("connect postgres://me:pa/ss@w@rd@db:5432/app failed")).toBe("connect postgres://db:5432/app failed")
  expect(redactUrl("postgres://db/app?sslmode=require&password=s3cret&x=1")).toBe("postgres://db/app?sslmode=require&password=***&x=1")
  expect(redactUrl("host=db sslpassword=abc password='x'")).toBe("host=db sslpassword=*** password=***")
  expect(redactUrl("/var/lib/sessions and no url")).toBe("/var/lib/sessions and no url")
})

test("libpqOptions fills from PG* only what the URL leaves out", () => {
  const env = { PGHOST: "h", PGPORT: "6543", PGUSER: "u", PGPASSWORD: "pw", PGDATABASE: "d", PGSSLMODE: "require" }
  const all = libpqOptions("postgres://", env)
  expect({ ...all, password: all.password === undefined ? undefined : Redacted.value(all.password) }).toEqual({ host: "h", port: 6543, username: "u", password: "pw", database: "d", ssl: true })
  expect(libpqOptions("postgres://me:x@db:1/app?sslmode=disable", env)).toEqual({})
  expect(libpqOptions("postgres://db/app?password=x", env)).toEqual({ port: 6543, username: "u", ssl: true })
  expect(libpqOptions("not a url", env)).toEqual({})
})

test("pgSecrets names the password in every form it was given", () => {
  expect(pgSecrets("postgres://me:pa%2Fss@db/app", {})).toEqual(["pa%2Fss", "pa/ss"])
  expect(pgSecrets("postgres://me:pa/ss@w@rd@db/app", {})).toEqual(["pa/ss@w@rd"])
  expect(pgSecrets("postgres://db/app?password=qq", { PGPASSWORD: "env-pw" })).toEqual(["env-pw", "qq"])
  expect(pgSecrets("/some/folder", {})).toEqual([])
})
