#!/usr/bin/env python3
"""Idle CPU of a running `make dev`, as issue 32 measures it: the CPU time
(utime + stime, from /proc) of every process `make dev` started (DynamoDB
Local's java, `cargo lambda watch`, the `cargo run` of each function
instance and the function binaries, the stream pump), summed over a window,
as a share of one core.

Usage: idle_cpu.py [--pid PID] [--wait S] [--duration S] [--top N] [--json]
  --pid       the root of the tree: `make dev`'s (or scripts/dev.sh's) pid;
              by default the one scripts/dev.sh running from this checkout
              (refused when there are several: pass --pid then)
  --wait      seconds to wait before measuring (default 0; the issue's
              measurement starts 2 minutes after bench/write_load.py ends:
              `bench/write_load.py && bench/idle_cpu.py --wait 120`)
  --duration  length of the window in seconds (default 300)
  --top       how many process kinds to list, heaviest first (default 8)
  --json      print the result as one JSON line too

Processes are sampled every half second, so one that starts in the window
counts from zero, and one that ends loses at most its last half second
(an idle stack starts and ends none). Threads are in their process's
numbers (/proc/PID/stat sums them). Linux only; reads /proc, sends nothing.
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.realpath(os.path.join(HERE, ".."))
TICK = os.sysconf("SC_CLK_TCK")
SAMPLE_S = 0.5


def stat(pid):
    """(ppid, comm, utime + stime in ticks) of a process, or None if gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            raw = f.read()
    except OSError:
        return None
    # comm is in parentheses and may hold spaces: split after the last ')'.
    comm = raw[raw.index("(") + 1:raw.rindex(")")]
    fields = raw[raw.rindex(")") + 2:].split()
    # After comm: state(0) ppid(1) ... utime(11) stime(12).
    return int(fields[1]), comm, int(fields[11]) + int(fields[12])


def cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def pids():
    return [int(p) for p in os.listdir("/proc") if p.isdigit()]


def tree(root):
    """{pid: (comm, ticks)} of root and all its descendants, now."""
    procs = {}
    for pid in pids():
        s = stat(pid)
        if s:
            procs[pid] = s
    children = {}
    for pid, (ppid, _, _) in procs.items():
        children.setdefault(ppid, []).append(pid)
    out, todo = {}, [root]
    while todo:
        pid = todo.pop()
        if pid in procs:
            out[pid] = (procs[pid][1], procs[pid][2])
            todo.extend(children.get(pid, []))
    return out


def find_root():
    """scripts/dev.sh of this checkout (its cwd is the checkout's root)."""
    found = []
    for pid in pids():
        if "scripts/dev.sh" not in cmdline(pid):
            continue
        try:
            cwd = os.path.realpath(os.readlink("/proc/%d/cwd" % pid))
        except OSError:
            continue
        if cwd == ROOT:
            found.append(pid)
    # A subshell of dev.sh also shows its command line: keep the outermost.
    found = [p for p in found if (stat(p) or (0,))[0] not in found]
    if len(found) != 1:
        sys.exit("found %d make dev (scripts/dev.sh) processes of %s: pass --pid"
                 % (len(found), ROOT))
    return found[0]


def measure(root, duration):
    first = tree(root)
    if not first:
        sys.exit("no process %d" % root)
    seen = dict(first)                            # pid -> (comm, ticks at first sight)
    last = dict(first)                            # pid -> (comm, ticks at last sight)
    born = set()
    start = time.monotonic()
    end = start + duration
    while True:
        now = time.monotonic()
        if now >= end:
            break
        time.sleep(min(SAMPLE_S, end - now))
        for pid, v in tree(root).items():
            if pid not in seen:
                # Started in the window: all its time is the window's.
                seen[pid] = (v[0], 0)
                born.add(pid)
            last[pid] = v
    elapsed = time.monotonic() - start
    final = tree(root)
    ended = [p for p in seen if p not in final]
    per_kind = {}
    total = 0
    for pid, (comm, t0) in seen.items():
        used = last[pid][1] - t0
        total += used
        # Grouped by command name: each function binary by its name, the
        # `cargo run` that starts each instance as `cargo`, java, ...
        n, ticks = per_kind.get(comm, (0, 0))
        per_kind[comm] = (n + 1, ticks + used)
    return {
        "root": root,
        "processes": len(seen),
        "started_in_window": len(born),
        "ended_in_window": len(ended),
        "seconds": round(elapsed, 1),
        "cpu_seconds": round(total / TICK, 2),
        "percent_of_one_core": round(100.0 * total / TICK / elapsed, 2),
        "by_kind": {k: {"processes": n, "cpu_seconds": round(t / TICK, 2),
                        "percent": round(100.0 * t / TICK / elapsed, 2)}
                    for k, (n, t) in sorted(per_kind.items(), key=lambda kv: -kv[1][1])},
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pid", type=int)
    ap.add_argument("--wait", type=float, default=0)
    ap.add_argument("--duration", type=float, default=300)
    ap.add_argument("--top", type=int, default=8)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if not sys.platform.startswith("linux"):
        sys.exit("idle_cpu.py reads /proc: Linux only")
    root = args.pid or find_root()
    if args.wait > 0:
        print("waiting %.0f s before measuring..." % args.wait, flush=True)
        time.sleep(args.wait)
    print("measuring the process tree of %d (%s) for %.0f s..."
          % (root, cmdline(root)[:60], args.duration), flush=True)
    r = measure(root, args.duration)
    print("idle CPU: %.2f %% of one core (%.2f CPU seconds in %.0f s, %d processes; "
          "%d started and %d ended in the window)"
          % (r["percent_of_one_core"], r["cpu_seconds"], r["seconds"], r["processes"],
             r["started_in_window"], r["ended_in_window"]))
    for k, v in list(r["by_kind"].items())[:args.top]:
        print("  %-24s %3d processes  %7.2f CPU s  %6.2f %%" % (k, v["processes"], v["cpu_seconds"], v["percent"]))
    if args.json:
        print(json.dumps(r))


if __name__ == "__main__":
    main()
