#!/usr/bin/env bash
# The page tests of `loopguard audit --html` open the pages in headless Chromium, driven by
# puppeteer-core (which downloads no browser): install the distribution's chromium when missing.
# The tests find it on PATH, or at CHROMIUM_PATH.
set -uo pipefail
. "$(dirname "$0")/apt-tool.sh"
ensure_apt_tool chromium chromium "chromium --version"
