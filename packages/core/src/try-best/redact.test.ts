import { describe, expect, test } from "bun:test"
import fc from "fast-check"
import { ASSIGNMENT_HINT, ASSIGNMENT_WORDS, makeRedactor, makeShapeStreamRedactor, makeStreamRedactor, REDACTED, redactDeep, redactSecrets, TOKEN_HINT, TOKEN_PATTERNS } from "./redact.js"

/** Streamed in two pieces, cut at every place, the text comes out as `redact` gives it whole. */
const expectEverySplitRedacted = (text: string, redact: (text: string) => string): void => {
  for (let cut = 1; cut < text.length; cut++) {
    const s = makeShapeStreamRedactor([])
    expect(s.push(text.slice(0, cut)) + s.push(text.slice(cut)) + s.flush()).toBe(redact(text))
  }
}

describe("redactSecrets: environment values", () => {
  test("values of given variables are removed wherever they appear; short values stay", () => {
    const env = { MY_SERVICE_KEY: "s3cretvalue", SHORT: "abc12", EMPTY: undefined }
    expect(redactSecrets("curl -H x:s3cretvalue; echo abc12 s3cretvalue", env)).toBe(`curl -H x:${REDACTED}; echo abc12 ${REDACTED}`)
  })
  test("values of exactly six characters are removed, five are not", () => {
    expect(redactSecrets("a qwerty b", { X: "qwerty" })).toBe(`a ${REDACTED} b`)
    expect(redactSecrets("a qwert b", { X: "qwert" })).toBe("a qwert b")
  })
  test("a value that contains another is removed whole", () => {
    expect(redactSecrets("v=prefix-inner-suffix", { A: "inner-", B: "prefix-inner-suffix" })).toBe(`v=${REDACTED}`)
  })
  test("well-known non-secret variables (HOME, PATH, PWD ...) are left alone unless the caller says otherwise", () => {
    const env = { HOME: "/home/alice", PWD: "/home/alice/work", LC_ALL: "en_US.UTF-8" }
    expect(redactSecrets("cd /home/alice/work", env)).toBe("cd /home/alice/work")
    expect(redactSecrets("cd /home/alice/work", env, { keepEnv: [] })).toBe(`cd ${REDACTED}`)
  })
  test("values with regex metacharacters are matched literally", () => {
    expect(redactSecrets("p=a.b*c+d(e) x=aXb*c+d(e)", { P: "a.b*c+d(e)" })).toBe(`p=${REDACTED} x=aXb*c+d(e)`)
  })
})

