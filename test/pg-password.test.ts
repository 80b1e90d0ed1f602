/**
 * The Postgres password never reaches the terminal, judged from outside (`loopguard sessions
 * list` as a subprocess): not when the store is empty, not in a connection error, however it was
 * given — in the URL (also holding `/` or `@`), as `?password=`, or in PGPASSWORD — and the libpq
 * variables (PGHOST, PGPORT, PGUSER, PGDATABASE, PGPASSWORD) are taken for what the URL leaves
 * out. The tests that need a live database run with TEST_POSTGRES_URL (.ci/run).
 */
import { describe, expect, test } from "bun:test"
import { createServer } from "node:net"
import { resolve } from "node:path"
import { cliEnv } from "./cli-fixture.js"
import { freshPostgresDatabase } from "./pg-fixture.js"
import { postgresSkipReason, skipName } from "./skip-name.js"

const ROOT = resolve(import.meta.dir, "..")
const TIMEOUT = 60_000
const SECRET = "Hunter2-s3cret-pw"
const pg = process.env["TEST_POSTGRES_URL"]

const list = async (store: string, env: Record<string, string> = {}) => {
  const child = Bun.spawn([process.execPath, "run", "packages/cli/src/main.ts", "sessions", "list", "--store", store], {
    cwd: ROOT,
    env: { ...cliEnv(["PGHOST", "PGPORT", "PGUSER", "PGPASSWORD", "PGDATABASE", "PGSSLMODE"]), ...env },
    stdout: "pipe",
    stderr: "pipe"
  })
  const [code, out, err] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()])
  return { code, out, err, all: out + err }
}

/** A local port nobody listens on. */
const closedPort = (): Promise<number> =>
  new Promise((done) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port
      s.close(() => done(port))
    })
  })

const expectNoPassword = (text: string, password: string) => {
  expect(text).not.toContain(password)
  expect(text).not.toContain(encodeURIComponent(password))
  for (const piece of password.split(/[/@]/).filter((p) => p.length >= 4)) expect(text).not.toContain(piece)
}

describe("connection errors", () => {
  for (const [what, password] of [["with a /", "pa/ss-w0rd-secret"], ["with an @", "pa@ss-w0rd-secret"], ["plain", SECRET]] as const) {
    test(`a password ${what} in the URL is not printed when the server cannot be reached`, async () => {
      const r = await list(`postgres://loopguard:${password}@127.0.0.1:${await closedPort()}/db`)
      expect(r.code).toBe(2)
      expect(r.err.trim().split("\n")).toHaveLength(1)
      expectNoPassword(r.all, password)
    }, TIMEOUT)
  }

  test("?password= and PGPASSWORD are not printed either", async () => {
    const port = await closedPort()
    const viaQuery = await list(`postgres://loopguard@127.0.0.1:${port}/db?password=${SECRET}`)
    expect(viaQuery.code).toBe(2)
    expectNoPassword(viaQuery.all, SECRET)
    const viaEnv = await list("postgres://", { PGHOST: "127.0.0.1", PGPORT: String(port), PGUSER: "loopguard", PGPASSWORD: SECRET })
    expect(viaEnv.code).toBe(2)
    // The libpq variables were taken: the error is about that host and port.
    expect(viaEnv.err).toContain(String(port))
    expectNoPassword(viaEnv.all, SECRET)
  }, TIMEOUT)
})

const pgSkip = postgresSkipReason()
describe.skipIf(pgSkip !== undefined)(skipName("an empty store on a live server", pgSkip), () => {
  const fresh = () => freshPostgresDatabase(pg!, "pw")

  test("sessions list names the store without its password (in the URL, or as ?password=)", async () => {
    const u = await fresh()
    const withPassword = new URL(u)
    withPassword.password = SECRET
    const r = await list(withPassword.toString())
    expect(r.err).toBe("")
    expect(r.code).toBe(0)
    expect(r.out.trim()).toBe(`no sessions in postgres://${u.host}${u.pathname}`)
    const q = await list(`${u.toString()}?password=${SECRET}`)
    expect(q.code).toBe(0)
    expectNoPassword(q.all, SECRET)
  }, TIMEOUT)

  test("postgres:// with the libpq variables reaches the same store", async () => {
    const u = await fresh()
    const r = await list("postgres://", { PGHOST: u.hostname, PGPORT: u.port, PGUSER: u.username, PGDATABASE: u.pathname.slice(1), PGPASSWORD: SECRET })
    expect(r.err).toBe("")
    expect(r.code).toBe(0)
    expect(r.out.trim()).toBe("no sessions in postgres://")
  }, TIMEOUT)
})
