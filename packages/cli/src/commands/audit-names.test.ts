/** What the audit prints keeps the run's own name, however much it looks like a token. */
import { expect, test } from "bun:test"
import { logRedactor } from "../render/env-secrets.js"
import { keepingName } from "./audit.js"

test("a temporary folder's random name is not redacted where it names the run; a key in the same text still is", () => {
  const redact = logRedactor({})
  const file = "/tmp/loopguard-audit-opencode-db-6cB0tL/share/opencode.db"
  // The redactor alone takes the folder's name for a token: the reason for keepingName.
  expect(redact(file)).not.toBe(file)
  const keep = keepingName(redact, `${file}#ses_dc8463094ffeEFCeYukX2S2hlQ`)
  expect(keep(`${file}#ses_dc8463094ffeEFCeYukX2S2hlQ`)).toBe(`${file}#ses_dc8463094ffeEFCeYukX2S2hlQ`)
  expect(keep(`${file}: cannot read it, key sk-proj-AbCdEfGhIjKlMnOpQrStUvWx0123456789`)).toBe(`${file}: cannot read it, key [REDACTED]`)
})