describe("redactSecrets: key shapes", () => {
  test.each([
    ["OpenAI key", "sk-proj-Abcdefghijklmnop1234567890"],
    ["Anthropic key", "sk-ant-api03-Abcdefghijklmnop1234567890"],
    ["GitHub token", "ghp_Abcdefghijklmnopqrstuvwxyz0123456789"],
    ["GitHub PAT", "github_pat_11ABCDEFG0123456789_abcdefghijklmnop"],
    ["AWS key id", "AKIAIOSFODNN7EXAMPLE"],
    ["Google key", "AIzaSyA1234567890abcdefghijklmnopqrstuv"],
    ["Slack token", "xoxb-1234567890-abcdefghij"],
    ["JWT", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"],
    ["random base64", "dGhpcyBpcyBhIHNlY3JldCB0b2tlbiB2YWx1ZSAxMjM0NTY3OA=="],
    ["random alphanumeric", "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5bC7"]
  ])("%s", (_label, secret) => {
    const out = redactSecrets(`before ${secret} after`)
    expect(out).not.toContain(secret.slice(6))
    expect(out.startsWith("before ")).toBe(true)
    expect(out.endsWith(" after")).toBe(true)
  })

  test("PEM blocks go whole, text around them stays", () => {
    const pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabcdef\n-----END RSA PRIVATE KEY-----"
    expect(redactSecrets(`key:\n${pem}\ndone`)).toBe(`key:\n${REDACTED}\ndone`)
  })

  test("Bearer and Authorization credentials go, the scheme stays", () => {
    expect(redactSecrets("Authorization: Bearer abc.def.ghi123")).toBe(`Authorization: Bearer ${REDACTED}`)
    expect(redactSecrets("-H 'Authorization: Basic dXNlcjpwYXNz'")).toBe(`-H 'Authorization: Basic ${REDACTED}'`)
    expect(redactSecrets("curl -H \"bearer abcdef1234567\"")).toBe(`curl -H "bearer ${REDACTED}"`)
  })

  test("api_key= style assignments and --token flags lose their value, keep their name", () => {
    expect(redactSecrets("api_key=abcd1234")).toBe(`api_key=${REDACTED}`)
    expect(redactSecrets('{"password": "hunter2", "user": "bob"}')).toBe(`{"password": "${REDACTED}", "user": "bob"}`)
    expect(redactSecrets("DB_PASSWORD: correcthorse")).toBe(`DB_PASSWORD: ${REDACTED}`)
    expect(redactSecrets("export GITHUB_TOKEN=abcdefgh")).toBe(`export GITHUB_TOKEN=${REDACTED}`)
    expect(redactSecrets("tool --token abcd1234efgh --verbose")).toBe(`tool --token ${REDACTED} --verbose`)
  })
})

describe("redactSecrets: what must stay", () => {
  test.each([
    "packages/core/src/try-best/edit-records.test.ts",
    "/home/user/projects/loopguard2024/packages/core/src/v2/index.ts",
    "commit 3f786850e387550fdab836ed7e6dc881de23001b",
    "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "id 123e4567-e89b-12d3-a456-426614174000",
    "see https://github.com/FasterXML/jackson-databind/commit/f27df6357db7eefe8698c565aac20644fc6e7a1b",
    "TestDecoratorsAndFuzz32208UTF32ParseTestAndMoreStuff failed",
    "String token = tokens.nextToken();",
    "self.secret = self.secret or settings.SECRET_KEY",
    "input tokens: 12345, max_tokens=100, author: Jane",
    "Let's try a more basic approach. Basic serializer for token location.",
    "password = None"
  ])("%s", (text) => {
    expect(redactSecrets(text)).toBe(text)
  })

  test("never throws, and is idempotent", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 12 })), (text, env) => {
        const once = redactSecrets(text, env)
        expect(redactSecrets(once, env)).toBe(once)
      })
    )
  })

  // Each pass runs only on text that holds its hint: a hint that missed a shape would let it through.
  test("every text a token pattern matches holds the hint that gates the patterns", () => {
    for (const pattern of TOKEN_PATTERNS) {
      let matched = 0
      fc.assert(
        fc.property(fc.stringMatching(new RegExp(`^(?:${pattern.source.replace(/\\b|\(\?![^()]*\)/g, "").replace("\\1", "[A-Z0-9 ]+")})$`)), (text) => {
          const found = text.match(new RegExp(pattern.source))
          if (found !== null) expect(TOKEN_HINT.test(found[0])).toBe(true)
          matched += found === null ? 0 : 1
        }),
        { numRuns: 40 }
      )
      // Some generated texts hold a match (a word boundary or look-ahead the generator leaves out may rule one out).
      expect(matched).toBeGreaterThan(0)
    }
  })

  test("every word an assignment's name may end in, in any case, holds the assignment hint", () => {
    const flipCase = (word: string, flips: ReadonlyArray<boolean>) => [...word].map((c, i) => (flips[i % flips.length] ? c.toUpperCase() : c)).join("")
    fc.assert(
      fc.property(fc.stringMatching(new RegExp(`^(?:${ASSIGNMENT_WORDS})$`)), fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }), (word, flips) => {
        expect(ASSIGNMENT_HINT.test(flipCase(word, flips))).toBe(true)
      }),
      { numRuns: 200 }
    )
  })

  test.each([
    ["a Stripe publishable key", "key pk_live_abcdefghijklmnop1234 here"],
    ["an AWS role id", "role AROAABCDEFGHIJKLMNOP assumed"],
    ["an AWS user id", "user AIDAABCDEFGHIJKLMNOP found"],
    ["a PEM certificate", "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----"],
    ["a mixed-case weak assignment", "Auth_Token = 'abcd1234efgh'"],
    ["a password segment", "MYSQL_PWD=s3cr3tvalue"],
    ["a credentials file value", "Credentials: \"x9y8z7w6v5\""],
    ["a token flag", "deploy --token abcd1234efgh"]
  ])("%s is still removed", (_what, text) => {
    expect(redactSecrets(text)).toContain(REDACTED)
  })

  // A fractional minimum takes the path that hands every run to the entropy test; the next whole
  // number takes the one that matches only runs that long. Both must redact the same.
  test("matching only runs as long as the entropy test's minimum changes nothing", () => {
    const piece = fc.oneof(
      fc.constantFrom(" ", "\n", "/", "=", "-", "_", ".", ": ", "src/lib/", "https://x.test/a/"),
      fc.stringMatching(/^[A-Za-z0-9+/_=-]{1,70}$/),
      fc.stringMatching(/^[a-z]{2,12}$/)
    )
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), fc.integer({ min: 2, max: 40 }), (pieces, min) => {
        const text = pieces.join("")
        expect(redactSecrets(text, undefined, { entropyMinLength: min, entropyBits: 3 })).toBe(redactSecrets(text, undefined, { entropyMinLength: min - 0.5, entropyBits: 3 }))
      }),
      { numRuns: 300 }
    )
  })
})

