#!/usr/bin/env python3
"""make bench-scale: tierd's real tick against generated cgroup trees.

For each size N (managed containers), gen_tree.py writes a fixture root
under OUT/N/; then, with --dry-run (nothing is written to the fixture's
kernel files; DAMON and the BPF sampler are off):

  once     tierd --once: wall, CPU (user + sys) and peak RSS of the process
           (start-up included), and the tick's own figures;
  steady   the daemon ticking every TICK for TICKS ticks: each tick's wall,
           CPU and engine figures from its debug line ("tick K: W us wall,
           C us cpu; engine E us wall, F us cpu; N cgroups managed"), the
           first tick left out; RSS (VmRSS) after the last tick;
  syscalls a second steady run under strace -c -f, counts and time per
           syscall divided by the ticks it ran.

Then the engine alone (tiersim --engine-bench) per strategy at each of
ENGINE_SIZES cgroups x ENGINE_REGIONS regions, in CPU time per tick.

Writes OUT/scale.csv, OUT/syscalls-N.txt and OUT/scale.png (gnuplot), and
ends with one line per size:
  scale: N cgroups: tick W ms wall, C ms cpu, R MiB rss
(steady state, medians). Measures; asserts nothing.
"""
import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TICK_RE = re.compile(r"debug: tick (\d+): (\d+) us wall, (\d+) us cpu; engine (\d+) us wall, "
                     r"(\d+) us cpu; (\d+) cgroups managed")


def tierd_args(tierd, d):
    return [tierd, "--root", os.path.join(d, "root"), "--config", os.path.join(d, "tierd.json"),
            "--policy-dir", os.path.join(d, "policies.d"), "--dry-run", "--log-target=stderr",
            "--metrics-file", os.path.join(d, "tierd.prom"),
            "--state-file", os.path.join(d, "state.json")]


def ticks_of(path):
    with open(path) as f:
        return [tuple(int(x) for x in m.groups()) for m in TICK_RE.finditer(f.read())]


def run_once(tierd, d):
    err = os.path.join(d, "once.err")
    t0 = time.monotonic()
    with open(err, "w") as e, open(os.devnull, "w") as null:
        p = subprocess.Popen(tierd_args(tierd, d) + ["--once"], stdout=null, stderr=e)
        _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    if status:
        sys.exit("tierd --once failed; see %s" % err)
    return wall * 1e3, (ru.ru_utime + ru.ru_stime) * 1e3, ru.ru_maxrss / 1024.0, ticks_of(err)


def vmrss_mib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return 0.0


def child_of(pid):
    """strace's tracee: stopped by a signal to it, strace then writes its
    table and exits (a signal to strace would leave tierd running)."""
    with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
        return int(f.read().split()[0])


def run_steady(cmd, err, nr_ticks, traced=False, timeout=600):
    """Runs cmd until its stderr holds nr_ticks tick lines; returns them and
    tierd's RSS after the last one."""
    with open(err, "w") as e:
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=e)
    deadline = time.monotonic() + timeout
    ticks = []
    while time.monotonic() < deadline and p.poll() is None:
        time.sleep(0.05)
        ticks = ticks_of(err)
        if len(ticks) >= nr_ticks:
            break
    pid = child_of(p.pid) if traced else p.pid
    rss = vmrss_mib(pid) if p.poll() is None else 0.0
    os.kill(pid, signal.SIGTERM)
    p.wait()
    return ticks, rss


def syscall_table(path, nr_ticks):
    """strace -c's table per tick: (calls, usecs) by syscall, largest first."""
    rows = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 5 and re.match(r"^[\d.]+$", parts[0]) and parts[-1] != "total":
                rows.append((parts[-1], int(parts[3]) / nr_ticks, float(parts[1]) * 1e6 / nr_ticks))
    return sorted(rows, key=lambda r: -r[2])


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def plot(out, rows):
    gp = os.path.join(out, "scale.gp")
    with open(gp, "w") as f:
        f.write('set terminal pngcairo size 800,500\nset output "%s"\n' % os.path.join(out, "scale.png"))
        f.write('set title "tierd steady-state tick against managed cgroups (medians)"\n')
        f.write('set xlabel "managed cgroups"\nset ylabel "ms per tick"\nset logscale x\n')
        f.write('set key left top\nset datafile separator ","\nset grid\n')
        f.write('plot "%s" using 1:2 skip 1 with linespoints title "wall", '
                '"" using 1:3 skip 1 with linespoints title "CPU", '
                '"" using 1:4 skip 1 with linespoints title "engine CPU"\n'
                % os.path.join(out, "scale.csv"))
    subprocess.run(["gnuplot", gp], check=True)


ENGINE_RE = re.compile(r"cpu per tick: first ([\d.]+) ms, then mean ([\d.]+) ms, max ([\d.]+) ms; "
                       r"([\d.]+) ns cpu per region at most")
STRATEGIES = ("mole", "migflow", "hmmv", "linux", "autotiering")


