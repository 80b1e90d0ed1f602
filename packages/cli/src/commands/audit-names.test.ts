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

// Found by an outside pass: the text was cut at the name and each piece redacted apart.
test("a command's password after the run's name, or in a word that holds it, is still redacted", () => {
  const redact = logRedactor({})
  const stdin = keepingName(redact, "stdin")
  expect(stdin("mysql --defaults-extra-file=/dev/stdin -u root -pVn7sK2xLq9")).toBe("mysql --defaults-extra-file=/dev/stdin -u root -p[REDACTED]")
  expect(stdin("http --ignore-stdin -a alice:Qm4rT8wZp2 GET https://x.test/")).not.toContain("Qm4rT8wZp2")
  const log = keepingName(redact, "log")
  expect(log("docker login -u me -p Hq3vN7cXr5 registry.example.com")).not.toContain("Hq3vN7cXr5")
  expect(log("log: 3 steps")).toBe("log: 3 steps")
})
