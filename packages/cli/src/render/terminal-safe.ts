/**
 * Text from the model, from tools or from a server is shown on a person's terminal: an escape
 * sequence in it could recolour, move the cursor, retitle the window or hide what was printed.
 * Control characters other than newline and tab are removed (an ESC without its ESC is plain
 * text), and a URL is shown without the user name, password or query it may carry.
 */
// C0 controls but \t and \n, DEL, and the C1 range (0x80-0x9f: CSI and friends on some terminals).
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g

export const terminalSafe = (text: string): string => text.replace(CONTROL, "")

/** `https://user:pw@host/v1?key=x` → `https://host/v1`; anything that is not a URL is made terminal-safe. */
export const displayUrl = (url: string): string => {
  try {
    const u = new URL(url)
    return terminalSafe(`${u.protocol}//${u.host}${u.pathname}`.replace(/\/$/, ""))
  } catch {
    return terminalSafe(url)
  }
}
