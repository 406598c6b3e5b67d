#!/usr/bin/env python3
"""Add lock entries for platform-specific optional packages that the registry reachable here
does not serve (e.g. @rollup/rollup-darwin-x64, @msgpackr-extract/*-win32-x64).

`npm install` leaves them out of package-lock.json when it cannot fetch their manifests, and
`npm ci` on a fresh clone then refuses the lock as out of sync. An entry with the right
os/cpu/libc lets `npm ci` skip them on this platform, as it would with a complete lock.
Run after every `npm install`: python3 .ci/complete-lockfile.py package-lock.json
"""
import json
import re
import sys

path = sys.argv[1] if len(sys.argv) > 1 else "package-lock.json"
lock = json.load(open(path))
packages = lock["packages"]
added = 0
for parent_key, parent in list(packages.items()):
    for name, version in (parent.get("optionalDependencies") or {}).items():
        key = "node_modules/" + name
        if key in packages or not name.startswith("@"):
            continue
        m = re.match(r"^(?:[a-z0-9-]+-)?(android|darwin|freebsd|linux|openbsd|openharmony|win32|sunos|aix)-([a-z0-9]+)(?:-(.*))?$", name.split("/")[1].replace("msgpackr-extract-", "").replace("rollup-", ""))
        if not m:
            continue
        os_, cpu, rest = m.group(1), m.group(2), m.group(3) or ""
        entry = {"version": version, "cpu": [cpu]}
        if parent.get("dev"):
            entry["dev"] = True
        if os_ == "linux" and "musl" in rest:
            entry["libc"] = ["musl"]
        elif os_ == "linux" and "gnu" in rest:
            entry["libc"] = ["glibc"]
        entry["optional"] = True
        entry["os"] = [os_]
        packages[key] = entry
        added += 1
lock["packages"] = dict(sorted(packages.items(), key=lambda kv: (kv[0] != "", kv[0])))
with open(path, "w") as f:
    json.dump(lock, f, indent=2)
    f.write("\n")
print(f"complete-lockfile: added {added} platform entries")
