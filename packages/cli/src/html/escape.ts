/** Text from a log is untrusted: everything put into a page goes through one of these. */

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
 * The page may load nothing from anywhere: inline style and script only, images only as data.
 * A log that smuggled markup into the page still could not reach the network.
 */
export const CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"
