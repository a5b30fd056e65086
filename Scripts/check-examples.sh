#!/usr/bin/env bash
# check-examples.sh — compiles every Swift example of the documentation, as a user's package would.
#
# Usage (from anywhere; needs no network and no root):
#   bash Scripts/check-examples.sh
#
# What it compiles, each as the main.swift of an executable target of its own (so top-level code,
# `await` and declarations are all allowed, and examples do not see each other's names):
#   - every ```swift block of README.md,
#   - every ```swift block of the .md files in Sources/*/*.docc,
#   - every .swift file under Tests/DocumentationExamples (and every ```swift block of a .md there).
# A block whose fence line is preceded by the line `<!-- examples: skip -->` is left out.
#
# The examples live in a scratch package that depends on this one by path, as
# `.package(path:)` with `.product(name: "Ciao", package: "<this directory's name>")`, the way
# the README tells users to; its targets depend on the Ciao, CiaoWire and CiaoNetService products.
# `#sourceLocation` makes the compiler's messages point at the documentation file and line.
# Swift 6 language mode (swift-tools-version 6.0), strict concurrency, as a user gets it.
#
# Environment: CIAO_EXAMPLES_SCRATCH  where the scratch package and its build go
#              (default /tmp/ciao-examples; kept between runs, so a second run is incremental).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
command -v swift >/dev/null || PATH="$PATH:/opt/swift/usr/bin"
scratch="${CIAO_EXAMPLES_SCRATCH:-/tmp/ciao-examples}"
package="$scratch/package"
identity="$(basename "$root")"    # SwiftPM names a path dependency after its directory

rm -rf "$package"
mkdir -p "$package/Sources"
count=0

# add_example SOURCE LINE: the example on standard input becomes target ExampleN, its messages
# pointing at SOURCE:LINE (the line of the example's first line of code).
add_example() {
    count=$((count + 1))
    local dir="$package/Sources/Example$count"
    mkdir -p "$dir"
    {
        printf '#sourceLocation(file: "%s", line: %d)\n' "$root/$1" "$2"
        cat
    } >"$dir/main.swift"
    printf '%s:%s\n' "$1" "$2" >"$dir/.origin"
}

# add_blocks FILE: each ```swift block of a Markdown FILE, unless marked to be skipped.
add_blocks() {
    local file=$1 line start="" number=0 skip="" previous="" block=""
    local opening='^[[:space:]]*```swift[[:space:]]*$' closing='^[[:space:]]*```[[:space:]]*$'
    local skipping='^[[:space:]]*<!-- examples: skip -->[[:space:]]*$'
    while IFS= read -r line || [[ -n "$line" ]]; do
        number=$((number + 1))
        if [[ -z "$start" ]]; then
            if [[ "$line" =~ $opening ]]; then
                start=$((number + 1))
                block=""
                [[ "$previous" =~ $skipping ]] && skip=1 || skip=""
            fi
        elif [[ "$line" =~ $closing ]]; then
            [[ -n "$skip" ]] || add_example "$file" "$start" <<<"$block"
            start=""
        else
            block+="$line"$'\n'
        fi
        previous=$line
    done <"$file"
    [[ -z "$start" ]] || { echo "check-examples.sh: $file:$((start - 1)): unclosed \`\`\`swift block" >&2; exit 1; }
}

add_blocks README.md
while IFS= read -r file; do add_blocks "$file"; done < <(find Sources -path '*.docc/*' -name '*.md' | sort)
if [[ -d Tests/DocumentationExamples ]]; then
    while IFS= read -r file; do
        case "$file" in
            *.swift) add_example "$file" 1 <"$file" ;;
            *.md) add_blocks "$file" ;;
        esac
    done < <(find Tests/DocumentationExamples -type f \( -name '*.swift' -o -name '*.md' \) | sort)
fi
[[ $count -gt 0 ]] || { echo "check-examples.sh: no examples found" >&2; exit 1; }

{
    cat <<EOF
// swift-tools-version: 6.0
// Written by Scripts/check-examples.sh: the documentation's examples, each a target of its own.
import PackageDescription

let products: [Target.Dependency] = ["Ciao", "CiaoWire", "CiaoNetService"].map {
    .product(name: \$0, package: "$identity")
}
let package = Package(
    name: "CiaoExamples",
    dependencies: [.package(path: "$root")],
    targets: [
EOF
    for ((n = 1; n <= count; n++)); do
        printf '        .executableTarget(name: "Example%d", dependencies: products),  // %s\n' "$n" "$(cat "$package/Sources/Example$n/.origin")"
    done
    printf '    ]\n)\n'
} >"$package/Package.swift"
rm -f "$package"/Sources/*/.origin

echo "check-examples.sh: compiling $count examples in $package"
if ! swift build --package-path "$package" --scratch-path "$scratch/build"; then
    echo "check-examples.sh: an example does not compile (see the file:line above; the targets are in $package/Package.swift)" >&2
    exit 1
fi
echo "check-examples.sh: all $count examples compile"
