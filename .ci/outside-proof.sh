#!/usr/bin/env bash
# The packages proved from outside the repository: pack them, install the tarballs with npm into an
# empty folder (mktemp -d), and on Node >= 22 run every examples/*.ts plus the `loopguard` bin.
# Prints one `check: ok NAME` or `check: FAILED NAME` line per check; exits non-zero on any failure.
# Usage: .ci/outside-proof.sh   (from a checkout where `bun install` has run)
set -uo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
failed=0
ok() { echo "check: ok $1"; }
bad() { echo "check: FAILED $1"; failed=1; }
# npm install, asked once more with fresh registry metadata when it fails: a dependency published
# minutes before can be named by another package's range while npm's cached list of versions does
# not have it yet (ETARGET on @ai-sdk/provider, 2026-12-05). A real failure fails twice.
npm_install() {
  npm install "$@" && return 0
  echo "npm install failed; once more with fresh registry metadata (--prefer-online)"
  sleep 5
  npm install --prefer-online "$@"
}

echo "== build and pack"
if (cd "$repo" && bun run pack); then ok "bun run pack"; else bad "bun run pack"; exit 1; fi

echo "== Node >= 22"
node_dir=""
major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$major" -ge 22 ]; then
  node_dir="$(dirname "$(command -v node)")"
else
  # The machine's node is older: take Node 22 from the npm registry's node@22 package, in a
  # folder of its own, without touching the machine's node.
  tools=$(mktemp -d)
  npm_install --prefix "$tools" --no-audit --no-fund --silent node@22 >/dev/null 2>&1 || true
  [ -x "$tools/node_modules/.bin/node" ] && node_dir="$tools/node_modules/.bin"
fi
if [ -n "$node_dir" ] && "$node_dir/node" --version; then ok "node >= 22 ($("$node_dir/node" --version))"; else bad "node >= 22"; exit 1; fi
export PATH="$node_dir:$PATH"