describe("makeRedactor (the boundary redactor)", () => {
  const redact = makeRedactor(["k3y-VALUE-0123456789", undefined, "abc"])
  test("removes the configured value anywhere, and Authorization / Bearer credentials", () => {
    expect(redact('{"echo":"k3y-VALUE-0123456789","h":"authorization: Bearer other.token-1"}')).toBe(
      '{"echo":"[REDACTED]","h":"authorization: Bearer [REDACTED]"}'
    )
    expect(redact("Authorization=Basic dXNlcjpwYXNz")).toBe("Authorization=Basic [REDACTED]")
  })
  test("leaves ordinary text alone: no entropy guessing, short values ignored", () => {
    const text = "commit 3f2a9c1e7b5d4a8f9e0c1b2a3d4e5f6a7b8c9d0e, abc, TestDecoratorsAndFuzz32208Test x9Qw2Lm8Zr4Tp6Vb1Nc3Kd5Hf7Jg0Ys"
    expect(redact(text)).toBe(text)
  })
  test("redactDeep redacts every string inside a value and keeps its shape", () => {
    const value = { a: ["x k3y-VALUE-0123456789"], b: { c: 1, d: null, e: "Bearer abc.def-123" } }
    expect(redactDeep(value, redact)).toEqual({ a: ["x [REDACTED]"], b: { c: 1, d: null, e: "Bearer [REDACTED]" } })
  })
})

describe("makeStreamRedactor", () => {
  const KEY = "sk-stream-secret-42"
  const through = (pieces: ReadonlyArray<string>) => {
    const r = makeStreamRedactor([KEY])
    const out = pieces.map((p) => r.push(p))
    return { out, text: out.join("") + r.flush() }
  }
  test("a key split over several deltas is still removed", () => {
    expect(through(["the key is sk-str", "eam-sec", "ret-42 ok"]).text).toBe("the key is [REDACTED] ok")
  })
  test("text that only looks like the start of a key is let out once it is clearly not one", () => {
    const { out, text } = through(["ask sk-", "nothing"])
    expect(out[0]).toBe("ask ")
    expect(text).toBe("ask sk-nothing")
  })
  test("without secrets every delta passes at once", () => {
    const r = makeStreamRedactor([])
    expect(r.push("sk-str")).toBe("sk-str")
  })
  test("property: the joined output equals the whole-text redaction of the values, however the text is split", () => {
    // Values only, as makeStreamRedactor redacts: header and phrase shapes are the shape redactor's.
    const whole = makeRedactor([KEY], { authorization: false })
    fc.assert(
      fc.property(fc.array(fc.constantFrom("a", " ", "sk-", "stream", "-secret", "-42", KEY, "sk-stream-secret-4"), { maxLength: 20 }), fc.integer({ min: 1, max: 7 }), (parts, size) => {
        const text = parts.join("")
        const pieces: Array<string> = []
        for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size))
        const r = makeStreamRedactor([KEY])
        return pieces.map((p) => r.push(p)).join("") + r.flush() === whole(text)
      }),
      { numRuns: 200 }
    )
  })
})

