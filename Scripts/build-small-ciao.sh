#!/usr/bin/env bash
# build-small-ciao.sh — the `ciao` to deploy: statically linked with the Swift runtime (it needs
# only glibc, libstdc++ and libgcc_s where it runs), optimized for size, stripped.
#
# Usage (from anywhere; builds in the package root):
#   bash Scripts/build-small-ciao.sh [OUTFILE]
#
# Prints the binary's path and its size in bytes; copies it to OUTFILE if one is given. Exits 1
# when the binary is 15,000,000 bytes or more, the size budget of the static command.
#
# Beside `swift build -c release --product ciao --static-swift-stdlib -Xlinker -s`, it compiles
# with -Osize, links with full LTO (SwiftPM's lld), drops unreferenced sections and folds
# identical functions (`--gc-sections --icf=all`, as Apple's linker folds them by default), and
# packs its relative relocations (`-z pack-relative-relocs`, DT_RELR: 0.9 MB less, the binary
# stays position-independent), which needs glibc 2.36 or later where it runs (Debian 12,
# Ubuntu 23.04, Raspberry Pi OS 12); for older systems drop that flag (15.5 MB).
# The scratch directory is .build/small, apart from the debug and release builds.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
command -v swift >/dev/null || PATH="$PATH:/opt/swift/usr/bin"
budget=15000000
scratch="$root/.build/small"

swift build -c release --product ciao --scratch-path "$scratch" --static-swift-stdlib \
    -Xswiftc -Osize --experimental-lto-mode=full \
    -Xlinker -s -Xlinker --gc-sections -Xlinker --icf=all -Xlinker -z -Xlinker pack-relative-relocs
binary="$(swift build -c release --scratch-path "$scratch" --show-bin-path)/ciao"
size="$(stat -c %s "$binary")"
echo "$binary: $size bytes"
"$binary" --version
if [[ $# -ge 1 ]]; then cp "$binary" "$1"; fi
if (( size >= budget )); then
    echo "build-small-ciao.sh: ciao is $size bytes, over the budget of $budget" >&2
    exit 1
fi
