#!/usr/bin/env python3
"""The README's simulator tables from a `make bench` summary.csv.

usage: python3 bench/tables.py [build/bench/summary.csv]

Prints, per capacity ratio, each strategy's mean latency as a multiple of
the causal oracle (and of the per-window oracle), best in bold; the
migrated MiB with each strategy's promotion failure rate; and the ratios
to the `linux` model that issue 14's targets are stated in.
"""
import csv
import math
import sys

STRATEGIES = ["none", "linux", "autotiering", "mole", "migflow", "hmmv", "exchange"]
WORKLOADS = ["gups", "zipf", "phase", "alloc-burst", "graph",
             "multi-tenant-island", "multi-tenant-pool"]
MIB = 1 << 20


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "build/bench/summary.csv"
    rows = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            rows[(r["workload"], r["ratio"], r["strategy"])] = r
    ratios = sorted({k[1] for k in rows}, key=lambda x: [int(p) for p in x.split(":")])
    have = [s for s in STRATEGIES if any(k[2] == s for k in rows)]
    work = [w for w in WORKLOADS if any(k[0] == w for k in rows)]
    for ratio in ratios:
        print(f"Mean access latency at capacity ratio {ratio} as a multiple of the causal "
              "oracle (and, in brackets, of the per-window oracle; lower is better, best in "
              "bold; `causal ns` and `oracle ns` are their mean latencies):\n")
        print("| workload | " + " | ".join(have) + " | causal ns | oracle ns |")
        print("|---" * (len(have) + 3) + "|")
        for w in work:
            cells = {s: rows[(w, ratio, s)] for s in have if (w, ratio, s) in rows}
            best = min(round(float(r["x_causal"]), 2) for s, r in cells.items() if s != "none")
            out = []
            for s in have:
                r = cells.get(s)
                if r is None:
                    out.append("-")
                    continue
                xc, xo = float(r["x_causal"]), float(r["x_oracle"])
                cell = f"{xc:.2f} ({xo:.2f})"
                out.append(f"**{cell}**" if s != "none" and round(xc, 2) == best else cell)
            ref = next(iter(cells.values()))
            print(f"| {w} | " + " | ".join(out) +
                  f" | {float(ref['causal_ns']):.0f} | {float(ref['oracle_ns']):.0f} |")
        print()
    for ratio in ratios:
        moving = [s for s in have if s != "none"]
        print(f"Migrated MiB over the run, and the promotion failure rate from each "
              f"strategy's own counters, at {ratio}:\n")
        print("| workload | " + " | ".join(moving) + " |")
        print("|---" * (len(moving) + 1) + "|")
        for w in work:
            out = []
            for s in moving:
                r = rows.get((w, ratio, s))
                if r is None:
                    out.append("-")
                    continue
                mib = float(r["migrated_bytes"]) / MIB
                if r["strategy_promote_fail_rate"] not in ("", "-"):
                    out.append(f"{mib:.0f} / {float(r['strategy_promote_fail_rate']):.0%}")
                else:
                    out.append(f"{mib:.0f}")
            print(f"| {w} | " + " | ".join(out) + " |")
        print()
    print("Mean latency over `linux`'s (issue 14: the default at most 0.85), and the "
          "geometric mean over all rows of the ratio to the causal oracle:\n")
    others = [s for s in have if s not in ("none", "linux")]
    print("| workload | ratio | " + " | ".join(others) + " |")
    print("|---" * (len(others) + 2) + "|")
    for ratio in ratios:
        for w in work:
            lin = rows.get((w, ratio, "linux"))
            if lin is None:
                continue
            out = [f"{float(rows[(w, ratio, s)]['mean_ns']) / float(lin['mean_ns']):.2f}"
                   if (w, ratio, s) in rows else "-" for s in others]
            print(f"| {w} | {ratio} | " + " | ".join(out) + " |")
    geo = []
    for s in ["linux"] + others:
        xs = [float(r["x_causal"]) for k, r in rows.items() if k[2] == s]
        geo.append(f"{s} {math.exp(sum(map(math.log, xs)) / len(xs)):.3f}")
    print("\ngeometric mean x_causal: " + ", ".join(geo))


if __name__ == "__main__":
    main()