describe("makeRedactor: well-known credential formats wherever they appear", () => {
  const redact = makeRedactor([])
  test.each([
    ["OpenAI project key", "sk-proj-REPLYKEY9876543210zyxwvuZYXWVU"],
    ["OpenAI legacy key", "sk-T3BlbkFJabcdefghij0123456789ABCDEFGHIJklmnopqr"],
    ["Anthropic key", "sk-ant-api03-FOREIGNab12cd34ef56gh78ij90kl12mn34op56"],
    ["AWS access key id", "AKIAIOSFODNN7EXAMPLQ"],
    ["GitHub token", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"],
    ["GitHub OAuth token", "gho_abcdefghijklmnopqrstuvwxyz0123456789"],
    ["GitHub fine-grained PAT", "github_pat_11ABCDEFG0123456789_abcdefghijklmnop"],
    ["Slack token", "xoxb-1234567890-abcdefghij"],
    ["Google API key", "AIzaSyA1234567890abcdefghijklmnopqrstuv"],
    ["OpenRouter key", "sk-or-v1-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"],
    ["Groq key", "gsk_PlainGroqKeyPROBE10abcdef0123456789ABCDEFGHIJKLmn"],
    ["xAI key", "xai-AbCdEfGh0123456789AbCdEfGh0123456789AbCdEfGh0123456789AbCdEfGh0123456789abcd"],
    ["Google OAuth access token", "ya29.a0AfH6SMBx3-Q0123456789abcdefghijklmn_opq"],
    ["signed JWT", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"]
  ])("%s", (_label, secret) => {
    expect(redact(`before ${secret} after`)).toBe(`before ${REDACTED} after`)
    expect(redact(`"${secret}"`)).toBe(`"${REDACTED}"`)
    // As an error body quotes it (a JSON escape just before), or a query string (a percent escape), or glued to `_`.
    expect(redact(`{"message":"bad key:\\n${secret}"}`)).toBe(`{"message":"bad key:\\n${REDACTED}"}`)
    expect(redact(`?token%3D${secret}&x=1`)).toBe(`?token%3D${REDACTED}&x=1`)
    expect(redact(`KEY_${secret}`)).toBe(`KEY_${REDACTED}`)
  })
  test("a Digest Authorization header loses its response hash as well as its first value", () => {
    const header = `Authorization: Digest username="alice", realm="api", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", uri="/v1/models", response="6629fae49393a05397450978507c4ef1"`
    const out = redact(header)
    expect(out).not.toContain("6629fae49393a05397450978507c4ef1")
    expect(out).toContain(`response="${REDACTED}"`)
    expect(redact(`the response = "ok" and response: 6629fae49393a05397450978507c4ef1`)).toBe(`the response = "ok" and response: 6629fae49393a05397450978507c4ef1`)
  })
  test("an AWS key id or a prefixed sk- key glued to a word still goes", () => {
    expect(redact("xAKIAIOSFODNN7EXAMPQZ")).toBe(`x${REDACTED}`)
    expect(redact("xsk-proj-CLIPKEYabcdefghijklmnop0123456789")).toBe(`x${REDACTED}`)
    expect(redact("task-proj-management-dashboard-feature SLOVAKIA")).toBe("task-proj-management-dashboard-feature SLOVAKIA")
  })
  test("a URL's password goes, its user and host stay", () => {
    expect(redact("db postgres://admin:hunter2pass@db.internal:5432/app")).toBe(`db postgres://admin:${REDACTED}@db.internal:5432/app`)
    expect(redact("redis://:s3cret@cache:6379")).toBe(`redis://:${REDACTED}@cache:6379`)
    expect(redact("http://example.com:8080/path and git@github.com:org/repo")).toBe("http://example.com:8080/path and git@github.com:org/repo")
  })
  test("x-api-key / api-key header text loses its value", () => {
    expect(redact(`curl -H "x-api-key: XAPIKEYVALUEabc123xyz789" https://api.example.com`)).toBe(`curl -H "x-api-key: ${REDACTED}" https://api.example.com`)
    expect(redact("api-key: 0123abcd4567ef890123abcd4567ef89")).toBe(`api-key: ${REDACTED}`)
    expect(redact("x-goog-api-key=AbCdEf0123456789")).toBe(`x-goog-api-key=${REDACTED}`)
  })
  test("a Bearer value made of letters only goes when it is longer than a word", () => {
    expect(redact("Bearer abcdefghijklmnopqrstuvwxyzABCDEF")).toBe(`Bearer ${REDACTED}`)
    expect(redactSecrets("Bearer abcdefghijklmnopqrstuvwxyzABCDEF")).toBe(`Bearer ${REDACTED}`)
  })
  test("prose and code that only name a prefix or a header stay", () => {
    for (const text of [
      "the sk- prefix marks an OpenAI key; sk-learn-style estimators too",
      "Bearer of bad news, Bearer authentication, bearer tokens",
      "AKIA is the prefix of AWS key ids; ghp_ of GitHub's",
      'headers: { "x-api-key": process.env.ANTHROPIC_API_KEY, "api-key": apiKey }',
      "see https://example.com/docs and ftp://files.example.com:21/pub",
      "task-sk-runner, desk-1234567890abcdefghijkl"
    ])
      expect(redact(text)).toBe(text)
  })
  test("code to run keeps them (only the configured values go)", () => {
    const text = "curl -H 'x-api-key: XAPIKEYVALUEabc123xyz789' -u admin:pw https://admin:pw@host"
    expect(makeRedactor([], { authorization: false })(text)).toBe(text)
  })
  test("idempotent", () => {
    const text = "postgres://admin:hunter2pass@db sk-proj-REPLYKEY9876543210zyxwvuZYXWVU x-api-key: XAPIKEYVALUEabc123xyz789"
    expect(redact(redact(text))).toBe(redact(text))
  })
})

describe("makeShapeStreamRedactor (a reply shown as it streams)", () => {
  const TOKEN = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
  const run = (pieces: ReadonlyArray<string>, secrets: ReadonlyArray<string> = []) => {
    const r = makeShapeStreamRedactor(secrets)
    const out = pieces.map((p) => r.push(p))
    return { out, text: out.join("") + r.flush() }
  }
  test("a token split over deltas never gets out, not even its first characters; the text around it does", () => {
    const { out, text } = run(["Here is ", "the token gh", "p_abcdefghijklm", "nopqrstuvwxyz0123456789 for you, and more words follow here."])
    for (const shown of out) expect(shown).not.toContain("ghp_")
    expect(text).toBe(`Here is the token ${REDACTED} for you, and more words follow here.`)
  })
  test("an Authorization header is read with its scheme, and a private key block is held to its END line", () => {
    expect(run(["curl -H 'Authorization: Bea", "rer abcdef123456789' https://x"]).text).toBe(`curl -H 'Authorization: Bearer ${REDACTED}' https://x`)
    const key = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----"
    const { out, text } = run(["key:\n", ...key.match(/.{1,7}/gs)!, "\nthat was it"])
    for (const shown of out) expect(shown).not.toContain("MIIE")
    expect(text).toBe(`key:\n${REDACTED}\nthat was it`)
  })
  test("property: the joined output equals the whole-text redaction, however the text is split", () => {
    const whole = makeRedactor(["conf1gured-key"])
    const parts = ["a", "Bearer", "Authorization:", TOKEN, "ghp_", "sk-proj-", "0123456789abcdefghijKLMN", "conf1gured-key", "https://u:pw12345@h/x", "-----BEGIN PRIVATE KEY-----", "\n-----END PRIVATE KEY-----", "word", "-u", "admin:pa55word", "PGPASSWORD=", "Pgs3cretPw", "docker login", "-p", "machine h login u password", "SECRET_KEY:"]
    fc.assert(
      // Words as text has them, each followed by a space or a line break; the splits fall anywhere.
      fc.property(fc.array(fc.tuple(fc.constantFrom(...parts), fc.constantFrom(" ", "\n")), { maxLength: 16 }), fc.integer({ min: 1, max: 9 }), (chosen, size) => {
        const text = chosen.map(([part, space]) => part + space).join("")
        const pieces: Array<string> = []
        for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size))
        return run(pieces, ["conf1gured-key"]).text === whole(text)
      }),
      { numRuns: 300 }
    )
  })
})

