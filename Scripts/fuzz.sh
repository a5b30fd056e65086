#!/usr/bin/env bash
# fuzz.sh — build and run Ciao's libFuzzer targets.
#
# Usage: Scripts/fuzz.sh [SECONDS] [TARGET...]
#   SECONDS  how long to fuzz each target (default 60)
#   TARGET   DecodeFuzzer, RoundTripFuzzer, ReplyFuzzer and/or DriverFuzzer (also: decode,
#            roundtrip, reply, driver); default all four
# Environment:
#   SWIFTC        swiftc to use (default: swiftc on PATH, else /opt/swift/usr/bin/swiftc)
#   FUZZ_VERBOSE  1 = stream libFuzzer's own output instead of only writing it to the log
#
# Each target is Fuzz/<Target>.swift built into Fuzz/.build/<Target> (gitignored). DecodeFuzzer and
# RoundTripFuzzer are compiled together with Sources/CiaoWire/*.swift. ReplyFuzzer (a unicast DNS
# server's reply fed to CiaoUnicastDNS's client, update-server locator and registration, and to
# TSIG.verify) imports CiaoWire, built first as a static library of its own from all of
# Sources/CiaoWire, and is compiled together with Sources/CiaoUnicastDNS. DriverFuzzer (datagrams,
# time and interface changes fed to the mDNS engine and the DNS-SD layer, as the runtime feeds them)
# likewise builds every module below Ciao and is compiled together with Sources/Ciao. Each target
# then runs for SECONDS on a throw-away copy of its committed seeds (Fuzz/ReplySeeds for
# ReplyFuzzer, Fuzz/Seeds for the others; DriverFuzzer gets each packet framed as its input
# format's datagram), so new corpus entries never pollute the repository. Inputs that crash, leak,
# time out (> 5 s) or run out of memory (> 2 GB) are saved in the findings directory printed at the
# start, next to each target's full libFuzzer log. Exit status: 0 when nothing was found, 1 when any
# target found something, 2 for usage or build errors.
#
# Needs only the Swift toolchain (it ships libFuzzer, AddressSanitizer, lld and llvm-symbolizer) and
# coreutils/grep/sed; no extra Debian packages. Runs fine as root.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FUZZ_DIR=$ROOT/Fuzz
BUILD_DIR=$FUZZ_DIR/.build
MODULES=$BUILD_DIR/modules
ALL_TARGETS=(DecodeFuzzer RoundTripFuzzer ReplyFuzzer DriverFuzzer)

usage() { sed -n '2,10p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }

# --- Arguments -----------------------------------------------------------------------------------
SECONDS_PER_TARGET=60
if [ $# -gt 0 ] && [[ $1 =~ ^[0-9]+$ ]]; then
    SECONDS_PER_TARGET=$1
    shift
fi
[ "$SECONDS_PER_TARGET" -gt 0 ] || usage
TARGETS=()
for arg in "$@"; do
    case "$arg" in
        DecodeFuzzer | decode) TARGETS+=(DecodeFuzzer) ;;
        RoundTripFuzzer | roundtrip | round-trip) TARGETS+=(RoundTripFuzzer) ;;
        ReplyFuzzer | reply) TARGETS+=(ReplyFuzzer) ;;
        DriverFuzzer | driver) TARGETS+=(DriverFuzzer) ;;
        -h | --help) usage ;;
        *) echo "fuzz.sh: unknown target '$arg' (expected: ${ALL_TARGETS[*]})" >&2; usage ;;
    esac
done
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=("${ALL_TARGETS[@]}")

# --- Toolchain -----------------------------------------------------------------------------------
SWIFTC=${SWIFTC:-$(command -v swiftc || echo /opt/swift/usr/bin/swiftc)}
[ -x "$SWIFTC" ] || { echo "fuzz.sh: swiftc not found (set SWIFTC)" >&2; exit 2; }
TOOLCHAIN_BIN=$(dirname "$(readlink -f "$SWIFTC")")
LINKER_FLAGS=()
# The toolchain's lld links sanitized binaries cleanly; the system's gold (binutils) also works but
# prints a warning for every ASan helper symbol.
if [ -x "$TOOLCHAIN_BIN/ld.lld" ]; then LINKER_FLAGS=(-use-ld=lld); fi
# Symbolized stack traces in crash reports.
if [ -x "$TOOLCHAIN_BIN/llvm-symbolizer" ]; then export ASAN_SYMBOLIZER_PATH=$TOOLCHAIN_BIN/llvm-symbolizer; fi
# -O -g: optimized as shipped, with line numbers in reports; -parse-as-library: libFuzzer provides
# main; -swift-version 6: the language mode of Package.swift; -package-name: the modules declare
# `package` API, which SwiftPM would otherwise name for us.
SWIFT_FLAGS=(-O -g -sanitize=fuzzer,address -parse-as-library -swift-version 6 -package-name Ciao)
# Swift's own crash backtracer would fight libFuzzer/ASan's signal handlers; let them report.
export SWIFT_BACKTRACE=enable=no

