#!/usr/bin/env python3
"""Every file under configs/ is plain JSON that jq and Python's json read: it parses with json.load,
and no `//` or `/*` comment stands outside a string (the C++ loaders accept comments in users'
files; the shipped ones keep their sources in "_about" and "_sources" keys instead, docs/config.md).
Usage: check_plain_json.py SOURCE_DIR. Exit 1 and a list if violated."""
import json
import os
import sys


def comment_outside_strings(text):
    """(line, column) of the first // or /* outside a JSON string, or None."""
    q, line, col, i = False, 1, 0, 0
    while i < len(text):
        c = text[i]
        if q:
            if c == "\\":
                i += 1
            elif c == '"':
                q = False
        elif c == '"':
            q = True
        elif text.startswith("//", i) or text.startswith("/*", i):
            return line, col
        if c == "\n":
            line, col = line + 1, 0
        i += 1
        col += 1
    return None


def main():
    root = os.path.join(sys.argv[1] if len(sys.argv) > 1 else ".", "configs")
    files = sorted(os.path.join(dp, f) for dp, _, fs in os.walk(root) for f in fs if f.endswith(".json"))
    bad = []
    for path in files:
        text = open(path, encoding="utf-8").read()
        try:
            json.loads(text)
        except ValueError as e:
            bad.append(f"{path}: not plain JSON: {e}")
        at = comment_outside_strings(text)
        if at:
            bad.append(f"{path}:{at[0]}: comment outside a string (put it in \"_about\" or \"_sources\")")
    if len(files) < 40:
        bad.append(f"only {len(files)} JSON files under {root}: wrong source directory?")
    print(f"check_plain_json: {len(files)} files under {root}, {len(bad)} problems")
    for b in bad:
        print("  " + b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