describe("makeRedactor: credentials right after a JSON escape, and a URL password with an @ in it", () => {
  const redact = makeRedactor([])
  test("Authorization, Bearer and api-key after an escaped line break", () => {
    expect(redact('{"message":"x\\nAuthorization: Basic dXNlcjpCYXNpY1Bhc3M5OQ=="}')).toBe(`{"message":"x\\nAuthorization: Basic ${REDACTED}"}`)
    expect(redact("x\\nBearer opaqueTokenValue1234567")).toBe(`x\\nBearer ${REDACTED}`)
    expect(redact("x\\nx-api-key: 0123456789abcdef")).toBe(`x\\nx-api-key: ${REDACTED}`)
    // Inside a word it is no header: "preAuthorization" and "unBearer" are left as they are.
    expect(redact("preAuthorization: Basic dXNlcjpw")).toBe("preAuthorization: Basic dXNlcjpw")
  })
  test("the password runs to the authority's last @", () => {
    expect(redact("https://user:pa@ss:w@host/x")).toBe(`https://user:${REDACTED}@host/x`)
    expect(redact("see https://user:secret9@host/a?b=c@d and mail me@example.org")).toBe(`see https://user:${REDACTED}@host/a?b=c@d and mail me@example.org`)
  })
})

describe("makeRedactor: secrets written as name = value", () => {
  const redact = makeRedactor([])
  test("strong names lose their values (AWS, Azure, passwords, client secrets); code and variables stay", () => {
    expect(redact("aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")).toBe(`aws_secret_access_key=${REDACTED}`)
    expect(redact("DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==;EndpointSuffix=core")).toContain(`AccountKey=${REDACTED}`)
    expect(redact('{"password": "correcthorse"}')).toBe(`{"password": "${REDACTED}"}`)
    expect(redact("DB_PASSWORD=hunter22 psql")).toBe(`DB_PASSWORD=${REDACTED} psql`)
    expect(redact("client_secret: 9f8e7d6c5b4a")).toBe(`client_secret: ${REDACTED}`)
    for (const code of ["password = request.form['password']", '"api-key": apiKey', "secret: None", "password: password", "token = 12345"]) expect(redact(code)).toBe(code)
  })
  test("a stream split inside the name or the value is redacted as the whole text is", () => {
    const text = "then set aws_secret_access_key: wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY and retry"
    expectEverySplitRedacted(text, redact)
  })
})

