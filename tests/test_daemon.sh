#!/bin/sh
# Integration tests: the sanitized tierd and tierctl against the fixture
# trees (tierd --root), the metrics file through a real Prometheus parser,
# reload keeping the last good policies, cgroups appearing and going away,
# and the systemd unit. Needs no root, cgroup v2 or NUMA.
set -u
: "${BUILD:=build}"
TIERD=$BUILD/san/tierd
TIERCTL=$BUILD/san/tierctl
FIX=tests/fixtures
PY=/usr/bin/python3
pass=0 fail=0 skip=0
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# LeakSanitizer needs ptrace, which some sandboxes refuse; keep leaks on.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
# Files the tests write must pass tierd's own rules (not group-writable).
umask 022

ok() { pass=$((pass + 1)); }
no() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
expect_eq() { [ "$1" = "$2" ] && ok || no "$3: got '$1', expected '$2'"; }
expect_line() { grep -qxF -- "$2" "$1" && ok || no "$1 lacks line: $2"; }
expect_grep() { grep -qF -- "$2" "$1" && ok || no "$1 lacks: $2"; }
metric() { grep -E "^$2( |\{)" "$1" | head -n 1 | awk '{print $NF}'; }

# Waits until file contains text (up to ~10 s).
wait_for() {
	i=0
	while [ $i -lt 200 ]; do
		grep -qF -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}

# --- one tick on the four-tier machine (dry run: fixtures are not acted on) -
$TIERD --root $FIX/four-tier --config configs/tierd.json --policy-dir configs/policies.d \
	--once --dry-run --log-target=stderr --metrics-file "$T/m.prom" --state-file "$T/state.json" \
	>"$T/out" 2>"$T/err"
expect_eq "$?" 0 "tierd --once exit status"
M=$T/m.prom
expect_line "$M" 'tierd_cgroup_tier_bytes{cgroup="/workload.slice/db.service",policy="db",tier="0",type="anon"} 805306368'
expect_line "$M" 'tierd_cgroup_tier_bytes{cgroup="/workload.slice/db.service",policy="db",tier="0",type="file"} 67108864'
expect_line "$M" 'tierd_cgroup_tier_bytes{cgroup="/workload.slice/db.service",policy="db",tier="3",type="file"} 33554432'
expect_line "$M" 'tierd_cgroup_tier_bytes{cgroup="/system.slice/nginx.service",policy="web",tier="2",type="file"} 16777216'
expect_line "$M" 'tierd_cgroup_tier_budget_max_bytes{cgroup="/workload.slice/db.service",policy="db",tier="0"} 536870912'
expect_line "$M" 'tierd_cgroup_tier_budget_max_bytes{cgroup="/workload.slice/db.service",policy="db",tier="1"} 1073741824'
expect_line "$M" 'tierd_cgroup_tier_budget_max_bytes{cgroup="/workload.slice/batch-1.scope",policy="batch",tier="0"} 67108864'
expect_line "$M" 'tierd_cgroup_tier_budget_min_bytes{cgroup="/system.slice/nginx.service",policy="web",tier="0"} 134217728'
expect_line "$M" 'tierd_cgroup_tier_over_budget_bytes{cgroup="/workload.slice/db.service",policy="db",tier="0"} 335544320'
expect_line "$M" 'tierd_cgroup_tier_over_budget_bytes{cgroup="/workload.slice/batch-1.scope",policy="batch",tier="0"} 0'
expect_line "$M" 'tierd_cgroup_tier_share_bytes{cgroup="/workload.slice/db.service",policy="db",tier="0"} 536870912'
expect_line "$M" 'tierd_cgroup_tier_share_bytes{cgroup="/workload.slice/batch-1.scope",policy="batch",tier="0"} 67108864'
expect_line "$M" 'tierd_cgroup_tier_share_bytes{cgroup="/workload.slice/batch-2.scope",policy="batch",tier="0"} 25165824'
expect_line "$M" 'tierd_tier_capacity_bytes{tier="3",nodes="3"} 2147483648'
expect_line "$M" 'tierd_tier_free_bytes{tier="0",nodes="0"} 268435456'
expect_line "$M" 'tierd_tier_read_latency_seconds{tier="1",nodes="1"} 0.000000140'
expect_line "$M" 'tierd_cgroup_memory_current_bytes{cgroup="/workload.slice/db.service"} 1342177280'
expect_line "$M" 'tierd_cgroup_kernel_demoted_bytes_total{cgroup="/workload.slice/db.service",reclaimer="direct"} 209727488'
expect_line "$M" 'tierd_cgroup_kernel_promoted_bytes_total{cgroup="/workload.slice/db.service"} 67108864'
expect_line "$M" 'tierd_cgroup_memory_pressure_avg10_ratio{cgroup="/workload.slice/db.service",kind="some"} 0.1234'
expect_line "$M" 'tierd_cgroup_memory_pressure_stalled_seconds_total{cgroup="/workload.slice/db.service",kind="full"} 0.123456'
expect_line "$M" 'tierd_cgroups_managed 4'
expect_line "$M" 'tierd_cgroups_over_budget 1'
expect_line "$M" 'tierd_plan_demote_bytes 268435456'
expect_line "$M" 'tierd_dry_run_actions_total 1'
expect_line "$M" 'tierd_dry_run 1'
expect_line "$M" 'tierd_policies_loaded 3'
expect_line "$M" 'tierd_policy_load_errors_total 0'
expect_line "$M" 'tierd_ticks_total 1'
expect_line "$M" 'tierd_bpf_mode{mode="off"} 1'
expect_line "$M" 'tierd_bpf_mode{mode="running"} 0'
expect_line "$M" 'tierd_bpf_samples_read_total 0'
expect_line "$M" 'tierd_sample_promotions_pages_total{target_tier="3",result="failed"} 0'
grep -q '^tierd_bpf_samples_total{' "$M" && no "BPF counters of cgroups not sampled exported" || ok
expect_eq "$(stat -c %a "$M")" 644 "metrics file mode"
grep -q 'ssh.service\|user-1000' "$M" && no "unmanaged cgroups exported" || ok
# A real parser: every family has HELP and TYPE, every sample parses.
fams=$($PY - "$M" <<'PYEOF'
import sys
from prometheus_client.parser import text_string_to_metric_families
fams = list(text_string_to_metric_families(open(sys.argv[1]).read()))
assert all(f.documentation for f in fams), "missing HELP"
print(len(fams), sum(len(f.samples) for f in fams))
PYEOF
)
expect_eq "$fams" "$(grep -c '^# TYPE ' "$M") $(grep -vc '^#' "$M")" "metric families and samples parsed"
expect_grep "$T/out" 'demote 256.0M of /workload.slice/db.service from tier 0 to tier 3 (over-tier-max: tier 0 holds 832.0M, max 512.0M)'
expect_grep "$T/out" 'tierd: 4 tiers, 4 cgroups managed, 1 over budget, dry run'
expect_grep "$T/err" 'warning: cgroup /workload.slice/db.service is over its tier 0 budget by 320.0M: holds 832.0M, max 512.0M (policy db); plan: demote 256.0M to tier 3 (dry run)'

