#!/usr/bin/env bash
# The terminal tests of `loopguard chat` drive it in tmux. A fresh CI machine may lack it:
# install it from the distribution's packages (CI runs as root).
set -uo pipefail
. "$(dirname "$0")/apt-tool.sh"
ensure_apt_tool tmux tmux "tmux -V"