describe("makeRedactor: a URL query's credential and a cookie header", () => {
  const redact = makeRedactor([])
  test("the value goes, the name stays", () => {
    expect(redact("GET https://generativelanguage.example/v1/models?key=QKEYabc123def456&alt=sse")).toBe(`GET https://generativelanguage.example/v1/models?key=${REDACTED}&alt=sse`)
    expect(redact("https://api.example/cb?state=x1&access_token=ya29.a0AfH6SMB")).toBe(`https://api.example/cb?state=x1&access_token=${REDACTED}`)
    expect(redact("Cookie: session=COOKIEVAL7f3a9b; theme=dark\nAccept: */*")).toBe(`Cookie: ${REDACTED}\nAccept: */*`)
    expect(redact('{"headers":"Set-Cookie: sid=abc123xyz; Path=/\\nX: y"}')).toBe(`{"headers":"Set-Cookie: ${REDACTED}\\nX: y"}`)
    // A page's own words and short values stay.
    for (const plain of ["?key=abc", "the cookie: a small biscuit", "sort?key=name"]) expect([plain, redact(plain)]).toEqual([plain, plain])
    expect(redact("curl -H 'Cookie: sid=abc123xyz' https://x")).toBe(`curl -H 'Cookie: ${REDACTED}' https://x`)
  })
  test("streamed, split anywhere, it is redacted as the whole text is", () => {
    const text = "sent Cookie: session=COOKIEVAL7f3a9b; theme=dark\nand https://x.example/a?key=QKEYabc123def456 done"
    expectEverySplitRedacted(text, redact)
  })
})

