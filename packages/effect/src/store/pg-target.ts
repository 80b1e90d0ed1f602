/**
 * A Postgres store target as a person gives it: a URL, completed from the libpq environment
 * (PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE, PGSSLMODE) for whatever the URL leaves out, as
 * `psql` does. And what must never be shown of it: the password, wherever it was given (in the
 * URL's user part — even one holding `/` or `@` —, as `?password=`, or in PGPASSWORD).
 */
import { Redacted } from "effect"

/** The libpq variables read, by the connection option each fills. */
export const LIBPQ_VARIABLES = ["PGHOST", "PGPORT", "PGUSER", "PGPASSWORD", "PGDATABASE", "PGSSLMODE"] as const

type Env = Readonly<Record<string, string | undefined>>

/**
 * Text with every URL's user part (`scheme://user:password@`) and every `password=` value
 * removed: safe to print, log or put in a report. The user part ends at the token's last `@`, so a
 * password holding `/` or `@` goes with it.
 */
export const redactUrl = (text: string): string =>
  text
    .replace(/([a-z][a-z0-9+.-]*:\/\/)(\S*)/gi, (_, scheme: string, rest: string) => {
      const at = rest.lastIndexOf("@")
      return scheme + (at >= 0 ? rest.slice(at + 1) : rest)
    })
    .replace(/(password=)('[^']*'|"[^"]*"|[^&\s]*)/gi, "$1***")

const parsed = (target: string): URL | null => {
  try {
    return new URL(target)
  } catch {
    return null
  }
}

const set = (value: string | undefined): value is string => value !== undefined && value !== ""

/** What the libpq environment adds to `target`: only the parts the URL does not give itself. */
export const libpqOptions = (
  target: string,
  env: Env
): { host?: string; port?: number; username?: string; password?: Redacted.Redacted; database?: string; ssl?: boolean } => {
  const url = parsed(target)
  if (url === null) return {}
  const q = url.searchParams
  const port = Number(env["PGPORT"])
  const ssl = env["PGSSLMODE"]
  return {
    ...(url.hostname === "" && !q.has("host") && set(env["PGHOST"]) ? { host: env["PGHOST"] } : {}),
    ...(url.port === "" && !q.has("port") && Number.isInteger(port) && port > 0 ? { port } : {}),
    ...(url.username === "" && !q.has("user") && set(env["PGUSER"]) ? { username: env["PGUSER"] } : {}),
    ...(url.password === "" && !q.has("password") && set(env["PGPASSWORD"]) ? { password: Redacted.make(env["PGPASSWORD"]) } : {}),
    ...(url.pathname.replace(/^\//, "") === "" && !q.has("dbname") && set(env["PGDATABASE"]) ? { database: env["PGDATABASE"] } : {}),
    ...(!q.has("sslmode") && set(ssl) && ssl !== "prefer" && ssl !== "allow" ? { ssl: ssl !== "disable" } : {})
  }
}

/** Every form the password of `target` may be printed in (raw and decoded), PGPASSWORD's included. */
export const pgSecrets = (target: string, env: Env): ReadonlyArray<string> => {
  const out = new Set<string>()
  const add = (v: string | null | undefined) => {
    if (v === null || v === undefined || v === "") return
    out.add(v)
    try {
      out.add(decodeURIComponent(v))
    } catch {
      // Not percent-encoded: the raw form is enough.
    }
  }
  add(env["PGPASSWORD"])
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(target)
  if (scheme !== null) {
    // The user part as typed, even where a `/` or `@` in it keeps URL parsers from finding it.
    const rest = target.slice(scheme[0].length).split(/\s/)[0]!
    const at = rest.lastIndexOf("@")
    const userinfo = at >= 0 ? rest.slice(0, at) : ""
    const colon = userinfo.indexOf(":")
    if (colon >= 0) add(userinfo.slice(colon + 1))
  }
  for (const m of target.matchAll(/password=([^&\s]*)/gi)) add(m[1])
  return [...out]
}