def engine(tiersim, out, sizes, regions, ticks):
    for n in sizes:
        for strategy in STRATEGIES:
            log = os.path.join(out, "engine-%s-%d.txt" % (strategy, n))
            with open(log, "w") as f:
                subprocess.run([tiersim, "--engine-bench", "--strategy", strategy,
                                "--engine-bench-cgroups", str(n), "--engine-bench-regions",
                                str(regions), "--engine-bench-ticks", str(ticks)],
                               stdout=f, stderr=subprocess.STDOUT, check=True)
            with open(log) as f:
                m = ENGINE_RE.search(f.read())
            print("engine: %-11s %5d cgroups x %d regions: first tick %.1f ms cpu, then %.1f ms "
                  "(max %.1f ms), %.1f ns cpu per region at most"
                  % (strategy, n, regions, float(m.group(1)), float(m.group(2)),
                     float(m.group(3)), float(m.group(4))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tierd", default="build/tierd")
    ap.add_argument("--out", default="build/bench-scale")
    ap.add_argument("--sizes", default="100,1000,5000")
    ap.add_argument("--ticks", type=int, default=11)
    ap.add_argument("--tick", default="100ms")
    ap.add_argument("--no-strace", action="store_true")
    ap.add_argument("--tiersim", default="build/tiersim")
    ap.add_argument("--engine-sizes", default="100,1000",
                    help="cgroups for the engine alone; empty: skip it")
    ap.add_argument("--engine-regions", type=int, default=100000)
    ap.add_argument("--engine-ticks", type=int, default=3)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rows, lines = [], []
    for n in (int(x) for x in a.sizes.split(",") if x):
        d = os.path.join(a.out, str(n))
        subprocess.run([sys.executable, os.path.join(HERE, "gen_tree.py"), str(n), d], check=True)
        with open(os.path.join(d, "tierd.json"), "w") as f:
            f.write('{"tick_interval": "%s", "log_level": "debug", "damon": false, "bpf": false}\n'
                    % a.tick)
        o_wall, o_cpu, o_rss, o_ticks = run_once(a.tierd, d)
        ticks, rss = run_steady(tierd_args(a.tierd, d), os.path.join(d, "steady.err"), a.ticks + 1)
        steady = ticks[1:]
        if not steady:
            sys.exit("no steady-state tick at %d cgroups; see %s/steady.err" % (n, d))
        wall = median([t[1] / 1e3 for t in steady])
        cpu = median([t[2] / 1e3 for t in steady])
        eng_wall = median([t[3] / 1e3 for t in steady])
        eng_cpu = median([t[4] / 1e3 for t in steady])
        managed = steady[-1][5]
        print("%d cgroups (%d managed): --once: %.1f ms wall, %.1f ms cpu, %.1f MiB peak rss, "
              "its tick %.1f ms wall, %.1f ms cpu (engine %.1f ms)"
              % (n, managed, o_wall, o_cpu, o_rss, o_ticks[0][1] / 1e3, o_ticks[0][2] / 1e3,
                 o_ticks[0][4] / 1e3))
        print("  steady (%d ticks): wall median %.1f ms (min %.1f, max %.1f), cpu median %.1f ms "
              "(min %.1f, max %.1f), engine %.1f ms wall, %.1f ms cpu (%.0f%% of the tick's cpu), "
              "rss %.1f MiB"
              % (len(steady), wall, min(t[1] for t in steady) / 1e3,
                 max(t[1] for t in steady) / 1e3, cpu, min(t[2] for t in steady) / 1e3,
                 max(t[2] for t in steady) / 1e3, eng_wall, eng_cpu,
                 100.0 * eng_cpu / cpu if cpu else 0.0, rss))
        if not a.no_strace and shutil.which("strace"):
            st = os.path.join(d, "strace.txt")
            cmd = ["strace", "-c", "-f", "-o", st] + tierd_args(a.tierd, d)
            sticks, _ = run_steady(cmd, os.path.join(d, "strace.err"), a.ticks + 1, traced=True)
            table = syscall_table(st, max(len(sticks), 1))
            with open(os.path.join(a.out, "syscalls-%d.txt" % n), "w") as f:
                for name, calls, usecs in table:
                    f.write("%-16s %10.0f calls %10.0f us\n" % (name, calls, usecs))
            print("  syscalls per tick (strace -c -f, %d ticks incl. start-up): %s"
                  % (len(sticks), ", ".join("%s %.0f (%.1f ms)" % (nm, c, u / 1e3)
                                            for nm, c, u in table[:6])))
        rows.append((n, wall, cpu, eng_cpu, rss))
        lines.append("scale: %d cgroups: tick %.1f ms wall, %.1f ms cpu, %.1f MiB rss"
                     % (n, wall, cpu, rss))
    with open(os.path.join(a.out, "scale.csv"), "w") as f:
        f.write("cgroups,wall_ms,cpu_ms,engine_cpu_ms,rss_mib\n")
        for r in rows:
            f.write("%d,%.3f,%.3f,%.3f,%.2f\n" % r)
    if shutil.which("gnuplot"):
        plot(a.out, rows)
        print("plot: %s" % os.path.join(a.out, "scale.png"))
    if a.engine_sizes:
        engine(a.tiersim, a.out, [int(x) for x in a.engine_sizes.split(",")], a.engine_regions,
               a.engine_ticks)
    for line in lines:
        print(line)


if __name__ == "__main__":
    sys.stdout.reconfigure(line_buffering=True)
    main()
