#!/usr/bin/env python3
"""Lists the public and open symbols of modules that have no doc comment of their own.

Usage: undocumented.py SYMBOL_GRAPH_DIR MODULE...

Reads MODULE.symbols.json (and MODULE@OTHER.symbols.json, extensions of other modules' types)
from SYMBOL_GRAPH_DIR. Prints one line per undocumented symbol, `file:line: kind path`, and a
count per module; exits 1 if there is any.

Ignored, because no source line in the module declares them:
- synthesized symbols (`::SYNTHESIZED::` in the precise identifier): members a type gets from
  protocol extensions or superclasses outside the module, such as Equatable's `!=`, Hashable's
  `hashValue`, OptionSet's `insert(_:)` or NSObject's members;
- implicit members the compiler generates without a source location, such as the
  `init(rawValue:)` of an enum with raw values.
A member written in the module's source (an explicit `==`, `hash(into:)`, `encode(to:)`,
`description`, a default implementation in a protocol extension) is counted: it needs its own
comment. A doc comment inherited from another module counts as missing.
"""
import glob
import json
import os
import sys


def undocumented(directory, module):
    paths = [os.path.join(directory, f"{module}.symbols.json")]
    paths += sorted(glob.glob(os.path.join(directory, f"{module}@*.symbols.json")))
    total = 0
    missing = []
    for path in paths:
        if not os.path.exists(path):
            sys.exit(f"undocumented.py: no symbol graph {path}")
        with open(path, encoding="utf-8") as file:
            graph = json.load(file)
        for symbol in graph["symbols"]:
            if symbol.get("accessLevel") not in ("public", "open"):
                continue
            if "::SYNTHESIZED::" in symbol["identifier"]["precise"]:
                continue
            location = symbol.get("location")
            if location is None:
                continue
            total += 1
            comment = symbol.get("docComment")
            own = comment is not None and comment.get("module", module) == module and any(
                line.get("text", "").strip() for line in comment.get("lines", []))
            if own:
                continue
            file_name = location["uri"].removeprefix("file://")
            file_name = os.path.relpath(file_name) if file_name.startswith("/") else file_name
            line = location["position"]["line"] + 1
            kind = symbol["kind"]["displayName"].lower()
            missing.append((file_name, line, f"{file_name}:{line}: {kind} {'.'.join(symbol['pathComponents'])}"))
    return total, sorted(missing)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    directory = sys.argv[1]
    failed = False
    for module in sys.argv[2:]:
        total, missing = undocumented(directory, module)
        for _, _, text in missing:
            print(text)
        print(f"{module}: {len(missing)} of {total} public symbols undocumented")
        failed = failed or bool(missing)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
