#!/usr/bin/env bash
# Shared by the CI helpers that need a program a fresh machine may lack (tmux, chromium):
# `ensure_apt_tool COMMAND PACKAGE VERSION-COMMAND` says it is present, or installs the
# distribution's package (CI runs as root) and says so; returns 1 when it cannot.
ensure_apt_tool() {
  local cmd="$1" pkg="$2" version="$3"
  if command -v "$cmd" >/dev/null 2>&1; then
    echo "== $cmd present: $(eval "$version" 2>/dev/null | head -1)"
    return 0
  fi
  echo "== installing $pkg"
  if [ "$(id -u)" != 0 ]; then echo "$pkg: not root, cannot install it" >&2; return 1; fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null && apt-get install -y -qq "$pkg" >/dev/null || { echo "$pkg: apt-get install failed" >&2; return 1; }
  echo "== $cmd installed: $(eval "$version" 2>/dev/null | head -1)"
}