# --- Work and findings directories ---------------------------------------------------------------
FINDINGS=$BUILD_DIR/findings/$(date +%Y%m%d-%H%M%S)
mkdir -p "$FINDINGS"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ciao-fuzz.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
echo "fuzz.sh: ${SECONDS_PER_TARGET}s per target: ${TARGETS[*]}"
echo "fuzz.sh: findings and logs in $FINDINGS"

build() {
    local target=$1
    echo "fuzz.sh: building $target"
    case "$target" in
        ReplyFuzzer) build_reply_fuzzer; return ;;
        DriverFuzzer) build_driver_fuzzer; return ;;
    esac
    # One swiftc invocation: whole-module optimization across the codec and the fuzzer entry point.
    "$SWIFTC" "${SWIFT_FLAGS[@]}" -module-name CiaoWireFuzz \
        "${LINKER_FLAGS[@]}" "$ROOT"/Sources/CiaoWire/*.swift "$FUZZ_DIR/$target.swift" \
        -o "$BUILD_DIR/$target"
}

# Builds Sources/NAME, all of it, as a module and a static library in $MODULES, with the fuzzers'
# flags so that it is instrumented and sanitized too; it may import the modules built before it.
build_module() {
    local name=$1 sources
    shift
    mapfile -t sources < <(find "$ROOT/Sources/$name" -name '*.swift' | sort)
    mkdir -p "$MODULES"
    "$SWIFTC" "${SWIFT_FLAGS[@]}" -module-name "$name" -I "$MODULES" "$@" \
        -emit-module -emit-module-path "$MODULES/$name.swiftmodule" -emit-library -static \
        "${sources[@]}" -o "$MODULES/lib$name.a"
}

# The fuzzer and the sources of the module it fuzzes (`$2`), in one module that sees their
# internal API, linked with the libraries built before it.
link_fuzzer() {
    local target=$1 name=$2 sources
    shift 2
    mapfile -t sources < <(find "$ROOT/Sources/$name" -name '*.swift' | sort)
    "$SWIFTC" "${SWIFT_FLAGS[@]}" -module-name "$name" -I "$MODULES" "${LINKER_FLAGS[@]}" \
        "${sources[@]}" "$FUZZ_DIR/$target.swift" "$@" -o "$BUILD_DIR/$target"
}

# CiaoUnicastDNS imports CiaoWire (all of it, TSIG and Update included).
build_reply_fuzzer() {
    build_module CiaoWire || return
    link_fuzzer ReplyFuzzer CiaoUnicastDNS "$MODULES/libCiaoWire.a"
}

# Ciao imports every module below it, the C shim (compiled by the toolchain's clang, with a module
# map where SwiftPM would generate one) included.
build_driver_fuzzer() {
    local shim=$MODULES/CCiaoShim
    mkdir -p "$shim"
    "$TOOLCHAIN_BIN/clang" -O1 -g -fsanitize=fuzzer-no-link,address -I "$ROOT/Sources/CCiaoShim/include" \
        -c "$ROOT/Sources/CCiaoShim/CCiaoShim.c" -o "$shim/CCiaoShim.o" || return
    printf 'module CCiaoShim {\n    header "%s"\n    export *\n}\n' \
        "$ROOT/Sources/CCiaoShim/include/CCiaoShim.h" >"$shim/module.modulemap"
    build_module CiaoWire || return
    build_module CiaoNetwork || return
    build_module CiaoEngine || return
    build_module CiaoUnicastDNS || return
    build_module CiaoTransport -Xcc -fmodule-map-file="$shim/module.modulemap" || return
    link_fuzzer DriverFuzzer Ciao -Xcc -fmodule-map-file="$shim/module.modulemap" \
        "$MODULES"/libCiao{Transport,UnicastDNS,Engine,Network,Wire}.a "$shim/CCiaoShim.o"
}

# Each packet of $1 as DriverFuzzer's input in $2: a datagram multicast from a peer on the link,
# then a second passing; once more followed, 150 ms later, by the driver's own datagrams looped
# back. The packets about the driver's own names (driver-*.bin) come twice more: multicast from
# off the link, from an ephemeral port (a legacy query), and sent by unicast from an ephemeral
# port on the link. One more input has two peers fill the cache.
frame_driver_seeds() {
    local file size base
    for file in "$1"/*; do
        size=$(wc -c <"$file")
        [ "$size" -le 65535 ] || continue
        base=$(basename "$file")
        { datagram_header 00 "$size"; cat "$file"; printf '\x02\x03\xe8'; } >"$2/$base"
        { datagram_header 00 "$size"; cat "$file"; printf '\x02\x00\x96\x0b'; } >"$2/looped-$base"
        [[ $base == driver-* ]] || continue
        { datagram_header 0b "$size"; cat "$file"; printf '\x02\x03\xe8'; } >"$2/off-link-legacy-$base"
        { datagram_header 18 "$size"; cat "$file"; printf '\x02\x03\xe8'; } >"$2/unicast-legacy-$base"
    done
    # Two peers whose records together pass the cache's capacity (DriverFuzzer's
    # Fixture.capacity, 64).
    local ptrs=$1/response-40-ptrs.bin txts=$1/response-near-9000.bin
    [ -f "$ptrs" ] && [ -f "$txts" ] || { echo "fuzz.sh: $ptrs or $txts is missing" >&2; return 1; }
    {
        datagram_header 00 "$(wc -c <"$ptrs")"; cat "$ptrs"
        datagram_header 02 "$(wc -c <"$txts")"; cat "$txts"
        printf '\x02\x03\xe8'
    } >"$2/two-peers-fill-the-cache"
}

# A DriverFuzzer datagram's header: operation 0, the flags byte (hex) $1, the length $2.
datagram_header() {
    printf "$(printf '\\x00\\x%s\\x%02x\\x%02x' "$1" $(($2 >> 8)) $(($2 & 255)))"
}

# Runs one target; prints its summary; returns 1 when libFuzzer found something.
run() {
    local target=$1
    local corpus=$WORK/$target-corpus
    local log=$FINDINGS/$target.log
    local seeds=Seeds
    # The mDNS message limit (RFC 6762 §17): longer inputs just fail to decode (for ReplyFuzzer,
    # past any UDP reply: longer ones come over TCP). DriverFuzzer's inputs hold several datagrams.
    local max_len=9000
    if [ "$target" = ReplyFuzzer ]; then seeds=ReplySeeds; fi
    mkdir -p "$corpus"
    if [ "$target" = DriverFuzzer ]; then
        frame_driver_seeds "$FUZZ_DIR/$seeds" "$corpus" || return 2
        max_len=32768
    else
        cp "$FUZZ_DIR/$seeds"/* "$corpus"/
    fi
    local seed_count
    seed_count=$(find "$corpus" -type f | wc -l)

    local args=(
        -max_len="$max_len"
        -max_total_time="$SECONDS_PER_TARGET"
        -timeout=5                          # one input taking > 5 s is a hang
        -rss_limit_mb=2048                  # and > 2 GB an OOM
        -dict="$FUZZ_DIR/dns.dict"
        -artifact_prefix="$FINDINGS/$target-"
        -print_final_stats=1
        "$corpus"
    )
    echo "fuzz.sh: running $target (${SECONDS_PER_TARGET}s, $seed_count seeds)"
    echo "  $BUILD_DIR/$target ${args[*]}" | sed "s|$corpus|<copy of Fuzz/$seeds>|"
    local status=0
    if [ "${FUZZ_VERBOSE:-0}" = 1 ]; then
        "$BUILD_DIR/$target" "${args[@]}" 2>&1 | tee "$log" || status=$?
    else
        "$BUILD_DIR/$target" "${args[@]}" >"$log" 2>&1 || status=$?
    fi

    # Summary from libFuzzer's final stats and its last status line ("#N DONE cov: C ft: F corp: ...").
    local execs rate last cov ft corp
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -n 1 || true)
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
    corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9]*[a-zA-Z]*\).*/\1/p' <<<"$last")

    local found
    found=$(find "$FINDINGS" -maxdepth 1 -type f \
        \( -name "$target-crash-*" -o -name "$target-leak-*" -o -name "$target-timeout-*" -o -name "$target-oom-*" \) |
        sort)
    printf '%-16s %s execs, %s exec/s, cov %s, ft %s, corpus %s (entries/bytes; from %s seeds)%s\n' \
        "$target:" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$seed_count" \
        "$([ -z "$found" ] && [ "$status" = 0 ] && echo ", no findings" || echo ", FINDINGS (libFuzzer exit $status)")"
    if [ -n "$found" ] || [ "$status" != 0 ]; then
        # Show the report: from the first sanitizer/Swift/libFuzzer error line to the end.
        echo "---- $target report (full log: $log) ----"
        sed -n '/==[0-9]*==\|Fatal error\|ERROR: libFuzzer\|^SUMMARY/,$p' "$log" | grep -v -e '^stat::' -e '^0x[0-9a-f]' -e '^Base64:' | head -n 60
        for file in $found; do
            echo "input $file ($(wc -c <"$file") bytes):"
            od -An -v -tx1 "$file" | tr -d ' \n' | fold -w 128
            echo
        done
        echo "----"
        return 1
    fi
}

mkdir -p "$BUILD_DIR"
for target in "${TARGETS[@]}"; do
    build "$target" || { echo "fuzz.sh: build of $target failed" >&2; exit 2; }
done
failed=0
for target in "${TARGETS[@]}"; do
    run "$target" || failed=1
done
exit $failed
