#!/usr/bin/env bash
# codec-benchmark.sh — CiaoWire's codec side by side with python-zeroconf's, on the same bytes.
#
# Usage (from anywhere; runs in the package root):
#   bash Benchmarks/codec-benchmark.sh [SECONDS-PER-CASE]     (default 1)
#
# Builds CiaoCodecBenchmark in release, dumps its packets (`--dump DIR`) to a temporary directory,
# runs it and Benchmarks/Codec/peer_codec_benchmark.py on those packets, and prints machine information,
# both tables and a combined table with the Ciao ÷ zeroconf ratios. Each rate is the best of 3
# runs of about SECONDS-PER-CASE on one core; run it on an otherwise idle machine (the load
# average is printed before and after).
#
# Needs: swift on PATH (or /opt/swift/usr/bin/swift), and a python with zeroconf:
#   ZEROCONF_PYTHON  that python, if set; otherwise the interop suite's venv
#                    (${CIAO_INTEROP_VENV:-/opt/ciao-interop-venv}) when it has zeroconf;
#                    otherwise a venv made on first use in
#                    ${XDG_CACHE_HOME:-~/.cache}/ciao/zeroconf-venv with `pip install zeroconf`
#                    (needs PyPI; the wheel is the Cython-compiled build on common platforms).
# ON A FRESH DEBIAN MACHINE, AS ROOT, this installs python3 and python3-venv with apt-get when
# `python3 -m venv` is not available. It installs nothing else and writes only the build
# directory, the venv and a temporary directory (removed on exit).
set -euo pipefail

seconds="${1:-1}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
command -v swift >/dev/null || PATH="$PATH:/opt/swift/usr/bin"

work="$(mktemp -d "${TMPDIR:-/tmp}/ciao-codec-benchmark.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# --- the peer's python ------------------------------------------------------------------------
has_zeroconf() { "$1" -c 'import zeroconf' 2>/dev/null; }
if [[ -n "${ZEROCONF_PYTHON:-}" ]]; then
    python="$ZEROCONF_PYTHON"
elif interop_python="${CIAO_INTEROP_VENV:-/opt/ciao-interop-venv}/bin/python" \
    && [[ -x "$interop_python" ]] && has_zeroconf "$interop_python"; then
    python="$interop_python"
else
    venv="${XDG_CACHE_HOME:-$HOME/.cache}/ciao/zeroconf-venv"
    if ! has_zeroconf "$venv/bin/python" 2>/dev/null; then
        if ! python3 -m venv --help >/dev/null 2>&1 || ! python3 -c 'import ensurepip' 2>/dev/null; then
            [[ $EUID -eq 0 ]] || { echo "need python3-venv (run as root to install it)" >&2; exit 1; }
            apt-get update -qq && apt-get install -y -qq python3 python3-venv >/dev/null
        fi
        rm -rf "$venv"
        python3 -m venv "$venv"
        "$venv/bin/pip" install --quiet --disable-pip-version-check zeroconf
    fi
    python="$venv/bin/python"
fi

# --- build and dump ---------------------------------------------------------------------------
swift build -c release --product CiaoCodecBenchmark >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; exit 1; }
benchmark="$(swift build -c release --show-bin-path)/CiaoCodecBenchmark"
"$benchmark" --dump "$work/packets" >/dev/null

# --- machine ----------------------------------------------------------------------------------
echo "## Machine"
echo
echo "- CPU: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(nproc) cores online$(grep -q '^flags.* hypervisor' /proc/cpuinfo && echo ' (virtual machine)')"
echo "- OS: $(. /etc/os-release && echo "$PRETTY_NAME"), kernel $(uname -r)"
echo "- Swift: $(swift --version 2>&1 | head -1)"
echo "- Python: $("$python" -c 'import sys; print(sys.version.split()[0])') ($python)"
"$python" -c '
import zeroconf
from zeroconf._protocol import incoming
print(f"- zeroconf: {zeroconf.__version__}, " + ("Cython-compiled" if incoming.__file__.endswith((".so", ".pyd")) else "pure Python") + f" ({incoming.__file__})")'
echo "- load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- command: bash Benchmarks/codec-benchmark.sh $seconds"
echo

# --- the two benchmarks -----------------------------------------------------------------------
"$benchmark" "$seconds" | tee "$work/ciao.md"
echo
"$python" "$root/Benchmarks/Codec/peer_codec_benchmark.py" "$work/packets" "$seconds" | tee "$work/zeroconf.md"
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

# --- combined table ---------------------------------------------------------------------------
echo "## Combined (ratio = Ciao ÷ zeroconf; † zeroconf rejected the packet part-way, see its notes)"
echo
awk -F'|' '
    function trim(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
    function value(s) { s = trim(s); return s ~ / M$/ ? s * 1e6 : s ~ / k$/ ? s * 1e3 : 0 }
    function ratio(a, b) { return (value(a) > 0 && value(b) > 0) ? sprintf("%.1f×", value(a) / value(b)) : "–" }
    FNR == 1 { file++ }
    # Table rows: skip the header and the |---| line.
    /^\| / && $2 !~ /^ case / {
        name = trim($2)
        if (file == 1) { order[++count] = name; ciaoDecode[name] = trim($4); ciaoEncode[name] = trim($6) }
        else { peerDecode[name] = trim($4); peerEncode[name] = trim($6) }
    }
    file == 2 && /did not accept the whole packet/ { sub(/^- /, ""); sub(/: zeroconf did not accept.*/, ""); rejected[$0] = 1 }
    END {
        print "| case | Ciao decode/s | zeroconf decode/s | ratio | Ciao encode/s | zeroconf encode/s | ratio |"
        print "|---|---:|---:|---:|---:|---:|---:|"
        for (i = 1; i <= count; i++) {
            n = order[i]
            mark = (n in rejected) ? " †" : ""
            printf "| %s | %s | %s%s | %s | %s | %s | %s |\n", n, ciaoDecode[n], peerDecode[n], mark,
                ratio(ciaoDecode[n], peerDecode[n]), ciaoEncode[n], peerEncode[n], ratio(ciaoEncode[n], peerEncode[n])
        }
    }' "$work/ciao.md" "$work/zeroconf.md"
