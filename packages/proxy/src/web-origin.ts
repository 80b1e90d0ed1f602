/**
 * Requests a web page sent. An agent's HTTP client sends no `Origin`; a browser sends one on every
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