describe("makeRedactor: a password given to curl's -u / --user", () => {
  const redact = makeRedactor([])
  test("the password goes, the user stays; group ids, variables and other -u flags stay", () => {
    expect(redact("curl -u admin:S3cretPassw0rd https://x")).toBe(`curl -u admin:${REDACTED} https://x`)
    expect(redact("curl --user 'bob:hunter2!' http://h")).toBe(`curl --user 'bob:${REDACTED}' http://h`)
    expect(redact("curl --user=me:abc@def http://h")).toBe(`curl --user=me:${REDACTED} http://h`)
    expect(redact(JSON.stringify({ command: 'curl -u "ops:pa55word" http://x' }))).toBe(`{"command":"curl -u \\"ops:${REDACTED}\\" http://x"}`)
    expect(redactSecrets("wget --http-user=me:pa55word x")).toBe(`wget --http-user=me:${REDACTED} x`)
    for (const plain of ["docker run -u 1000:1000 img", 'curl -u "$U:$P" x', "git push -u origin main", "curl -u admin: x", "sort -u a.txt"]) expect(redact(plain)).toBe(plain)
  })
  test("streamed, split anywhere, it is redacted as the whole text is", () => {
    const text = "ran curl -s -u admin:S3cretPassw0rd https://api.example/v1 and got 200"
    expectEverySplitRedacted(text, redact)
  })
})

describe("makeRedactor: credentials in names that hold a strong word, command flags and files' own syntax", () => {
  const redact = makeRedactor([])
  const gone: ReadonlyArray<readonly [string, string]> = [
    ["PGPASSWORD=Pgs3cretPw psql -h db", "Pgs3cretPw"],
    ["SECRET_KEY=django-insecure-9a8b7c6d5e4f", "django-insecure"],
    ["SECRET_KEY_BASE=9a8b7c6d5e4f3g2h1i0jZZZ", "9a8b7c6d5e4f3g2h1i0jZZZ"],
    [`{"SecretAccessKey":"wJalrXUtnFEMI/K7MDENG/bPxRfiCY","SessionToken":"FwoGZXIvYXdzEJr//wEaDOv"}`, "wJalrXUtnFEMI"],
    [`{"SessionToken":"FwoGZXIvYXdzEJr//wEaDOv"}`, "FwoGZXIvYXdz"],
    ["DB_PASS=Pgs3cretPw", "Pgs3cretPw"],
    ["Server=x;Uid=sa;Pwd=Sql5erverPw;", "Sql5erverPw"],
    ["//registry.example.com/:_authToken=Np4uthT0kenVal", "Np4uthT0kenVal"],
    ["TWILIO_AUTH_TOKEN=0123456789abcdef0123456789abcdef", "0123456789abcdef"],
    ["mysql --password MyS3cretPw", "MyS3cretPw"],
    ["wget --http-password CurlPwI9x x", "CurlPwI9x"],
    ["mysql -h db -u root -pMyS3cretPw app", "MyS3cretPw"],
    ["sshpass -p MyS3cretPw ssh host", "MyS3cretPw"],
    ["docker login -u alice -p D0ckerPw9 registry", "D0ckerPw9"],
    ["http -a alice:HttpiePw7 https://x", "HttpiePw7"],
    ["curl -fsSLu alice:CurlPw5 https://x", "CurlPw5"],
    ["curl -ualice:CurlPw6 https://x", "CurlPw6"],
    ["curl --proxy-user bob:ProxyPw8 x", "ProxyPw8"],
    ["machine api.x.com login alice password N3trcPassw", "N3trcPassw"],
    [`{"auths":{"r.io":{"auth":"YWxpY2U6UzNjcmV0UGFzc3cwcmQ="}}}`, "YWxpY2U6UzNjcmV0"],
    ["Ocp-Apim-Subscription-Key: 0123456789abcdef0123456789abcdef", "0123456789abcdef"],
    ["https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX1", "XXXXXXXXXXXX"],
    ["-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBGPgpS3cretMaterial0123\n-----END PGP PRIVATE KEY BLOCK-----", "lQOYBGPgp"],
    [`{"u":"https:\\/\\/user:Esc4pedPw@host\\/x"}`, "Esc4pedPw"],
    ["redis://:p#ssW0rd123@host:6379", "ssW0rd123"],
    ["sk_test_51HAbCdEfGhIjKlMnOpQrStUv", "51HAbCdEfGhIjKlMnOpQrStUv"],
    ["SG.AbCdEfGhIjKlMnOpQrStUv.WxYz0123456789AbCdEfGhIjKlMnOpQrStUvWxYz012", "WxYz0123456789"]
  ]
  test.each(gone)("%s", (text, secret) => {
    expect(redact(text)).not.toContain(secret)
    expect(redactSecrets(text)).not.toContain(secret)
  })
  test("names that only mention one, paths in PWD, flags of other commands and code stay", () => {
    const kept = ["secretary = 'Alice'", "passwords: [a, b]", "bypass=true1234", "PWD=/work/main", "password_hash = bcrypt(pw)", "const password = req.body.password", "tokenizer: gpt2-large", "rsync -avu user@host:/srv/x .", "mkdir -p build/dist", "ssh -p 2222 host", "passes = 1234", "compass_heading=270deg", "mysql -u root -p app"]
    for (const text of kept) expect(redact(text)).toBe(text)
  })
  test("streamed, split anywhere, each is redacted as the whole text is", () => {
    for (const [text] of gone.slice(0, 22)) {
      const line = `ran ${text} then more words`
      expectEverySplitRedacted(line, redact)
    }
  })
})