# An unwritable metrics path is a warning, not a failure.
$TIERD --root $FIX/four-tier --config configs/tierd.json --policy-dir configs/policies.d --dry-run \
	--once --log-target=stderr --metrics-file "$T/no/such/dir/m.prom" --state-file "$T/s2.json" \
	>/dev/null 2>"$T/err2"
expect_eq "$?" 0 "tierd --once with an unwritable metrics path"
expect_line "$T/err2" "tierd: warning: cannot write metrics to $T/no/such/dir/m.prom: No such file or directory"

# A demotion split over two tiers is logged as one line with its total:
# 704M over the 128M max and 2M of band below it (policy/engine.c); staging
# demotion fills db's 512M share of tier 3 (it holds 32M there), the rest
# goes one tier up.
mkdir "$T/split"
printf '{"name": "db", "match": {"path": "/workload.slice/db.service"}, "tiers": [{"tier": 0, "max": "128M"}, {"tier": 3, "max": "512M"}]}\n' >"$T/split/db.json"
$TIERD --root $FIX/four-tier --config configs/tierd.json --policy-dir "$T/split" --once --dry-run \
	--log-target=stderr --metrics-file "$T/ms.prom" --state-file "$T/ss.json" >"$T/outs" 2>"$T/errs"
expect_line "$T/errs" 'tierd: warning: cgroup /workload.slice/db.service is over its tier 0 budget by 704.0M: holds 832.0M, max 128.0M (policy db); plan: demote 706.0M to tiers 3, 2 (dry run)'
expect_grep "$T/outs" 'demote 480.0M of /workload.slice/db.service from tier 0 to tier 3'
expect_grep "$T/outs" 'demote 226.0M of /workload.slice/db.service from tier 0 to tier 2'

# A managed cgroup without memory files (the controller is not enabled for
# it) is reported, not silently skipped as if it had gone away.
cp -r $FIX/four-tier "$T/nomem"
rm "$T/nomem/sys/fs/cgroup/workload.slice/db.service/memory.numa_stat"
$TIERD --root "$T/nomem" --config configs/tierd.json --policy-dir configs/policies.d --once --dry-run \
	--log-target=stderr --metrics-file "$T/mn.prom" --state-file "$T/sn.json" >/dev/null 2>"$T/errn"
expect_eq "$?" 0 "a cgroup without memory files does not stop the tick"
expect_line "$T/errn" "tierd: warning: cgroup /workload.slice/db.service skipped until its files can be read: /workload.slice/db.service/memory.numa_stat: No such file or directory (the memory controller is not enabled for it: add +memory to its parent's cgroup.subtree_control)"
expect_line "$T/mn.prom" 'tierd_cgroups_managed 3'

# A memory_tiering that cannot be read says why.
cp -r $FIX/four-tier "$T/badtier"
rm -r "$T/badtier/sys/devices/virtual/memory_tiering"
touch "$T/badtier/sys/devices/virtual/memory_tiering"
$TIERCTL topology --root "$T/badtier" 2>"$T/errt"
expect_eq "$?" 2 "unreadable memory_tiering"
expect_line "$T/errt" "tierctl: cannot read the memory topology: $T/badtier/sys/devices/virtual/memory_tiering: Not a directory"

# --- tierctl status from the state file, table and JSON --------------------
$TIERCTL status --state-file "$T/state.json" >"$T/status"
expect_eq "$?" 0 "tierctl status exit status"
$TIERCTL status --json --state-file "$T/state.json" >"$T/status.json"
expect_eq "$($PY -c 'import json,sys; d=json.load(open(sys.argv[1])); c=[x for x in d["cgroups"] if x["policy"]=="db"][0]; print(d["over_budget"], c["tiers"][0]["over_bytes"], d["plan"][0]["bytes"], len(d["topology"]["tiers"]))' "$T/status.json")" \
	"1 335544320 268435456 4" "status --json content"
$TIERCTL status --live --root $FIX/four-tier --config configs/tierd.json --policy-dir configs/policies.d >"$T/live"
n=$(wc -l <"$T/out")
expect_eq "$(head -n "$n" "$T/live")" "$(cat "$T/out")" "tierctl status --live starts as tierd --once"
expect_eq "$(tail -n +"$((n + 1))" "$T/live")" "$(tail -n +"$((n + 1))" "$T/status")" "tierctl status --live: DAMON and migrations as the state file's"
$TIERCTL status --state-file "$T/missing.json" 2>"$T/e"
expect_eq "$?" 2 "status without a state file"
# Usage errors: exit 2 with the reason; --version and --help exit 0.
$TIERCTL --pid 12x status 2>"$T/e"
expect_eq "$?" 2 "tierctl --pid 12x"
expect_line "$T/e" 'tierctl: --pid: expected a process id, got "12x"'
$TIERCTL frob 2>"$T/e"
expect_eq "$?" 2 "tierctl frob"
expect_line "$T/e" 'tierctl: unknown command or arguments: "frob"; see tierctl --help'
$TIERCTL status extra 2>"$T/e"
expect_eq "$?" 2 "tierctl status extra"
$TIERCTL 2>"$T/e"
expect_eq "$?" 2 "tierctl without a command"
expect_grep "$T/e" "Usage: tierctl"
expect_eq "$($TIERCTL --version)" "tierctl $(sed -n 's/^#define TIERD_VERSION "\(.*\)"$/\1/p' controller/version.h)" "tierctl --version"
$TIERCTL --help >"$T/h"
expect_eq "$?" 0 "tierctl --help"

# --- tierctl status: DAMON, BPF and migrations ------------------------------
# tierd --once's table, then the DAMON and BPF lines and the migration tables.
expect_eq "$(head -n "$n" "$T/status")" "$(cat "$T/out")" "tierctl status starts as tierd --once"
expect_eq "$(tail -n +"$((n + 1))" "$T/status")" "
DAMON: off: dry run
BPF: off: dry run

MIGRATIONS (since tierd started)
PATH                 REQUESTS      TRIED  SUCCEEDED     FAILED
damos_migrate_cold          0         0B         0B         0B
damos_migrate_hot           0         0B         0B         0B
memory_reclaim              0         0B         0B         0B
move_pages                  0         0B         0B         0B

