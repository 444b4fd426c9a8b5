# Sourced by tests/test_vm.sh: boots scenario kpagecg and checks its results.
# --- kpagecg: per-page cgroup owners from /proc/kpagecgroup (6.12) -----------
tests/vm/boot.sh kpagecg
expect_eq "$?" 0 "kpagecg: VM ran and powered off"
expect_eq "$(res kpagecgroup)" present "kpagecg: /proc/kpagecgroup exists"
expect_eq "$(res node3_ranges)" "0x100000000-0x140000000" "kpagecg: node 3's blocks 32-39 are [4 GiB, 5 GiB)"
expect_eq "$(res node0_ranges)" "0x0-0x40000000" "kpagecg: node 0's blocks 0-7 are [0, 1 GiB)"
expect_eq "$(res kpcount3_rc)" 0 "kpagecg: kpcount on node 3"
expect_eq "$(res anon_n3_bytes)" 67108864 "kpagecg: the hog's 64 MiB are on node 3"
expect_eq "$(res node3_owned_pages)" 16384 "kpagecg: node 3 pages owned by a's inode"
expect_eq "$(res node3_attributed_pages)" 16384 "kpagecg: tierd_attribute, exact"
# Exact too: the 64 MiB are THPs (anon_thp), 512-page runs that sampling
# every 4th page measures without error.
expect_eq "$(res node3_sampled_pages)" 16384 "kpagecg: tierd_attribute, every 4th page"
expect_eq "$(res node3_stride)" 4 "kpagecg: stride for a quarter of the pages"
expect_eq "$(res node3_other_owned_pages)" 0 "kpagecg: nothing else owns node 3 pages"
expect_eq "$(res rootcg_node3_owned_pages)" 0 "kpagecg: the hog's pages are not the root cgroup's"
# Node 0 holds a's other pages: the hog's own anon and file pages and its
# page tables (kernel memory charged to a, which kpagecgroup reports too),
# plus one or two charged kernel pages memory.stat does not itemize (seen:
# +1 and +2; likely the PGD, an order-1 allocation with page table isolation).
a0=$(( ($(res anon_n0_bytes) + $(res file_n0_bytes) + $(res pagetables_bytes)) / 4096 ))
expect_range "$(res node0_owned_pages)" "$a0" $((a0 + 4)) "kpagecg: node 0 pages owned by a"
expect_eq "$(res node0_attributed_pages)" "$(res node0_owned_pages)" "kpagecg: tierd_attribute on node 0"
# The cost of attribution both ways (docs/kernel.md §1.6): reading node 3's
# owners once, against a kdamond's stat schemes with a memcg filter each.
echo "NOTE [$VM_KERNEL]: kpagecg: reading node 3's 262144 page owners took $(res node3_read_cpu_us) us of CPU" >&2
if [ "$(res damos_cost)" != absent ]; then
	for c in 1_0 1_1 8_1; do
		echo "NOTE [$VM_KERNEL]: kpagecg: kdamond over node 3, $(echo $c | sed 's/_1$/ stat scheme(s) with a memcg filter each/; s/_0$/ stat scheme without filter/'): $(res damos_cost_$c | cut -d' ' -f1) ms CPU per second" >&2
	done
	expect_eq "$(res damos_cost_1_1 | cut -d' ' -f2)" 67108864 "kpagecg: sz_filter_passed of a memcg filter: a's 64 MiB on node 3"
	expect_eq "$(res damos_cost_8_1 | cut -d' ' -f2)" 67108864 "kpagecg: the same with eight such schemes"
fi
