#!/usr/bin/env bash
# Installs what the demo and the tests need on a Debian machine, if missing:
# ZooKeeper 3.8 (which brings Java), Apache Curator 5 (recipes and discovery) and a JDK for the interop tests,
# and gcc for the race detector.
# Idempotent and quiet; needs root (or sudo) only when something is missing.
set -euo pipefail

packages=(zookeeper libcurator-recipes-java libcurator-discovery-java)
missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
command -v javac >/dev/null 2>&1 || missing+=(default-jdk-headless) # compiles the interop tests' Curator peer
command -v gcc >/dev/null 2>&1 || missing+=(gcc)                       # go test -race needs cgo
if ((${#missing[@]})); then
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	echo "installing: ${missing[*]}" >&2
	$sudo apt-get update -qq >/dev/null
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if ! command -v go >/dev/null 2>&1; then
	if [ -x /usr/local/go/bin/go ]; then
		export PATH="$PATH:/usr/local/go/bin"
	else
		echo "Go is not installed: see https://go.dev/doc/install" >&2
		exit 1
	fi
fi
