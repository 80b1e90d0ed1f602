#!/usr/bin/env bash
# The terminal tests of `loopguard chat` drive it in tmux. A fresh CI machine may lack it:
# install it from the distribution's packages (CI runs as root).
set -uo pipefail
if command -v tmux >/dev/null 2>&1; then
  echo "== tmux $(tmux -V | cut -d' ' -f2) present"
  exit 0
fi
echo "== installing tmux"
if [ "$(id -u)" != 0 ]; then echo "tmux.sh: not root, cannot install tmux" >&2; exit 1; fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null && apt-get install -y -qq tmux >/dev/null || { echo "tmux.sh: apt-get install tmux failed" >&2; exit 1; }
echo "== tmux $(tmux -V | cut -d' ' -f2) installed"
