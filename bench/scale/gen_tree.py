#!/usr/bin/env python3
"""A fixture root for `tierd --root` with N managed Kubernetes containers.

The machine is tests/fixtures/four-tier (its /sys/devices, /sys/kernel and
/proc) with the cgroup tree replaced by what systemd and the kubelet make on
a node: /kubepods.slice/kubepods-<qos>.slice/kubepods-<qos>-pod<uid>.slice/
cri-containerd-<id>.scope, two containers per pod, beside a system.slice of
services. The N burstable containers are managed (policy "pods", written to
OUT/policies.d); the besteffort pods (N/10) and system services are not.
Every cgroup has the files the kernel gives a cgroup with the memory
controller; their contents are the fixture's batch-1.scope (leaves) and
workload.slice (inner cgroups).

usage: gen_tree.py N OUT
"""
import os
import shutil
import sys

FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests",
                       "fixtures", "four-tier")
CG = "sys/fs/cgroup"
CONTAINERS_PER_POD = 2
SYSTEM_SERVICES = 40
BESTEFFORT_ONE_IN = 10


def files_of(path):
    out = {}
    for name in sorted(os.listdir(path)):
        p = os.path.join(path, name)
        if os.path.isfile(p):
            with open(p) as f:
                out[name] = f.read()
    return out


def make(path, files):
    os.makedirs(path)
    for name, text in files.items():
        with open(os.path.join(path, name), "w") as f:
            f.write(text)


def pod(root, qos, k, nr_containers, leaf, inner):
    uid = "%08x_%04x_%04x_%04x_%012x" % (0x5ca1e000 + k, k & 0xffff, 0x4000, 0x8000, k)
    p = os.path.join(root, "kubepods.slice", "kubepods-%s.slice" % qos,
                     "kubepods-%s-pod%s.slice" % (qos, uid))
    make(p, inner)
    for c in range(nr_containers):
        make(os.path.join(p, "cri-containerd-%064x.scope" % (k * CONTAINERS_PER_POD + c)), leaf)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    n, out = int(sys.argv[1]), sys.argv[2]
    root = os.path.join(out, "root")
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns("cgroup"))
    src = os.path.join(FIXTURE, CG)
    leaf = files_of(os.path.join(src, "workload.slice", "batch-1.scope"))
    inner = files_of(os.path.join(src, "workload.slice"))
    cg = os.path.join(root, CG)
    os.makedirs(cg)
    for name, text in files_of(src).items():
        with open(os.path.join(cg, name), "w") as f:
            f.write(text)
    make(os.path.join(cg, "system.slice"), inner)
    for s in range(SYSTEM_SERVICES):
        make(os.path.join(cg, "system.slice", "svc-%d.service" % s), leaf)
    make(os.path.join(cg, "kubepods.slice"), inner)
    for qos in ("burstable", "besteffort"):
        make(os.path.join(cg, "kubepods.slice", "kubepods-%s.slice" % qos), inner)
    for k in range((n + CONTAINERS_PER_POD - 1) // CONTAINERS_PER_POD):
        pod(cg, "burstable", k, min(CONTAINERS_PER_POD, n - k * CONTAINERS_PER_POD), leaf,
            inner)
    for k in range(n // BESTEFFORT_ONE_IN):
        pod(cg, "besteffort", k, 1, leaf, inner)
    pol = os.path.join(out, "policies.d")
    os.makedirs(pol)
    with open(os.path.join(pol, "10-pods.json"), "w") as f:
        f.write('{\n  "name": "pods",\n'
                '  "match": { "glob": "/kubepods.slice/kubepods-burstable.slice/*/cri-containerd-*.scope" },\n'
                '  "tiers": [ { "tier": 0, "max": "25%" } ],\n'
                '  "strategy": "mole",\n  "sharing": "island"\n}\n')


if __name__ == "__main__":
    main()
