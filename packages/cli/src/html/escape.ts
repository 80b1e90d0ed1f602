/** Text from a log is untrusted: everything put into a page goes through one of these. */
import { createHash } from "node:crypto"

const HTML_ESCAPES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }

/** Text as HTML text or attribute value. */
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!)

/**
 * A value as JSON that is safe inside `<script type="application/json">`: no `<` (so no
 * `</script>` or `<!--`), no `>` or `&`, and no line separators JavaScript once treated as line ends.
 */
export const jsonForScript = (value: unknown): string =>
  JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029")

/**
 * The page may load nothing from anywhere: inline style, images only as data, and no script but
 * the page's own (allowed by its hash). A log that smuggled markup into the page still could not
 * run a script or reach the network.
 */
export const contentSecurityPolicy = (scripts: ReadonlyArray<string>): string =>
  `default-src 'none'; style-src 'unsafe-inline'; script-src ${scripts.length === 0 ? "'none'" : scripts.map(scriptHash).join(" ")}; img-src data:; base-uri 'none'; form-action 'none'`

/** A CSP source that allows one inline script, by the hash of its text. */
const scriptHash = (source: string): string => `'sha256-${createHash("sha256").update(source, "utf8").digest("base64")}'`