MOVED BETWEEN TIERS (row: from, column: to)
FROM          0          1          2          3
0             -         0B         0B         0B
1            0B          -         0B         0B
2            0B         0B          -         0B
3            0B         0B         0B          -" "tierctl status DAMON and migrations, nothing moved"
$PY - "$T/state.json" "$T/mig.json" "$T/deg.json" "$T/old.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
p = d["migrations"]["paths"]
p["damos_migrate_cold"] = {"tried_bytes": 536870912, "succeeded_bytes": 524288000, "failed_bytes": 12582912, "calls": 3}
p["move_pages"] = {"tried_bytes": 12288, "succeeded_bytes": 8192, "failed_bytes": 4096, "calls": 2}
d["migrations"]["matrix"][0][3] = 524288000
d["migrations"]["matrix"][3][0] = 8192
d["backend"] = {"damon": "running", "damon_why": "", "kdamonds": 4, "kdamond_restarts": 1}
json.dump(d, open(sys.argv[2], "w"))
d["backend"] = {"damon": "degraded", "damon_why": "kdamond \"0\" is not tierd's", "kdamonds": 0, "kdamond_restarts": 0,
                "tick_kernel_wait": {"sense_usec": 12345, "sense_max_usec": 80500, "act_usec": 2000, "act_max_usec": 41000},
                "damon_worker": {"late_readings": 6, "skipped_commits": 1}}
json.dump(d, open(sys.argv[3], "w"))
del d["migrations"], d["backend"], d["bpf"]
json.dump(d, open(sys.argv[4], "w"))
PYEOF
$TIERCTL status --state-file "$T/mig.json" >"$T/smig"
expect_eq "$?" 0 "tierctl status with migrations"
expect_eq "$(tail -n +"$((n + 1))" "$T/smig")" "
DAMON: running, 4 kdamonds (1 restart)
BPF: off: dry run

MIGRATIONS (since tierd started)
PATH                 REQUESTS      TRIED  SUCCEEDED     FAILED
damos_migrate_cold          3     512.0M     500.0M      12.0M
damos_migrate_hot           0         0B         0B         0B
memory_reclaim              0         0B         0B         0B
move_pages                  2      12.0K       8.0K       4.0K

MOVED BETWEEN TIERS (row: from, column: to)
FROM          0          1          2          3
0             -         0B         0B     500.0M
1            0B          -         0B         0B
2            0B         0B          -         0B
3          8.0K         0B         0B          -" "tierctl status DAMON and migrations"
$TIERCTL status --state-file "$T/deg.json" >"$T/sdeg"
expect_line "$T/sdeg" 'DAMON: degraded: kdamond "0" is not tierd'"'"'s'
expect_line "$T/sdeg" "DAMON's worker: 6 late readings, 1 plan not committed"
expect_line "$T/sdeg" 'the tick waited on the kernel: 12.3 ms sensing, 2.0 ms acting (longest 80.5 and 41.0 ms)'
$TIERCTL status --json --state-file "$T/mig.json" >"$T/smig.json"
expect_eq "$($PY -c 'import json,sys; d=json.load(open(sys.argv[1])); m=d["migrations"]; print(m["paths"]["damos_migrate_cold"]["failed_bytes"], m["paths"]["move_pages"]["calls"], m["matrix"][3][0], d["backend"]["damon"], d["backend"]["kdamonds"], d["backend"]["kdamond_restarts"])' "$T/smig.json")" \
	"12582912 2 8192 running 4 1" "status --json migrations and backend"
# A state file of the release before: no migrations, DAMON off.
$TIERCTL status --state-file "$T/old.json" >"$T/sold"
expect_eq "$?" 0 "tierctl status with a state file of the previous release"
expect_line "$T/sold" 'DAMON: off'
expect_line "$T/sold" 'BPF: off'
expect_line "$T/sold" 'move_pages                  0         0B         0B         0B'

# The BPF sampler running: its line, the sampled cgroups' counters per tier
# (batch-1 and db sampled, in the state file's order; the others not), and
# the promotions by target tier after the migration tables; unavailable:
# the reason; a state file of the release before the sampler: off.
$PY - "$T/mig.json" "$T/bpf.json" "$T/nobpf.json" "$T/prevbpf.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["bpf"] = {"mode": "running", "why": "", "hooks": "numa_fault=btf fault_addr=btf numa_scan=btf migrate=tracepoint",
            "samples_read": 1345, "samples_lost": 1, "unmanaged_faults": 17, "no_addr": 2,
            "promotions": {"tried": [1000, 24, 0, 0], "succeeded": [990, 24, 0, 0], "failed": [10, 0, 0, 0]},
            "move_pages": {"batches": 57, "busy_ticks": 1, "deadline_hits": 2, "last_usec": 2345, "max_usec": 618000}}
for c in d["cgroups"]:
    if c["policy"] == "db":
        c["bpf"] = {"faults": [0, 1200, 0, 345], "samples": [0, 1000, 0, 345], "drops": [0, 200, 0, 0]}
    if c["path"] == "/workload.slice/batch-1.scope":
        c["bpf"] = {"faults": [0, 0, 0, 0], "samples": [0, 0, 0, 0], "drops": [0, 0, 0, 0]}
json.dump(d, open(sys.argv[2], "w"))
d["bpf"] = {"mode": "unavailable", "why": "no BTF: /sys/kernel/btf/vmlinux: No such file or directory",
            "hooks": "", "samples_read": 0, "samples_lost": 0, "unmanaged_faults": 0, "no_addr": 0,
            "promotions": {"tried": [0, 0, 0, 0], "succeeded": [0, 0, 0, 0], "failed": [0, 0, 0, 0]}}
for c in d["cgroups"]:
    c.pop("bpf", None)
json.dump(d, open(sys.argv[3], "w"))
del d["bpf"]
json.dump(d, open(sys.argv[4], "w"))
PYEOF
$TIERCTL status --state-file "$T/bpf.json" >"$T/sbpf"
expect_eq "$?" 0 "tierctl status with BPF running"
expect_eq "$(tail -n +"$((n + 1))" "$T/sbpf")" "
DAMON: running, 4 kdamonds (1 restart)
BPF: running (hooks: numa_fault=btf fault_addr=btf numa_scan=btf migrate=tracepoint), 1345 samples read, 1 lost

HINT FAULTS (BPF sampler, since each cgroup was first managed)
CGROUP                             TIER     FAULTS    SAMPLES      DROPS
/workload.slice/batch-1.scope         0          0          0          0
                                      1          0          0          0
                                      2          0          0          0
                                      3          0          0          0
/workload.slice/db.service            0          0          0          0
                                      1       1200       1000        200
                                      2          0          0          0
                                      3        345        345          0

MIGRATIONS (since tierd started)
PATH                 REQUESTS      TRIED  SUCCEEDED     FAILED
damos_migrate_cold          3     512.0M     500.0M      12.0M
damos_migrate_hot           0         0B         0B         0B
memory_reclaim              0         0B         0B         0B
move_pages                  2      12.0K       8.0K       4.0K