echo "== install the tarballs into an empty folder outside the repository"
app=$(mktemp -d)
trap 'rm -rf "$app" ${tools:+"$tools"}' EXIT
(
  cd "$app" && npm init -y >/dev/null && npm pkg set type=module &&
  npm_install --no-audit --no-fund "$repo"/.packs/*.tgz \
    effect@^4.1.0 ai@^7.0.0 @ai-sdk/openai@^4.0.0 @ai-sdk/openai-compatible@^3.0.0
) && ok "npm install of the tarballs" || { bad "npm install of the tarballs"; exit 1; }

echo "== examples on $(node --version)"
mkdir -p "$app/examples"
for example in "$repo"/examples/*.ts; do
  name=$(basename "$example")
  cp "$example" "$app/examples/$name"
  if (cd "$app" && timeout 120 node --experimental-strip-types --no-warnings "examples/$name"); then ok "example $name"; else bad "example $name"; fi
done

echo "== the light AI SDK entry with effect NOT installed (core + ai-sdk tarballs, ai, one provider)"
# An AI SDK app without Effect: npm must not pull effect in (it is an optional peer of @loopguard/ai-sdk),
# and @loopguard/ai-sdk/agent must load and guard the agent examples without it.
light=$(mktemp -d)
trap 'rm -rf "$app" "$light" ${tools:+"$tools"}' EXIT
if (cd "$light" && npm init -y >/dev/null && npm pkg set type=module &&
    npm_install --no-audit --no-fund --silent "$repo"/.packs/loopguard-core-*.tgz "$repo"/.packs/loopguard-ai-sdk-*.tgz ai@^7.0.0 @ai-sdk/openai-compatible@^3.0.0); then
  ok "npm install of core + ai-sdk without effect"
else
  bad "npm install of core + ai-sdk without effect"
fi
if [ ! -e "$light/node_modules/effect" ] && [ ! -e "$light/node_modules/@loopguard/effect" ] && [ ! -e "$light/node_modules/@ai-sdk/openai" ]; then
  ok "effect, @loopguard/effect and @ai-sdk/openai are not installed"
else
  bad "effect, @loopguard/effect or @ai-sdk/openai was installed"
fi
mkdir -p "$light/examples"
for name in ai-sdk-tool-loop-agent.ts ai-sdk-stream-text-agent.ts; do
  cp "$repo/examples/$name" "$light/examples/$name"
  if (cd "$light" && timeout 120 node --experimental-strip-types --no-warnings "examples/$name"); then ok "example $name without effect"; else bad "example $name without effect"; fi
done
probe='const a = await import("@loopguard/ai-sdk/agent"); if (typeof a.loopguardStopWhen !== "function" || typeof a.loopguardPrepareStep !== "function" || typeof a.loopguardMiddleware !== "function") process.exit(1)'
if (cd "$light" && node --input-type=module -e "$probe"); then ok "@loopguard/ai-sdk/agent exports on Node without effect"; else bad "@loopguard/ai-sdk/agent exports on Node without effect"; fi

echo "== the examples typecheck against the installed .d.ts (tsc, module nodenext, library types checked)"
# @types/json-schema: @ai-sdk/provider's own .d.ts imports it without declaring it.
if (cd "$app" && npm_install --no-audit --no-fund --silent typescript@5.9.3 @types/node@22 @types/json-schema >/dev/null 2>&1 &&
    printf '%s\n' '{ "compilerOptions": { "module": "nodenext", "moduleResolution": "nodenext", "target": "es2022",' \
      '"strict": true, "noEmit": true, "skipLibCheck": false, "erasableSyntaxOnly": true, "types": ["node"] },' \
      '"include": ["examples/*.ts"] }' > tsconfig.json &&
    npx --no-install tsc -p .); then
  ok "examples typecheck against the packages' types"
else
  bad "examples typecheck against the packages' types"
fi

echo "== the loopguard bin"
version=$(cd "$app" && npx --no-install loopguard --version 2>&1)
echo "$version"
expected=$(node -p "require('$repo/packages/cli/package.json').version")
case "$version" in *"$expected"*) ok "npx loopguard --version";; *) bad "npx loopguard --version";; esac

words=$(printf 'the same four words again %.0s' {1..25})
verdict=$(cd "$app" && printf '"%s"\n"plain healthy text"\n' "$words" | npx --no-install loopguard scan --jsonl 2>&1)
echo "$verdict"
judge='const l = require("fs").readFileSync(0, "utf8").trim().split("\n").map((x) => JSON.parse(x));
process.exit(l[0].repeat === true && l[0].token === 99 && l[0].period === 5 && l[1].repeat === false ? 0 : 1)'
if printf '%s\n' "$verdict" | node -e "$judge" 2>/dev/null; then ok "npx loopguard scan"; else bad "npx loopguard scan"; fi

# Under Bun the bin runs the bytecode build (dist/bun/ with its .jsc): it must be in the tarball.
jsc="$app/node_modules/@loopguard/cli/dist/bun/loopguard.cjs.jsc"
if [ -s "$jsc" ] && head -c 200 "$app/node_modules/@loopguard/cli/dist/bun/loopguard.cjs" | grep -q "@bytecode"; then
  ok "the CLI tarball ships the Bun bytecode build"
else
  bad "the CLI tarball ships the Bun bytecode build"
fi
bun_verdict=$(cd "$app" && printf '"%s"\n"plain healthy text"\n' "$words" | bun node_modules/@loopguard/cli/dist/loopguard.mjs scan --jsonl 2>&1)
if [ "$bun_verdict" = "$verdict" ]; then ok "the installed bin on Bun ($(bun --version)) gives the same scan"; else echo "$bun_verdict"; bad "the installed bin on Bun gives the same scan"; fi

if (cd "$app" && timeout 300 npx --no-install loopguard demo >"$app/demo.out" 2>&1); then
  tail -1 "$app/demo.out"; ok "npx loopguard demo"
else
  tail -20 "$app/demo.out"; bad "npx loopguard demo"
fi

(cd "$app" && npx --no-install loopguard scan --windo 5 </dev/null >"$app/usage.out" 2>"$app/usage.err"); code=$?
cat "$app/usage.err"
if [ "$code" = 2 ] && [ ! -s "$app/usage.out" ] && [ "$(wc -l <"$app/usage.err")" = 1 ] && grep -q -- "--windo" "$app/usage.err"; then
  ok "npx loopguard with a bad flag: exit 2, one line"
else
  bad "npx loopguard with a bad flag: exit 2, one line (got exit $code)"
fi

# The proxy: the library imports on Node, and the bin serves the health endpoint in front of an upstream.
if (cd "$app" && node -e "import('@loopguard/proxy').then((m) => process.exit(typeof m.startProxy === 'function' && typeof m.ProxyServer === 'function' ? 0 : 1))"); then
  ok "import @loopguard/proxy on Node"
else
  bad "import @loopguard/proxy on Node"
fi
port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
(cd "$app" && exec node node_modules/@loopguard/cli/dist/loopguard.mjs proxy --upstream http://127.0.0.1:9/v1 --listen "127.0.0.1:$port" >"$app/proxy.out" 2>"$app/proxy.err") &
proxy_pid=$!
for _ in $(seq 1 100); do grep -q "listening on" "$app/proxy.err" 2>/dev/null && break; sleep 0.2; done
health=$(node -e "fetch('http://127.0.0.1:$port/loopguard/health').then(r=>r.json()).then(j=>console.log(j.status)).catch(()=>console.log('down'))")
kill "$proxy_pid" 2>/dev/null; wait "$proxy_pid" 2>/dev/null
if [ "$health" = ok ]; then ok "npx loopguard proxy serves its health endpoint"; else cat "$app/proxy.err"; bad "npx loopguard proxy serves its health endpoint"; fi

# The SQLite store on the installed bin (node:sqlite, no native build): import a trace, list it, export it.
printf '%s\n' '{"type":"user","text":"hi"}' '{"type":"assistant","text":"hello","finish":"stop"}' >"$app/t.jsonl"
(cd "$app" && npx --no-install loopguard sessions import t.jsonl --session-dir store >/dev/null 2>"$app/store.err" &&
  npx --no-install loopguard sessions export t --session-dir store >"$app/store.out" 2>>"$app/store.err"); code=$?
cat "$app/store.err"
if [ "$code" = 0 ] && grep -q '"type":"assistant","text":"hello"' "$app/store.out" && [ ! -s "$app/store.err" ]; then
  ok "npx loopguard sessions import/export on SQLite"
else
  bad "npx loopguard sessions import/export on SQLite (got exit $code)"
fi

# OpenCode's database of sessions, audited by the installed bin on Node (node:sqlite, read-only):
# the real run's rows of packages/effect/src/audit/fixtures/opencode-db.json put back into a database.
build_db='const { DatabaseSync } = require("node:sqlite"); const f = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
const db = new DatabaseSync(process.argv[2], { enableForeignKeyConstraints: false }); // its project table is not in the fixture
for (const t of ["session", "message", "part"]) { db.exec(f.schema[t]); for (const r of f[t]) { const k = Object.keys(r); db.prepare(`INSERT INTO ${t} (${k.join(",")}) VALUES (${k.map(() => "?").join(",")})`).run(...Object.values(r)) } }
db.close()'
if (cd "$app" && node -e "$build_db" "$repo/packages/effect/src/audit/fixtures/opencode-db.json" opencode.db 2>"$app/db.err" &&
  npx --no-install loopguard audit --json opencode.db >"$app/db.out" 2>>"$app/db.err"); then code=0; else code=$?; fi
cat "$app/db.err"
if [ "$code" = 0 ] && grep -q '"file":"opencode.db#ses_' "$app/db.out" && grep -q '"steps":5' "$app/db.out"; then
  ok "npx loopguard audit opencode.db on Node"
else
  cat "$app/db.out"; bad "npx loopguard audit opencode.db on Node (got exit $code)"
fi

exit $failed
