/** Postgres for the CLI suites: a fresh database per test on the server TEST_POSTGRES_URL names (.ci/postgres.sh). */
import { openSqlClient } from "@loopguard/effect/store"
import { Effect } from "effect"

/** A new, empty database on `base`'s server; its URL. */
export const freshPostgresDatabase = async (base: string, prefix: string): Promise<URL> => {
  const name = `lg_${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
  await Effect.runPromise(Effect.scoped(Effect.flatMap(openSqlClient(base), ({ client }) => client.unsafe(`CREATE DATABASE ${name}`))))
  const u = new URL(base)
  u.pathname = `/${name}`
  return u
}
