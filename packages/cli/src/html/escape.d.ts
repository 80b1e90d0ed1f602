/** Text from a log is untrusted: everything put into a page goes through one of these. */
/** Text as HTML text or attribute value. */
export declare const escapeHtml: (s: string) => string;
/**
 * A value as JSON that is safe inside `<script type="application/json">`: no `<` (so no
 * `</script>` or `<!--`), no `>` or `&`, and no line separators JavaScript once treated as line ends.
 */
export declare const jsonForScript: (value: unknown) => string;
/**
 * The page may load nothing from anywhere: inline style and script only, images only as data.
 * A log that smuggled markup into the page still could not reach the network.
 */
export declare const CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";
