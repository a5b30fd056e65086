#!/usr/bin/env bash
# generate-cli-docs.sh — writes the ciao man pages (docs/man/*.1) and shell completions
# (completions/ciao.bash, completions/_ciao) anew from the commands' CommandSpecs.
#
# Usage (from anywhere; runs in the package root):
#   bash Scripts/generate-cli-docs.sh
#
# Runs GeneratedFilesTests with CIAO_REGENERATE=1, which writes the files instead of comparing
# them; a plain `swift test` compares them byte for byte and fails on a stale one. Commit what
# changed. Opens no sockets.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if [ -d /opt/swift/usr/bin ]; then PATH="/opt/swift/usr/bin:$PATH"; fi
CIAO_REGENERATE=1 swift test --filter GeneratedFilesTests
git status --short -- docs/man completions