MOVED BETWEEN TIERS (row: from, column: to)
FROM          0          1          2          3
0             -         0B         0B     500.0M
1            0B          -         0B         0B
2            0B         0B          -         0B
3          8.0K         0B         0B          -

SAMPLED PROMOTIONS (pages, since tierd started)
TO TIER      TRIED  SUCCEEDED     FAILED
0             1000        990         10
1               24         24          0
2                0          0          0
3                0          0          0
move_pages batches: 57 (last 2.3 ms, longest 618.0 ms), 2 stopped at their deadline, 1 tick waited for one" "tierctl status with BPF running"
$TIERCTL status --state-file "$T/nobpf.json" >"$T/snobpf"
expect_eq "$(tail -n +"$((n + 1))" "$T/snobpf" | head -n 3)" "
DAMON: running, 4 kdamonds (1 restart)
BPF: unavailable: no BTF: /sys/kernel/btf/vmlinux: No such file or directory" "tierctl status with BPF unavailable"
grep -q 'HINT FAULTS\|SAMPLED PROMOTIONS' "$T/snobpf" && no "BPF tables printed while BPF is unavailable" || ok
$TIERCTL status --state-file "$T/prevbpf.json" >"$T/sprevbpf"
expect_eq "$?" 0 "tierctl status with a state file of the release before the BPF sampler"
expect_line "$T/sprevbpf" 'BPF: off'
$TIERCTL status --json --state-file "$T/bpf.json" >"$T/sbpf.json"
expect_eq "$($PY -c 'import json,sys; d=json.load(open(sys.argv[1])); b=d["bpf"]; c={x["path"]: x.get("bpf") for x in d["cgroups"]}; print(b["mode"], b["samples_read"], b["samples_lost"], b["unmanaged_faults"], b["no_addr"], b["promotions"]["failed"], c["/workload.slice/db.service"]["drops"], c["/system.slice/nginx.service"])' "$T/sbpf.json")" \
	"running 1345 1 17 2 [10, 0, 0, 0] [0, 200, 0, 0] None" "status --json BPF state and counters"

# --- topology ---------------------------------------------------------------
$TIERCTL topology --root $FIX/four-tier >"$T/topo"
expect_line "$T/topo" '3     memory_tier337  3              2.0G     896.0M     600ns         -'
expect_line "$T/topo" '0     memory_tier4    0              2.0G     256.0M      80ns       0-1'
$TIERCTL topology --json --root $FIX/four-tier >"$T/topo.json"
expect_eq "$($PY -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["source"], [t["kernel_id"] for t in d["tiers"]], d["nodes"][3]["read_latency_ns"])' "$T/topo.json")" \
	"kernel [4, 15, 84, 337] 600" "topology --json"
printf '{"tiers": ["0-1", "2-3"]}\n' >"$T/override.json"
$TIERCTL topology --root $FIX/four-tier --config "$T/override.json" >"$T/topo2"
expect_line "$T/topo2" '2 tiers (tierd.json override), 4 nodes'

# --- one tier, cgroup v1 ------------------------------------------------------
$TIERD --root $FIX/one-tier --policy-dir "$T/none" --config "$T/nope.json" --once --dry-run \
	--log-target=stderr --metrics-file "$T/m1.prom" --state-file "$T/s1.json" >"$T/out1" 2>"$T/err1"
expect_eq "$?" 1 "explicit missing --config is an error"
expect_grep "$T/err1" "$T/nope.json: cannot read: No such file or directory"
printf '{"log_level": "warning"}\n' >"$T/quiet.json"
$TIERD --root $FIX/one-tier --policy-dir "$T/none" --config "$T/quiet.json" --once --dry-run \
	--log-target=stderr --metrics-file "$T/m1.prom" --state-file "$T/s1.json" >"$T/out1" 2>"$T/err1"
expect_eq "$?" 0 "one-tier machine runs"
expect_grep "$T/err1" 'every node (1) sits in one memory tier (the kernel has no memory_tiering): nothing can move between tiers'
expect_line "$T/m1.prom" 'tierd_cgroups_managed 0'
$TIERD --root $FIX/cgroup-v1 --config "$T/quiet.json" --policy-dir configs/policies.d --once --dry-run \
	--log-target=stderr >"$T/outv1" 2>"$T/errv1"
expect_eq "$?" 1 "cgroup v1 refused"
expect_grep "$T/errv1" 'the memory controller is on a cgroup v1 hierarchy (legacy or hybrid mode): tierd needs the unified cgroup v2 hierarchy; boot with systemd.unified_cgroup_hierarchy=1'

