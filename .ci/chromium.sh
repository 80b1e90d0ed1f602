#!/usr/bin/env bash
# The page tests of `loopguard audit --html` open the pages in headless Chromium. A fresh CI
# machine may lack it: install the distribution's package (CI runs as root). The tests find it
# on PATH (or at LOOPGUARD_CHROMIUM).
set -uo pipefail
if command -v chromium >/dev/null 2>&1; then
  echo "== $(chromium --version 2>/dev/null | head -1) present"
  exit 0
fi
echo "== installing chromium"
if [ "$(id -u)" != 0 ]; then echo "chromium.sh: not root, cannot install chromium" >&2; exit 1; fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null && apt-get install -y -qq chromium >/dev/null || { echo "chromium.sh: apt-get install chromium failed" >&2; exit 1; }
echo "== $(chromium --version 2>/dev/null | head -1) installed"
