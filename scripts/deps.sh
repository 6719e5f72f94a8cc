#!/usr/bin/env bash
# Installs what the demo and the tests need on a Debian machine, if missing:
# ZooKeeper 3.8 (which brings Java), Apache Curator 5 (recipes and discovery) and a JDK for the interop tests,
# and gcc for the race detector. Sourced by scripts/test, demo, bench and chaos.
# Says what it installs and how far it is; waits, saying so, while another install
# holds the package manager's lock (up to $GOCURATOR_APT_LOCK_WAIT seconds, 600);
# names the step that failed. Needs root (or sudo) only when something is missing.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

packages=(zookeeper libcurator-recipes-java libcurator-discovery-java)
missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
command -v javac >/dev/null 2>&1 || missing+=(default-jdk-headless) # compiles the interop tests' Curator peer
command -v gcc >/dev/null 2>&1 || missing+=(gcc)                       # go test -race needs cgo
if ((${#missing[@]})); then
	apt_install "${missing[@]}"
fi
if ! command -v go >/dev/null 2>&1; then
	if [ -x /usr/local/go/bin/go ]; then
		export PATH="$PATH:/usr/local/go/bin"
	else
		say "Go is not installed: see https://go.dev/doc/install"
		exit 1
	fi
fi
