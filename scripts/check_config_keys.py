#!/usr/bin/env python3
"""Every config key is read in one source file: its block's typed table (sc_models/config_table.h)
or, for the keys still in sc_models/config.cpp's schema, the one struct reader of its block
(SystemCfg, MemCtrlCfg, GpuCfg, ...). Other code takes the typed struct, never the raw key.
And no model writes a key into the configuration (a model's settings are typed values:
sc_models/mem/fe_tuning.h); only the command line may (`persim crash` sets sim.crash_check).

How: the keys are what `persim list keys --markdown` lists; a read is `.i("key")`, `.f(`, `.b(`
or `.s(`, or a typed table's row of the key (`.num("key"`, `.real(`, `.ns(`, `.flag(`, `.choice(`,
`config_def("key"`), and a write `.set("key"` / `set_kv("key=` in a C++ file under sc_models/ or cli/, outside
// comments. Usage: check_config_keys.py PERSIM_BINARY SOURCE_DIR. Exit 1 and a list if violated."""
import collections
import os
import re
import subprocess
import sys


def main():
    persim, root = sys.argv[1], sys.argv[2]
    md = subprocess.run([persim, "list", "keys", "--markdown"], capture_output=True, text=True, check=True).stdout
    keys = set(re.findall(r"^\| `([a-z0-9_.]+)` \|", md, re.M))
    if len(keys) < 50:
        print(f"check_config_keys: only {len(keys)} keys listed by {persim}: the schema did not load", file=sys.stderr)
        return 1
    reads, writes = collections.defaultdict(set), collections.defaultdict(set)
    nfiles = 0
    for top in ("sc_models", "cli"):
        for dp, _, fs in os.walk(os.path.join(root, top)):
            for f in sorted(fs):
                if not f.endswith((".cpp", ".h")):
                    continue
                path = os.path.join(dp, f)
                rel = os.path.relpath(path, root)
                nfiles += 1
                for line in open(path, encoding="utf-8"):
                    code = line.split("//", 1)[0]
                    for m in re.finditer(r'\.(i|f|b|s)\(\s*"([a-z0-9_.]+)"', code):
                        if m.group(2) in keys:
                            reads[m.group(2)].add(rel)
                    # a typed table's row reads its key (config_table.h: .num/.real/.ns/.flag/.choice,
                    # or a row's config_def)
                    for m in re.finditer(r'(?:\.(?:num|real|ns|flag|choice)\(|config_def\()\s*"([a-z0-9_.]+)"', code):
                        if m.group(1) in keys:
                            reads[m.group(1)].add(rel)
                    for m in re.finditer(r'(?:\.set\(\s*"|set_kv\(\s*")([a-z0-9_.]+)', code):
                        if m.group(1) in keys:
                            writes[m.group(1)].add(rel)
    bad = []
    for k in sorted(reads):
        if len(reads[k]) > 1:
            bad.append(f"{k}: read in {len(reads[k])} files: {', '.join(sorted(reads[k]))}")
    for k in sorted(writes):
        for w in sorted(writes[k]):
            if not w.startswith("cli/"):
                bad.append(f"{k}: written into the configuration by {w} (a model's settings are typed values)")
    print(f"check_config_keys: {len(keys)} keys, {nfiles} files; {sum(len(v) for v in reads.values())} reads of "
          f"{len(reads)} keys, writes by the command line: "
          + (", ".join(f"{k} ({', '.join(sorted(v))})" for k, v in sorted(writes.items())) or "none"))
    for b in bad:
        print("  " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
