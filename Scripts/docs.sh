#!/usr/bin/env bash
# docs.sh — builds and checks the API documentation of the Ciao and CiaoNetService libraries.
#
# Usage (from anywhere; runs in the package root):
#   bash Scripts/docs.sh [OUTDIR]
#
# Builds the two library targets (debug, the same build directory as `swift build`), extracts
# their public symbol graphs with the toolchain's swift-symbolgraph-extract, and runs the
# toolchain's `docc convert --warnings-as-errors` on Sources/Ciao/Ciao.docc and
# Sources/CiaoNetService/CiaoNetService.docc. Then Scripts/lib/undocumented.py lists every public
# or open symbol without a doc comment of its own (it says which symbols it ignores and why).
# Exits non-zero on a build failure, a DocC warning or an undocumented symbol.
#
# With OUTDIR, also writes a static site there: OUTDIR/Ciao and OUTDIR/CiaoNetService
# (`--transform-for-static-hosting`) and OUTDIR/index.html linking both. Serve OUTDIR with any
# static web server (DocC's pages load their content with fetch, which browsers refuse for
# file:// pages). Without OUTDIR the archives go to a temporary directory, removed on exit.
#
# Needs: swift and docc on PATH (or in /opt/swift/usr/bin), python3. Opens no sockets.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if [ -d /opt/swift/usr/bin ]; then PATH="/opt/swift/usr/bin:$PATH"; fi
modules=(Ciao CiaoNetService)
outdir="${1:-}"

work="$(mktemp -d "${TMPDIR:-/tmp}/ciao-docs.XXXXXX")"
trap 'rm -rf "$work"' EXIT

echo "== building ${modules[*]}"
swift build --target CiaoNetService
bin="$(swift build --show-bin-path)"
triple="$(swift -print-target-info | python3 -c 'import json, sys; print(json.load(sys.stdin)["target"]["triple"])')"

echo "== extracting symbol graphs"
for module in "${modules[@]}"; do
    mkdir -p "$work/graphs/$module"
    # CiaoTransport, which Ciao's interface imports, needs the C shim's module map.
    swift-symbolgraph-extract -module-name "$module" -target "$triple" -minimum-access-level public \
        -I "$bin/Modules" -Xcc -fmodule-map-file="$bin/CCiaoShim.build/module.modulemap" \
        -output-dir "$work/graphs/$module"
done

for module in "${modules[@]}"; do
    echo "== docc convert $module"
    if [ -n "$outdir" ]; then
        output="$outdir/$module"
        rm -rf "$output"
        mkdir -p "$outdir"
        hosting=(--transform-for-static-hosting --hosting-base-path "$module")
    else
        output="$work/archives/$module.doccarchive"
        mkdir -p "$work/archives"
        hosting=()
    fi
    docc convert "Sources/$module/$module.docc" --additional-symbol-graph-dir "$work/graphs/$module" \
        --fallback-display-name "$module" --fallback-bundle-identifier "org.ciao.$module" \
        --warnings-as-errors --output-path "$output" "${hosting[@]}"
done

echo "== undocumented public symbols"
for module in "${modules[@]}"; do cp "$work/graphs/$module"/*.symbols.json "$work/graphs/"; done
python3 Scripts/lib/undocumented.py "$work/graphs" "${modules[@]}"

if [ -n "$outdir" ]; then
    cat >"$outdir/index.html" <<'HTML'
<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Ciao documentation</title></head>
<body>
<h1>Ciao documentation</h1>
<ul>
<li><a href="Ciao/documentation/ciao/">Ciao</a>: publish, browse and resolve DNS-SD services over multicast DNS</li>
<li><a href="CiaoNetService/documentation/ciaonetservice/">CiaoNetService</a>: Foundation's NetService and NetServiceBrowser for Linux</li>
</ul>
</body></html>
HTML
    site="$(cd "$outdir" && pwd)"
    echo "== the site is in $site"
    echo "   serve it, e.g. with: python3 -m http.server --directory $site 8000"
    echo "   then open http://localhost:8000/ (Ciao: /Ciao/documentation/ciao/)"
fi
