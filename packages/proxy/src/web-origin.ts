/**
 * Requests a web page sent, or a page reached through DNS rebinding. An agent's HTTP client sends no `Origin`; a browser sends one on every
 * cross-origin POST, and a page can POST to 127.0.0.1 without a preflight (`text/plain`). Left open,
 * any site a user visits could drive a keyless local model through the proxy, or write sessions into
 * its store (with DNS rebinding, from a name that points at 127.0.0.1). A page served from this
 * machine (loopback) and the origins in `proxy.allowedOrigins` are let through.
 */

const LOOPBACK_HOST = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i

const isLoopback = (origin: string): boolean => {
  try {
    return LOOPBACK_HOST.test(new URL(origin).hostname)
  } catch {
    return false
  }
}

/** Why a request from `origin` (its `Origin` header) is refused, or null: none, loopback, or allowed. */
export const originRefusal = (origin: string | undefined, allowed: ReadonlyArray<string>): string | null => {
  if (origin === undefined || origin === "") return null
  if (isLoopback(origin) || allowed.includes(origin) || allowed.includes("*")) return null
  return `loopguard proxy: requests from web pages are refused (Origin ${JSON.stringify(origin.slice(0, 200))}); add the origin to proxy.allowedOrigins to let that page in`
}

/**
 * The host name of a `Host` header or a listen address (port and IPv6 brackets dropped, numeric
 * forms such as `127.1` normalised as a browser would), lower-cased; null: no host at all.
 */
const hostNameOf = (host: string): string | null => {
  try {
    const name = new URL(`http://${host.includes(":") && !host.startsWith("[") && host.split(":").length > 2 ? `[${host}]` : host}`).hostname.toLowerCase()
    return name.endsWith(".") ? name.slice(0, -1) : name
  } catch {
    return null
  }
}

/** Whether a host name (as `hostNameOf` gives it) is this machine's loopback. */
export const isLoopbackName = (name: string): boolean => LOOPBACK_HOST.test(name) || name === "::1"

/**
 * Why a request whose `Host` header is `host` is refused, or null. A page on a name the attacker
 * controls can rebind that name to 127.0.0.1: its requests are same-origin for the browser (no
 * `Origin` header on a GET), but they still name the attacker's host. So a proxy listening on
 * loopback serves only requests addressed to a loopback name or to its listen host; one listening
 * on another address is meant to be reached under names it cannot know, and serves any. A request
 * without a `Host` (HTTP/1.0) comes from no browser and is served.
 */
export const hostRefusal = (host: string | undefined, listenHost: string): string | null => {
  const listening = hostNameOf(listenHost)
  if (listening === null || !isLoopbackName(listening)) return null
  if (host === undefined || host === "") return null
  const name = hostNameOf(host)
  if (name !== null && (isLoopbackName(name) || name === listening)) return null
  return `loopguard proxy: requests addressed to another host are refused (Host ${JSON.stringify(host.slice(0, 200))}); a proxy listening on loopback answers only to localhost, 127.0.0.1 or [::1] (this guards against DNS rebinding)`
}