// Found by an outside fuzzing pass: each went through every redactor.
describe("makeRedactor and redactSecrets: a quoted mysql password, a token ending in a dash, a key after a JSON escape", () => {
  test.each([
    ["mysql -u root -p\"Wq9rT4yUi2\" app", "Wq9rT4yUi2"],
    ["mysql -u root -p'Wq9rT4yUi2' app", "Wq9rT4yUi2"],
    ["mysqldump -uroot -p\"Wq9rT4yUi2\" db > o.sql", "Wq9rT4yUi2"],
    ["token glpat-abcdefghij012345678- here", "glpat-abcdefghij012345678"],
    ["{\\u0022k\\u0022:\\u0022AKIAABCDEFGHIJKLMNOP\\u0022}", "AKIAABCDEFGHIJKLMNOP"],
    ["xoxb-1234567890-abcdefghij- end", "xoxb-1234567890"]
  ])("%s", (text, secret) => {
    expect(makeRedactor([])(text)).not.toContain(secret)
    expect(redactSecrets(text)).not.toContain(secret)
  })
})

// JSON written inside a JSON string (a tool that prints JSON holding JSON, a manifest kept in an
// annotation): the quotes the patterns read are escaped (found by an outside pass).
describe("makeRedactor: JSON inside a JSON string", () => {
  test.each([
    ['{"config":"{\\"password\\": \\"Zq8xW3vNp1\\"}"}', "Zq8xW3vNp1"],
    ['"last-applied":"{\\"stringData\\":{\\"DB_PASSWORD\\":\\"s3cr3t-Value9\\"}}"', "s3cr3t-Value9"],
    ["run sshpass -p \\\"Hq3vN7cXr5\\\" ssh host", "Hq3vN7cXr5"],
    ['x response=\\"f9a38a5d6be0fb3bcc8d8c9ce00bf9b0\\" y', "f9a38a5d6be0fb3bcc8d8c9ce00bf9b0"]
  ])("%s", (text, secret) => {
    expect(makeRedactor([])(text)).not.toContain(secret)
    expect(redactSecrets(makeRedactor([])(text))).not.toContain(secret)
  })

  test("escaped quotes around ordinary words change nothing", () => {
    const text = 'log "{\\"level\\":\\"info\\",\\"msg\\":\\"server started on port 8080\\"}"'
    expect(makeRedactor([])(text)).toBe(text)
  })
})