# --- tierctl validate -----------------------------------------------------------
$TIERCTL validate configs/policies.d/*.json configs/tierd.json >"$T/v" 2>&1
expect_eq "$?" 0 "bundled configs validate"
expect_line "$T/v" '4 files valid'
printf '{\n  "name": "x",\n  "match": {"path": "/a"},\n  "tiers": [{"tier": 0, "max": "1Q"}],\n  "sharing": "both"\n}\n' >"$T/bad.json"
$TIERCTL validate "$T/bad.json" 2>"$T/v2"
expect_eq "$?" 1 "broken policy exit status"
expect_line "$T/v2" "$T/bad.json:4:32: tiers[0].max: expected a size such as \"512M\" or \"4G\" (K, M, G, T, P, E), got \"1Q\""
expect_line "$T/v2" "$T/bad.json:5:14: sharing: expected \"island\" or \"pool\", got \"both\""
printf '{"name": "pair", "match": {"path": "/p"}, "tiers": [{"nodes": "0-1", "max": "1G"}]}\n' >"$T/pair.json"
$TIERCTL validate "$T/pair.json" >/dev/null 2>&1
expect_eq "$?" 0 "a node list across tiers is valid without a machine"
$TIERCTL validate --machine --root $FIX/four-tier "$T/pair.json" 2>"$T/v4"
expect_eq "$?" 1 "a node list across tiers is refused on the four-tier machine"
expect_line "$T/v4" "$T/pair.json:1:53: tiers[0]: names no tier of this machine (4 tiers; a node list must lie within one tier)"
expect_line "$T/v4" "1 error"
$TIERCTL validate --machine --root $FIX/four-tier --config "$T/override.json" "$T/pair.json" >/dev/null 2>&1
expect_eq "$?" 0 "validate --machine sees tierd.json's tier override"
$TIERCTL validate --json "$T/bad.json" >"$T/v3"
expect_eq "$($PY -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["valid"], len(d["errors"]))' "$T/v3")" "False 2" "validate --json"

# Hostile policy files: refused, each with the rule it breaks and its name;
# a FIFO nobody writes to does not block (timeout would end it: status 124).
mkfifo "$T/fifo.json"
timeout 10 $TIERCTL validate "$T/fifo.json" 2>"$T/vf"
expect_eq "$?" 1 "a FIFO policy is refused, not waited on"
expect_line "$T/vf" "$T/fifo.json: refused: not a regular file (a FIFO)"
ln -s /dev/zero "$T/zero.json"
$TIERCTL validate "$T/zero.json" 2>"$T/vz"
expect_eq "$?" 1 "a symlink to /dev/zero is refused"
expect_line "$T/vz" "$T/zero.json: refused: not a regular file (a character device)"
cp "$T/pair.json" "$T/gw.json"
chmod 0664 "$T/gw.json"
$TIERCTL validate "$T/gw.json" 2>"$T/vg"
expect_eq "$?" 1 "a group-writable policy is refused"
expect_line "$T/vg" "$T/gw.json: refused: writable by group (mode 0664); run chmod go-w on it"
chmod 0602 "$T/gw.json"
$TIERCTL validate "$T/gw.json" 2>"$T/vo"
expect_line "$T/vo" "$T/gw.json: refused: writable by others (mode 0602); run chmod go-w on it"
rm -f "$T/fifo.json" "$T/zero.json" "$T/gw.json"

# --- the daemon: reload, cgroups coming and going, SIGTERM --------------------
cp -r $FIX/four-tier "$T/root"
mkdir "$T/pol"
cp configs/policies.d/*.json "$T/pol/"
printf '{"tick_interval": "100ms", "log_level": "info"}\n' >"$T/fast.json"
# A stand-in for systemd's notify socket records what tierd tells it.
$PY - "$T/notify.sock" "$T/notify" <<'PYEOF' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(60)
with open(sys.argv[2], "a", buffering=1) as out:
    while True:
        try:
            msg = s.recv(4096).decode()
        except socket.timeout:
            break
        out.write(msg.replace("\n", "|") + "\n")
        if "STOPPING=1" in msg:
            break
PYEOF
listener=$!
i=0; while [ ! -S "$T/notify.sock" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
NOTIFY_SOCKET=$T/notify.sock WATCHDOG_USEC=400000 \
$TIERD --root "$T/root" --config "$T/fast.json" --policy-dir "$T/pol" --log-target=stderr --dry-run \
	--metrics-file "$T/d.prom" --state-file "$T/d.json" 2>"$T/dlog" &
pid=$!
wait_for "$T/d.prom" 'tierd_ticks_total' && ok || no "daemon wrote no metrics"
expect_line "$T/d.prom" 'tierd_policies_loaded 3'

printf '{\n  "name": "broken",\n  "match": {"unit": "ssh.service"},\n  "tiers": [{"tier": 0, "max": "lots"}]\n}\n' >"$T/pol/40-broken.json"
kill -HUP $pid
wait_for "$T/dlog" 'reload refused' && ok || no "bad reload not refused"
expect_grep "$T/dlog" "$T/pol/40-broken.json:4:32: tiers[0].max: expected a size such as \"512M\" or \"4G\" (K, M, G, T, P, E), got \"lots\""
expect_grep "$T/dlog" 'reload refused; the 3 policies loaded before stay in force'
wait_for "$T/d.prom" 'tierd_policy_load_errors_total 1' && ok || no "load error not counted"
expect_line "$T/d.prom" 'tierd_policies_loaded 3'
expect_line "$T/d.prom" 'tierd_cgroups_managed 4'

printf '{"name": "ssh", "match": {"unit": "ssh.service"}, "tiers": [{"tier": 0, "max": "4M"}]}\n' >"$T/pol/40-broken.json"
kill -HUP $pid
wait_for "$T/dlog" 'reloaded: 4 policies' && ok || no "good reload not taken"
wait_for "$T/d.prom" 'tierd_cgroups_managed 5' && ok || no "new policy not applied"
expect_grep "$T/dlog" 'cgroup /system.slice/ssh.service is over its tier 0 budget by 2.0M: holds 6.0M, max 4.0M (policy ssh)'

cp -r "$T/root/sys/fs/cgroup/workload.slice/batch-2.scope" "$T/root/sys/fs/cgroup/workload.slice/batch-3.scope"
wait_for "$T/d.prom" 'tierd_cgroups_managed 6' && ok || no "new cgroup not picked up"
expect_grep "$T/dlog" 'cgroup /workload.slice/batch-3.scope is managed by policy batch (strategy hmmv, pool)'
rm -rf "$T/root/sys/fs/cgroup/workload.slice/batch-3.scope"
wait_for "$T/d.prom" 'tierd_cgroups_managed 5' && ok || no "removed cgroup still managed"
expect_grep "$T/dlog" 'cgroup /workload.slice/batch-3.scope is no longer managed'

# A cgroup whose file turns malformed is skipped, warned about once, and
# picked up again when the file is fine; no dropped/managed churn.
DB=$T/root/sys/fs/cgroup/workload.slice/db.service
cp "$DB/memory.stat" "$T/db.stat"
printf 'anon 1\nfile\n' >"$DB/memory.stat"
wait_for "$T/d.prom" 'tierd_cgroups_managed 4' && ok || no "malformed cgroup not skipped"
sleep 0.5
cp "$T/db.stat" "$DB/memory.stat"
wait_for "$T/dlog" "cgroup /workload.slice/db.service can be read again" && ok || no "cgroup not read again"
wait_for "$T/d.prom" 'tierd_cgroups_managed 5' && ok || no "cgroup not managed again"
expect_eq "$(grep -c 'db.service skipped until its files can be read: /workload.slice/db.service/memory.stat:2: expected "key value"' "$T/dlog")" 1 "unreadable warning logged once"
grep -q 'db.service is no longer managed' "$T/dlog" && no "unreadable cgroup logged as dropped" || ok

# A node whose meminfo turns malformed leaves every free figure as it was
# (no half-refreshed topology), with one warning, not one a tick.
N1=$T/root/sys/devices/system/node/node1/meminfo
cp "$N1" "$T/node1.meminfo"
sed -i 's/MemFree/MemFreX/' "$N1"
wait_for "$T/dlog" 'free memory per node not updated' && ok || no "broken meminfo not reported"
sleep 0.3
expect_line "$T/d.prom" 'tierd_tier_free_bytes{tier="1",nodes="1"} 536870912'
expect_line "$T/d.prom" 'tierd_tier_free_bytes{tier="3",nodes="3"} 939524096'
grep -q "node1/meminfo: expected \"Node N MemTotal:\" and \"MemFree:\" lines" "$T/dlog" && ok || no "meminfo error names the file"
expect_eq "$(grep -c 'free memory per node not updated' "$T/dlog")" 1 "meminfo warning logged once"
cp "$T/node1.meminfo" "$N1"
wait_for "$T/dlog" 'free memory per node read again' && ok || no "meminfo recovery not logged"

# Logged once, not every tick: 100 ms ticks have run many times by now.
expect_eq "$(grep -c 'db.service is over its tier 0 budget' "$T/dlog")" 1 "over-budget logged once"

kill -TERM $pid
wait $pid
expect_eq "$?" 0 "daemon exit status after SIGTERM"
expect_grep "$T/dlog" 'stopping after'
wait $listener
N=$T/notify
expect_eq "$(grep -v '^WATCHDOG=1$' "$N" | head -n 1)" 'READY=1|STATUS=4 tiers, 4 cgroups managed, 1 over budget, dry run' "first notification"
expect_eq "$(grep -c '^RELOADING=1|MONOTONIC_USEC=[0-9][0-9]*$' "$N")" 2 "RELOADING=1 with MONOTONIC_USEC per reload"
expect_eq "$(grep -A1 '^RELOADING=1' "$N" | grep -c '^READY=1$')" 2 "READY=1 after each reload"
grep -q '^WATCHDOG=1$' "$N" && ok || no "no watchdog pings with WATCHDOG_USEC set"
expect_eq "$(tail -n 1 "$N")" 'STOPPING=1' "last notification"
grep -q 'ERROR: AddressSanitizer\|runtime error' "$T/dlog" && no "sanitizer report in daemon log" || ok

# --- the systemd unit ---------------------------------------------------------
if command -v systemd-analyze >/dev/null 2>&1; then
	sed -e "s|@SBINDIR@|$PWD/$BUILD|" -e "s|@BINDIR@|$PWD/$BUILD|" units/tierd.service >"$T/tierd.service"
	systemd-analyze verify --man=no "$T/tierd.service" >"$T/verify" 2>&1
	expect_eq "$?" 0 "systemd-analyze verify"
	expect_eq "$(cat "$T/verify")" "" "systemd-analyze verify output"
else
	skip=$((skip + 1))
	echo "SKIP: systemd-analyze not installed" >&2
fi

# --- make install keeps what the operator edited -----------------------------
MAKEFLAGS= make -s install BUILD="$BUILD" DESTDIR="$T/dest" PREFIX=/usr >"$T/inst1" 2>&1
expect_eq "$?" 0 "make install into an empty DESTDIR"
expect_eq "$(ls "$T/dest/etc/tierd/policies.d" | tr '\n' ' ')" "10-web.json 20-db.json 30-batch.json " "example policies installed the first time"
printf '{"log_level": "debug"}\n' >"$T/dest/etc/tierd/tierd.json"
rm "$T/dest/etc/tierd/policies.d/30-batch.json"
MAKEFLAGS= make -s install BUILD="$BUILD" DESTDIR="$T/dest" PREFIX=/usr >"$T/inst2" 2>&1
expect_eq "$?" 0 "make install over an installed tierd"
expect_eq "$(cat "$T/dest/etc/tierd/tierd.json")" '{"log_level": "debug"}' "an edited tierd.json kept"
expect_eq "$(ls "$T/dest/etc/tierd/policies.d" | tr '\n' ' ')" "10-web.json 20-db.json " "a deleted example policy stays deleted"
expect_line "$T/inst2" "kept $T/dest/etc/tierd/tierd.json"
expect_line "$T/inst2" "kept $T/dest/etc/tierd/policies.d"

# --- acting on a copy of the four-tier machine (no DAMON there) ------------
# Without DAMON, memory.reclaim enforces db's tier-0 budget: tierd turns
# demotion on (manage_demotion, the default), asks for the 256M the engine
# planned, and puts demotion_enabled back on exit. The fixture's numa_stat
# does not change, so nothing counts as moved.
cp -r $FIX/four-tier "$T/act"
: >"$T/act/sys/fs/cgroup/workload.slice/db.service/memory.reclaim"
$TIERD --root "$T/act" --config configs/tierd.json --policy-dir configs/policies.d --once \
	--log-target=stderr --metrics-file "$T/act.prom" --state-file "$T/act.json" >"$T/actout" 2>"$T/acterr"
expect_eq "$?" 0 "tierd --once acting on the fixture copy"
expect_eq "$(cat "$T/act/sys/fs/cgroup/workload.slice/db.service/memory.reclaim")" 268435456 "memory.reclaim asked for the planned bytes"
expect_eq "$(cat "$T/act/sys/kernel/mm/numa/demotion_enabled")" false "demotion_enabled restored on exit"
expect_grep "$T/acterr" 'warning: DAMON not used: the kernel has no DAMON sysfs interface (CONFIG_DAMON_SYSFS)'
expect_grep "$T/acterr" 'notice: set demotion_enabled to true for memory.reclaim demotion (restored on exit)'
expect_grep "$T/acterr" 'memory.reclaim of /workload.slice/db.service: asked 268435456 bytes, tier 0 gave up 0'
expect_line "$T/act.prom" 'tierd_migration_tried_bytes_total{path="memory_reclaim"} 268435456'
expect_line "$T/act.prom" 'tierd_migration_failed_bytes_total{path="memory_reclaim"} 268435456'
expect_line "$T/act.prom" 'tierd_damon_mode{mode="absent"} 1'
expect_line "$T/act.prom" 'tierd_dry_run 0'
expect_line "$T/act.prom" 'tierd_bpf_mode{mode="off"} 1'
expect_eq "$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["bpf"]["why"])' "$T/act.json")" \
	"--once: no event loop to read samples in" "--once: the BPF sampler is off, and why"

# Degraded mode, tick after tick: memory.reclaim is asked each tick, its
# outcome logged once (debug lines aside) until it changes.
cp -r $FIX/four-tier "$T/degr"
: >"$T/degr/sys/fs/cgroup/workload.slice/db.service/memory.reclaim"
printf '{"tick_interval": "200ms", "bpf": false}\n' >"$T/degr.conf"
$TIERD --root "$T/degr" --config "$T/degr.conf" --policy-dir configs/policies.d \
	--log-target=stderr --metrics-file "$T/degr.prom" --state-file "$T/degr.json" \
	>/dev/null 2>"$T/degrerr" &
pid=$!
wait_for "$T/degr.prom" 'tierd_migration_requests_total{path="memory_reclaim"} 3' && ok ||
	no "degraded tierd asks memory.reclaim three times"
expect_grep "$T/degr.prom" 'tierd_tick_kernel_wait_max_seconds{step="act"} '
# memory.reclaim runs on its worker: one job a request (db alone is over),
# the two counted in the same metrics file.
cp "$T/degr.prom" "$T/degr1.prom"
expect_eq "$(metric "$T/degr1.prom" tierd_reclaim_jobs_total)" \
	"$(grep -F 'tierd_migration_requests_total{path="memory_reclaim"}' "$T/degr1.prom" | awk '{print $NF}')" \
	"one memory.reclaim job a request"
$TIERCTL status --state-file "$T/degr.json" >"$T/degrstatus"
expect_grep "$T/degrstatus" 'memory.reclaim jobs: '
kill -TERM $pid
wait $pid
expect_eq "$?" 0 "degraded tierd exits 0"
expect_eq "$(grep -c 'memory.reclaim of /workload.slice/db.service: asked 268435456 bytes' "$T/degrerr")" 1 "memory.reclaim outcome logged once over 3 requests"

# --- the BPF sampler where it cannot load ------------------------------------
# The fixture has no kernel BTF: the daemon says so, names the file and
# runs on without the sampler; with "bpf": false it does not try.
cp -r $FIX/four-tier "$T/nobpf"
$TIERD --root "$T/nobpf" --config configs/tierd.json --policy-dir configs/policies.d \
	--log-target=stderr --metrics-file "$T/nobpf.prom" --state-file "$T/nobpf.json" \
	>/dev/null 2>"$T/nobpferr" &
pid=$!
wait_for "$T/nobpf.prom" 'tierd_ticks_total' && ok || no "tierd without BTF ticks"
expect_line "$T/nobpf.prom" 'tierd_bpf_mode{mode="unavailable"} 1'
expect_line "$T/nobpf.prom" 'tierd_up 1'
kill -TERM $pid
wait $pid
expect_eq "$?" 0 "tierd without BTF exits 0"
expect_grep "$T/nobpferr" "warning: BPF sampler not used: $T/nobpf/sys/kernel/btf/vmlinux: cannot read the kernel's BTF (No such file or directory)"
expect_grep "$T/nobpferr" 'promotion relies on DAMON alone'
# Stopped: its metrics are gone, not served as if it ran.
[ -e "$T/nobpf.prom" ] && no "metrics file left after SIGTERM" || ok
printf '{"bpf": false, "damon": false}\n' >"$T/nobpf.conf"
$TIERD --root "$T/nobpf" --config "$T/nobpf.conf" --policy-dir configs/policies.d \
	--log-target=stderr --metrics-file "$T/off.prom" --state-file "$T/off.json" \
	>/dev/null 2>"$T/offerr" &
pid=$!
wait_for "$T/off.prom" 'tierd_ticks_total' && ok || no "tierd with bpf false ticks"
kill -TERM $pid
wait $pid
grep -q 'BPF' "$T/offerr" && no "\"bpf\": false still logs about BPF" || ok
expect_eq "$($TIERCTL status --state-file "$T/off.json" | grep '^BPF')" 'BPF: off: "bpf": false in tierd.json' "tierctl status: BPF off and why"

# --- crash safety: the undo record ---------------------------------------------
# A tierd killed with SIGKILL left numa_balancing 2, the promote rate limit
# 0 and its kdamond 0 running (pid 4242); kdamond 1 runs with pid 777, not
# the 4243 the record names: someone else's now. The next tierd keeps the
# recorded originals, turns off kdamond 0 only, and on exit writes the
# originals back and removes the record.
fake_crash() {
	mkdir -p "$1/proc/sys/kernel" "$1/run/tierd"
	echo 2 >"$1/proc/sys/kernel/numa_balancing"
	echo 0 >"$1/proc/sys/kernel/numa_balancing_promote_rate_limit_MBps"
	K=$1/sys/kernel/mm/damon/admin/kdamonds
	mkdir -p "$K/0" "$K/1"
	echo "$2" >"$K/nr_kdamonds"
	echo 4242 >"$K/0/pid"; echo on >"$K/0/state"
	echo 777 >"$K/1/pid"; echo on >"$K/1/state"
	printf 'tierd-undo 1\npid 999999\nmetrics %s\nsetting numa_balancing 1\nsetting numa_balancing_promote_rate_limit_MBps 65536\nkdamond 0 4242\nkdamond 1 4243\n' \
		"$3" >"$1/run/tierd/undo"
}
cp -r $FIX/four-tier "$T/crash"
fake_crash "$T/crash" 2 "$T/crash-old.prom"
printf '{"bpf": false}\n' >"$T/crash.conf"
$TIERD --root "$T/crash" --config "$T/crash.conf" --policy-dir configs/policies.d --once \
	--log-target=stderr --metrics-file "$T/crash.prom" --state-file "$T/crash.json" >/dev/null 2>"$T/crasherr"
expect_eq "$?" 0 "tierd after a crashed tierd"
expect_grep "$T/crasherr" "notice: tierd (pid 999999) ended without putting the kernel back: taking over its record $T/crash/run/tierd/undo (2 settings, 2 kdamonds)"
expect_grep "$T/crasherr" 'notice: numa_balancing: the original 1 recorded by tierd (pid 999999) is kept and restored on exit (it reads 2 now)'
expect_grep "$T/crasherr" 'notice: numa_balancing_promote_rate_limit_MBps: the original 65536 recorded by tierd (pid 999999) is kept and restored on exit (it reads 0 now)'
expect_grep "$T/crasherr" 'notice: kdamond 0 (pid 4242) left running by tierd (pid 999999) turned off'
expect_grep "$T/crasherr" 'warning: kdamond 1 runs with pid 777, not the recorded 4243: not tierd'"'"'s, left alone'
expect_eq "$(cat "$T/crash/sys/kernel/mm/damon/admin/kdamonds/0/state")" off "the dead tierd's kdamond turned off"
expect_eq "$(cat "$T/crash/sys/kernel/mm/damon/admin/kdamonds/1/state")" on "a stranger's kdamond left on"
expect_eq "$(cat "$T/crash/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds")" 2 "kdamonds not removed beside a stranger's"
expect_eq "$(cat "$T/crash/proc/sys/kernel/numa_balancing")" 1 "numa_balancing: the original from before the crashed tierd"
expect_eq "$(cat "$T/crash/proc/sys/kernel/numa_balancing_promote_rate_limit_MBps")" 65536 "promote rate limit: the original from before the crashed tierd"
[ -e "$T/crash/run/tierd/undo" ] && no "undo record left after a clean exit" || ok

# tierctl cleanup (ExecStopPost=) after a crash: puts all back, removes the
# kdamonds when all are proven tierd's, the metrics file and the record;
# run again, nothing to do.
cp -r $FIX/four-tier "$T/clean"
fake_crash "$T/clean" 1 "$T/clean.prom"
echo 'tierd_up 1' >"$T/clean.prom"
mkdir -p "$T/clean/sys/module/damon_stat/parameters"
echo N >"$T/clean/sys/module/damon_stat/parameters/enabled"
echo Y >"$T/clean/run/tierd/damon_stat.stopped"
$TIERCTL cleanup --root "$T/clean" >"$T/cleanout" 2>"$T/cleanerr"
expect_eq "$?" 0 "tierctl cleanup"
expect_grep "$T/cleanerr" 'numa_balancing restored to 1, as before tierd (pid 999999) changed it'
expect_grep "$T/cleanerr" 'numa_balancing_promote_rate_limit_MBps restored to 65536, as before tierd (pid 999999) changed it'
expect_grep "$T/cleanerr" 'kdamond 0 (pid 4242) of tierd (pid 999999) turned off'
expect_grep "$T/cleanerr" "metrics file $T/clean.prom removed"
expect_eq "$(cat "$T/clean/proc/sys/kernel/numa_balancing") $(cat "$T/clean/sys/kernel/mm/damon/admin/kdamonds/0/state") $(cat "$T/clean/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds")" \
	"1 off 0" "cleanup: numa_balancing, kdamond 0, nr_kdamonds"
[ -e "$T/clean.prom" ] || [ -e "$T/clean/run/tierd/undo" ] && no "cleanup left the metrics file or the record" || ok
expect_grep "$T/cleanerr" 'DAMON_STAT, turned off by tierd, turned on again'
expect_eq "$(cat "$T/clean/sys/module/damon_stat/parameters/enabled")" Y "cleanup turns DAMON_STAT on again"
[ -e "$T/clean/run/tierd/damon_stat.stopped" ] && no "cleanup left the DAMON_STAT record" || ok
$TIERCTL cleanup --root "$T/clean" 2>"$T/cleanerr2"
expect_eq "$?" 0 "tierctl cleanup with nothing to do"
expect_grep "$T/cleanerr2" "nothing to clean up: no $T/clean/run/tierd/undo"
printf 'tierd-undo 1\npid 12\nkdamond 99 1\n' >"$T/clean/run/tierd/undo"
$TIERCTL cleanup --root "$T/clean" 2>"$T/cleanerr3"
expect_eq "$?" 1 "tierctl cleanup of a malformed record"
expect_grep "$T/cleanerr3" "undo record unreadable: $T/clean/run/tierd/undo: line 3: expected \"kdamond INDEX PID\" (INDEX 0..15, PID 1..2147483647)"

# --- reload with a verdict; metrics directory made after start ---------------
mkdir -p "$T/pol2"
cp configs/policies.d/*.json "$T/pol2/"
$TIERD --root $FIX/four-tier --config configs/tierd.json --policy-dir "$T/pol2" --dry-run \
	--runtime-dir "$T/rt" --log-target=stderr --metrics-file "$T/later/m.prom" \
	--state-file "$T/rt.json" >/dev/null 2>"$T/rterr" &
pid=$!
wait_for "$T/rterr" "cannot write metrics to $T/later/m.prom" && ok || no "missing metrics directory reported"
mkdir "$T/later"
wait_for "$T/later/m.prom" 'tierd_up 1' && ok || no "metrics written once the directory exists"
expect_grep "$T/rterr" "writing metrics to $T/later/m.prom again"
$TIERCTL reload --runtime-dir "$T/rt" >"$T/rl1" 2>&1
expect_eq "$?" 0 "tierctl reload of a good set"
expect_eq "$(cat "$T/rl1")" "reloaded: 3 policies from $T/pol2, 4 tiers" "tierctl reload's verdict"
cp "$T/pol2/10-web.json" "$T/gw.txt"
sed 's/"web"/"gw"/; s|"/system.slice/nginx.service"|"/gw"|' "$T/gw.txt" >"$T/pol2/40-gw.json"
chmod 0664 "$T/pol2/40-gw.json"
$TIERCTL reload --runtime-dir "$T/rt" >"$T/rl2" 2>&1
expect_eq "$?" 1 "tierctl reload of a refused set"
expect_eq "$(cat "$T/rl2")" "tierctl: reload refused, the configuration before stays in force: $T/pol2/40-gw.json: refused: writable by group (mode 0664); run chmod go-w on it" "refused reload's reason"
rm "$T/pol2/40-gw.json"
mkfifo "$T/pol2/50-fifo.json"
timeout 20 $TIERCTL reload --runtime-dir "$T/rt" >"$T/rl3" 2>&1
expect_eq "$?" 1 "a FIFO in policies.d refused at reload, not waited on"
expect_grep "$T/rl3" "$T/pol2/50-fifo.json: refused: not a regular file (a FIFO)"
rm "$T/pol2/50-fifo.json"
$TIERCTL reload --runtime-dir "$T/rt" >/dev/null 2>&1
expect_eq "$?" 0 "reload good again"
kill -TERM $pid
wait $pid
expect_eq "$?" 0 "tierd exits 0 after reloads"
[ -e "$T/later/m.prom" ] && no "metrics file left after SIGTERM" || ok

# A reload that would change the tiers while DAMON and the sampler are
# laid out per tier: refused, saying to restart. While it runs, tierctl
# cleanup leaves it alone.
cp -r $FIX/four-tier "$T/tc"
printf '{"bpf": false}\n' >"$T/tc.conf"
$TIERD --root "$T/tc" --config "$T/tc.conf" --policy-dir configs/policies.d \
	--log-target=stderr --metrics-file "$T/tc.prom" --state-file "$T/tc.json" >/dev/null 2>"$T/tcerr" &
pid=$!
wait_for "$T/tc.prom" 'tierd_ticks_total' && ok || no "tierd on the tc copy ticks"
$TIERCTL cleanup --root "$T/tc" 2>"$T/tccl"
expect_eq "$?" 2 "tierctl cleanup while tierd runs"
expect_grep "$T/tccl" "tierd (pid $pid) still runs and puts the kernel back itself when it stops; nothing done"
$TIERD --root "$T/tc" --config "$T/tc.conf" --policy-dir configs/policies.d --once \
	--log-target=stderr --metrics-file "$T/tc2.prom" --state-file "$T/tc2.json" >/dev/null 2>"$T/tc2err"
expect_eq "$?" 1 "a second tierd on the same runtime directory"
expect_grep "$T/tc2err" "tierd (pid $pid) is running with the runtime directory $T/tc/run/tierd; not starting a second one"
[ -e "$T/tc/run/tierd/undo" ] && ok || no "the second tierd removed the running one's undo record"
printf '{"bpf": false, "tiers": ["0-1", "2-3"]}\n' >"$T/tc.conf"
$TIERCTL reload --root "$T/tc" >"$T/rl4" 2>&1
expect_eq "$?" 1 "a reload changing the tiers is refused"
expect_eq "$(cat "$T/rl4")" "tierctl: reload refused, the configuration before stays in force: the memory tiers would change from 0 | 1 | 2 | 3 to 0-1 | 2-3: DAMON and the BPF sampler are laid out per tier at start; restart tierd (systemctl restart tierd) to use the new tiers" "tiers change refused"
kill -TERM $pid
wait $pid
expect_eq "$?" 0 "tierd on the tc copy exits 0"
[ -e "$T/tc/run/tierd/undo" ] && no "undo record left after a clean exit" || ok

# The repository's fixtures are never written.
if git -C . rev-parse --git-dir >/dev/null 2>&1; then
	expect_eq "$(git status --porcelain -- tests/fixtures)" "" "fixtures untouched"
fi

echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
