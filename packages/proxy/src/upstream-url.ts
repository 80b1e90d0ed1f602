/**
 * The upstream base URLs the proxy is given (`proxy.upstream`, each route's `upstream`): which can be
 * used, and how one is shown in a line people read.
 */
import { redactUrl } from "@loopguard/effect/store"

/** An upstream as the listening line shows it: without user name, password or query (a `?key=` is a key). */
export const upstreamShown = (url: string): string => {
  try {
    const u = new URL(url)
    return `${u.protocol}//${u.host}${u.pathname}`
  } catch {
    return redactUrl(url)
  }
}

/**
 * Why an upstream URL cannot be used, or null. Each request's path (and its own query) is appended
 * to the base, so a base with a query or fragment (`…/v1?api-version=x`) would put every path after
 * it; the query is not shown (a `?key=` is a key). A user name or password in it is refused unless
 * `credentials` is "allowed" (a library caller's choice; the CLI refuses it, as any local client
 * would have it sent upstream).
 */
export const upstreamProblem = (url: string, credentials: "refused" | "allowed" = "refused"): string | null => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return `not an http(s) URL: ${redactUrl(url)}`
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return `not an http(s) URL: ${redactUrl(url)}`
  if (credentials === "refused" && (parsed.username !== "" || parsed.password !== "")) {
    return `${upstreamShown(url)} carries a user name or password: the proxy would send it upstream for any local client, token or not; hold a key with proxy.upstreamKeyEnv instead (clients then present proxy.tokenEnv's token)`
  }
  if (parsed.search !== "" || parsed.hash !== "" || /[?#]/.test(url)) {
    return `${upstreamShown(url)} has a query or fragment: give the base URL only (each request's path and query are added to it; a client sends its own ?api-version=)`
  }
  return null
}
