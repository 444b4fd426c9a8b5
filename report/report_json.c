/* The report as JSON: the daemon's state file and `--json` output. The
 * writer streams text (json_writer.h); the reader, with json-c, accepts
 * what the writer writes and names the first key it cannot use. */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../config/json_text.h"
#include "../policy/util.h"
#include "json_writer.h"
#include "report.h"

/* Room for the longest key prefix, "migrations.paths.damos_migrate_cold.". */
#define KEY_PREFIX_MAX 64
/* Room for every path, DAMON or BPF mode name, joined by ", " (under 80 bytes). */
#define NAME_LIST_MAX 128
/* Room for a tier's node list, "0-3,8,10-11" (nodeset.h). */
#define NODE_LIST_MAX 256

static const char *const source_names[] = {
	[TIERD_TIERS_KERNEL] = "kernel",
	[TIERD_TIERS_CONFIG] = "config",
	[TIERD_TIERS_SINGLE] = "single",
};

static void topology_write(struct tierd_jw *w, const char *key, const struct tierd_topology *topo)
{
	tierd_jw_begin_object(w, key);
	tierd_jw_str(w, "source", source_names[topo->source]);
	tierd_jw_begin_array(w, "nodes");
	for (size_t i = 0; i < topo->nr_nodes; i++) {
		const struct tierd_node *n = &topo->nodes[i];

		tierd_jw_begin_object(w, NULL);
		tierd_jw_int(w, "nid", n->nid);
		tierd_jw_int(w, "tier", n->tier);
		tierd_jw_u64(w, "total_bytes", n->total_bytes);
		tierd_jw_u64(w, "free_bytes", n->free_bytes);
		tierd_jw_str(w, "cpulist", n->cpulist);
		tierd_jw_bool(w, "hmat", n->has_hmat);
		tierd_jw_u64(w, "read_latency_ns", n->read_latency_ns);
		tierd_jw_u64(w, "write_latency_ns", n->write_latency_ns);
		tierd_jw_u64(w, "read_bandwidth_mbps", n->read_bandwidth_mbps);
		tierd_jw_u64(w, "write_bandwidth_mbps", n->write_bandwidth_mbps);
		tierd_jw_end_object(w);
	}
	tierd_jw_end_array(w);
	tierd_jw_begin_array(w, "tiers");
	for (size_t t = 0; t < topo->nr_tiers; t++) {
		const struct tierd_tier *tier = &topo->tiers[t];
		char list[NODE_LIST_MAX];

		if (tierd_nodeset_format(&tier->nodes, list, sizeof(list)) < 0)
			tierd_jw_fail(w, -ENOMEM);
		tierd_jw_begin_object(w, NULL);
		tierd_jw_int(w, "index", (int)t);
		tierd_jw_int(w, "kernel_id", tier->kernel_id);
		tierd_jw_str(w, "nodes", list);
		tierd_jw_u64(w, "total_bytes", tier->total_bytes);
		tierd_jw_u64(w, "free_bytes", tier->free_bytes);
		tierd_jw_u64(w, "read_latency_ns", tier->read_latency_ns);
		tierd_jw_end_object(w);
	}
	tierd_jw_end_array(w);
	tierd_jw_end_object(w);
}

/* One count per tier. */
static void counts_write(struct tierd_jw *w, const char *key, const uint64_t *v, size_t nr_tiers)
{
	tierd_jw_begin_array(w, key);
	for (size_t t = 0; t < nr_tiers; t++)
		tierd_jw_u64(w, NULL, v[t]);
	tierd_jw_end_array(w);
}

static void cgroup_write(struct tierd_jw *w, const struct tierd_report_cgroup *c, size_t nr_tiers)
{
	tierd_jw_begin_object(w, NULL);
	tierd_jw_str(w, "path", c->path);
	tierd_jw_str(w, "policy", c->policy);
	tierd_jw_str(w, "strategy", tierd_strategy_name(c->strategy));
	tierd_jw_str(w, "sharing", c->sharing == TIERD_SHARING_POOL ? "pool" : "island");
	tierd_jw_u64(w, "current_bytes", c->current_bytes);
	tierd_jw_u64(w, "usage_bytes", c->standing.usage_bytes);
	tierd_jw_bool(w, "over_budget", c->standing.over_budget);
	tierd_jw_begin_array(w, "tiers");
	for (size_t t = 0; t < nr_tiers; t++) {
		const struct tierd_tier_standing *ts = &c->standing.tiers[t];

		tierd_jw_begin_object(w, NULL);
		tierd_jw_u64(w, "anon_bytes", ts->anon_bytes);
		tierd_jw_u64(w, "file_bytes", ts->file_bytes);
		if (ts->has_max)
			tierd_jw_u64(w, "max_bytes", ts->max_bytes);
		if (ts->has_min)
			tierd_jw_u64(w, "min_bytes", ts->min_bytes);
		tierd_jw_u64(w, "over_bytes", ts->over_bytes);
		tierd_jw_u64(w, "under_min_bytes", ts->under_min_bytes);
		tierd_jw_end_object(w);
	}
	tierd_jw_end_array(w);
	/* Only a sampled cgroup has counters: its absence says "not sampled". */
	if (c->bpf_sampled) {
		tierd_jw_begin_object(w, "bpf");
		counts_write(w, "faults", c->bpf.faults, nr_tiers);
		counts_write(w, "samples", c->bpf.samples, nr_tiers);
		counts_write(w, "drops", c->bpf.drops, nr_tiers);
		tierd_jw_end_object(w);
	}
	tierd_jw_end_object(w);
}

static void action_write(struct tierd_jw *w, const struct tierd_report *rep,
			 const struct tierd_action *a)
{
	tierd_jw_begin_object(w, NULL);
	tierd_jw_str(w, "kind", a->kind == TIERD_ACTION_MIGRATE ? "migrate" : "demote");
	tierd_jw_str(w, "reason", tierd_reason_name(a->reason));
	if (a->kind == TIERD_ACTION_MIGRATE) {
		tierd_jw_u64(w, "start", a->start);
		tierd_jw_u64(w, "end", a->end);
	}
	tierd_jw_str(w, "cgroup", rep->cgroups[a->cgroup].path);
	tierd_jw_u64(w, "from_tier", a->from_tier);
	tierd_jw_u64(w, "to_tier", a->to_tier);
	tierd_jw_u64(w, "bytes", a->bytes);
	tierd_jw_end_object(w);
}

/* Rows are the tier moved from, columns the tier moved to. */
static void migrations_write(struct tierd_jw *w, const struct tierd_migration_stats *s,
			     size_t nr_tiers)
{
	tierd_jw_begin_object(w, "migrations");
	tierd_jw_begin_object(w, "paths");
	for (int p = 0; p < TIERD_PATH_NR; p++) {
		const struct tierd_path_stats *ps = &s->path[p];

		tierd_jw_begin_object(w, tierd_migration_path_name((enum tierd_migration_path)p));
		tierd_jw_u64(w, "tried_bytes", ps->tried_bytes);
		tierd_jw_u64(w, "succeeded_bytes", ps->succeeded_bytes);
		tierd_jw_u64(w, "failed_bytes", ps->failed_bytes);
		tierd_jw_u64(w, "calls", ps->calls);
		tierd_jw_end_object(w);
	}
	tierd_jw_end_object(w);
	tierd_jw_begin_array(w, "matrix");
	for (size_t from = 0; from < nr_tiers; from++)
		counts_write(w, NULL, s->matrix[from], nr_tiers);
	tierd_jw_end_array(w);
	tierd_jw_end_object(w);
}

static void backend_write(struct tierd_jw *w, const struct tierd_backend_state *b)
{
	tierd_jw_begin_object(w, "backend");
	tierd_jw_str(w, "damon", tierd_damon_mode_name(b->damon));
	tierd_jw_str(w, "damon_why", b->damon_why);
	tierd_jw_u64(w, "kdamonds", b->nr_kdamonds);
	tierd_jw_u64(w, "kdamond_restarts", b->kdamond_restarts);
	tierd_jw_begin_object(w, "tick_kernel_wait");
	tierd_jw_u64(w, "sense_usec", b->sense_wait_usec);
	tierd_jw_u64(w, "sense_max_usec", b->sense_wait_max_usec);
	tierd_jw_u64(w, "act_usec", b->act_wait_usec);
	tierd_jw_u64(w, "act_max_usec", b->act_wait_max_usec);
	tierd_jw_end_object(w);
	tierd_jw_begin_object(w, "damon_worker");
	tierd_jw_u64(w, "late_readings", b->late_readings);
	tierd_jw_u64(w, "skipped_commits", b->skipped_commits);
	tierd_jw_end_object(w);
	tierd_jw_end_object(w);
}

static void reclaim_write(struct tierd_jw *w, const struct tierd_reclaim_stats *r)
{
	tierd_jw_begin_object(w, "memory_reclaim");
	tierd_jw_u64(w, "jobs", r->jobs);
	tierd_jw_u64(w, "busy_ticks", r->busy_ticks);
	tierd_jw_u64(w, "deadline_hits", r->deadline_hits);
	tierd_jw_u64(w, "last_usec", r->last_usec);
	tierd_jw_u64(w, "max_usec", r->max_usec);
	tierd_jw_end_object(w);
}

/* Promotions are indexed by the tier they were sent to. */
static void bpf_write(struct tierd_jw *w, const struct tierd_bpf_state *b, size_t nr_tiers)
{
	tierd_jw_begin_object(w, "bpf");
	tierd_jw_str(w, "mode", tierd_bpf_mode_name(b->mode));
	tierd_jw_str(w, "why", b->why);
	tierd_jw_str(w, "hooks", b->hooks);
	tierd_jw_u64(w, "samples_read", b->samples_read);
	tierd_jw_u64(w, "samples_lost", b->samples_lost);
	tierd_jw_u64(w, "unmanaged_faults", b->unmanaged_faults);
	tierd_jw_u64(w, "no_addr", b->no_addr);
	tierd_jw_begin_object(w, "promotions");
	counts_write(w, "tried", b->promotions.tried, nr_tiers);
	counts_write(w, "succeeded", b->promotions.succeeded, nr_tiers);
	counts_write(w, "failed", b->promotions.failed, nr_tiers);
	tierd_jw_end_object(w);
	tierd_jw_begin_object(w, "move_pages");
	tierd_jw_u64(w, "batches", b->promote_batches);
	tierd_jw_u64(w, "busy_ticks", b->promote_busy_ticks);
	tierd_jw_u64(w, "deadline_hits", b->promote_deadline_hits);
	tierd_jw_u64(w, "last_usec", b->promote_last_usec);
	tierd_jw_u64(w, "max_usec", b->promote_max_usec);
	tierd_jw_end_object(w);
	tierd_jw_end_object(w);
}

/* The plain text as written; pretty text is json-c's rendering of it
 * (tierctl's, once per run). */
static int finish(struct tierd_jw *w, bool pretty, char **ret_text)
{
	_cleanup_free_ char *plain = NULL;
	json_tokener *tok;
	json_object *o;
	enum json_tokener_error jerr;
	size_t end;
	char *copy;
	int r = tierd_jw_finish(w, &plain);

	if (r < 0)
		return r;
	if (!pretty) {
		*ret_text = TIERD_TAKE_PTR(plain);
		return 0;
	}
	tok = json_tokener_new();
	if (!tok)
		return -ENOMEM;
	o = tierd_json_parse_text(tok, plain, strlen(plain), &jerr, &end);
	json_tokener_free(tok);
	if (!o)
		return -ENOMEM;
	copy = strdup(json_object_to_json_string_ext(
		o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	if (!copy)
		return -ENOMEM;
	*ret_text = copy;
	return 0;
}

int tierd_topology_to_json(const struct tierd_topology *topo, bool pretty, char **ret_text)
{
	struct tierd_jw w = { 0 };

	topology_write(&w, NULL, topo);
	return finish(&w, pretty, ret_text);
}

int tierd_report_to_json(const struct tierd_report *rep, bool pretty, char **ret_text)
{
	struct tierd_jw w = { 0 };

	/* The reader refuses a mode without a name: do not write one. */
	if (!tierd_damon_mode_name(rep->backend.damon) || !tierd_bpf_mode_name(rep->bpf.mode))
		return -EINVAL;
	tierd_jw_begin_object(&w, NULL);
	tierd_jw_u64(&w, "realtime_usec", rep->realtime_usec);
	tierd_jw_bool(&w, "dry_run", rep->dry_run);
	tierd_jw_u64(&w, "conflicts", rep->nr_conflicts);
	tierd_jw_u64(&w, "over_budget", rep->nr_over_budget);
	topology_write(&w, "topology", &rep->topo);
	tierd_jw_begin_array(&w, "cgroups");
	for (size_t i = 0; i < rep->nr_cgroups; i++)
		cgroup_write(&w, &rep->cgroups[i], rep->topo.nr_tiers);
	tierd_jw_end_array(&w);
	tierd_jw_begin_array(&w, "plan");
	for (size_t i = 0; i < rep->nr_actions; i++)
		action_write(&w, rep, &rep->actions[i]);
	tierd_jw_end_array(&w);
	migrations_write(&w, &rep->migrations, rep->topo.nr_tiers);
	backend_write(&w, &rep->backend);
	reclaim_write(&w, &rep->reclaim);
	bpf_write(&w, &rep->bpf, rep->topo.nr_tiers);
	tierd_jw_end_object(&w);
	return finish(&w, pretty, ret_text);
}

/* Reader: each getter records the first failing key in the parser. */
struct reader {
	char *err;
	size_t err_size;
	bool failed;
	const char *where; /* prefix of the keys read now, "backend.": the error names the full key */
};

static json_object *get(struct reader *rd, json_object *o, const char *key, json_type type)
{
	json_object *v;

	if (rd->failed)
		return NULL;
	if (!json_object_object_get_ex(o, key, &v) || json_object_get_type(v) != type) {
		snprintf(rd->err, rd->err_size, "key \"%s%s\": missing or of the wrong type", rd->where,
			 key);
		rd->failed = true;
		return NULL;
	}
	return v;
}

static uint64_t get_u64(struct reader *rd, json_object *o, const char *key)
{
	json_object *v = get(rd, o, key, json_type_int);

	return v ? json_object_get_uint64(v) : 0;
}

static int get_int(struct reader *rd, json_object *o, const char *key)
{
	json_object *v = get(rd, o, key, json_type_int);

	return v ? json_object_get_int(v) : 0;
}

static bool get_bool(struct reader *rd, json_object *o, const char *key)
{
	json_object *v = get(rd, o, key, json_type_boolean);

	return v ? json_object_get_boolean(v) : false;
}

static void get_str(struct reader *rd, json_object *o, const char *key, char *buf, size_t size)
{
	json_object *v = get(rd, o, key, json_type_string);

	if (v)
		snprintf(buf, size, "%s", json_object_get_string(v));
}

/* A key a state file of an earlier release lacks: absent is NULL, present
 * with another type an error. */
static json_object *get_opt(struct reader *rd, json_object *o, const char *key, json_type type)
{
	if (rd->failed || !json_object_object_get_ex(o, key, NULL))
		return NULL;
	return get(rd, o, key, type);
}

static bool opt_u64(json_object *o, const char *key, uint64_t *ret)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || json_object_get_type(v) != json_type_int)
		return false;
	*ret = json_object_get_uint64(v);
	return true;
}

static void read_topology(struct reader *rd, json_object *o, struct tierd_topology *topo)
{
	json_object *nodes = get(rd, o, "nodes", json_type_array);
	json_object *tiers = get(rd, o, "tiers", json_type_array);
	char buf[256] = "";

	if (rd->failed)
		return;
	get_str(rd, o, "source", buf, sizeof(buf));
	for (size_t s = 0; s < sizeof(source_names) / sizeof(source_names[0]); s++)
		if (strcmp(buf, source_names[s]) == 0)
			topo->source = (enum tierd_tier_source)s;
	topo->nr_nodes = json_object_array_length(nodes);
	topo->nr_tiers = json_object_array_length(tiers);
	if (topo->nr_nodes > TIERD_MAX_NODES || topo->nr_tiers > TIERD_MAX_TIERS) {
		snprintf(rd->err, rd->err_size, "more nodes or tiers than tierd handles");
		rd->failed = true;
		return;
	}
	for (size_t i = 0; i < topo->nr_nodes; i++) {
		json_object *j = json_object_array_get_idx(nodes, i);
		struct tierd_node *n = &topo->nodes[i];

		n->nid = get_int(rd, j, "nid");
		n->tier = get_int(rd, j, "tier");
		n->total_bytes = get_u64(rd, j, "total_bytes");
		n->free_bytes = get_u64(rd, j, "free_bytes");
		get_str(rd, j, "cpulist", n->cpulist, sizeof(n->cpulist));
		n->has_hmat = get_bool(rd, j, "hmat");
		n->read_latency_ns = (uint32_t)get_u64(rd, j, "read_latency_ns");
		n->write_latency_ns = (uint32_t)get_u64(rd, j, "write_latency_ns");
		n->read_bandwidth_mbps = (uint32_t)get_u64(rd, j, "read_bandwidth_mbps");
		n->write_bandwidth_mbps = (uint32_t)get_u64(rd, j, "write_bandwidth_mbps");
	}
	for (size_t t = 0; t < topo->nr_tiers; t++) {
		json_object *j = json_object_array_get_idx(tiers, t);
		struct tierd_tier *tier = &topo->tiers[t];

		tier->kernel_id = get_int(rd, j, "kernel_id");
		get_str(rd, j, "nodes", buf, sizeof(buf));
		if (!rd->failed && tierd_nodeset_parse(buf, &tier->nodes) < 0) {
			snprintf(rd->err, rd->err_size, "key \"nodes\": expected a node list");
			rd->failed = true;
		}
		tier->total_bytes = get_u64(rd, j, "total_bytes");
		tier->free_bytes = get_u64(rd, j, "free_bytes");
		tier->read_latency_ns = (uint32_t)get_u64(rd, j, "read_latency_ns");
	}
}

/* An array of one count per tier under key; the error names the full key. */
static void read_counts(struct reader *rd, json_object *o, const char *key, size_t nr_tiers,
			uint64_t *ret)
{
	json_object *counts = get(rd, o, key, json_type_array);
	bool ok;

	if (rd->failed)
		return;
	ok = json_object_array_length(counts) == nr_tiers;
	for (size_t t = 0; ok && t < nr_tiers; t++) {
		json_object *v = json_object_array_get_idx(counts, t);

		ok = json_object_get_type(v) == json_type_int;
		ret[t] = ok ? json_object_get_uint64(v) : 0;
	}
	if (!ok) {
		snprintf(rd->err, rd->err_size, "key \"%s%s\": expected %zu counts (one per tier)",
			 rd->where, key, nr_tiers);
		rd->failed = true;
	}
}

/* A cgroup the BPF sampler does not sample has no "bpf" key. */
static void read_cgroup_bpf(struct reader *rd, json_object *o, size_t index, size_t nr_tiers,
			    struct tierd_report_cgroup *c)
{
	char where[KEY_PREFIX_MAX];
	json_object *bpf;

	/* "cgroups[" and 20 digits at most: it fits. */
	snprintf(where, sizeof(where), "cgroups[%zu].", index);
	rd->where = where;
	bpf = get_opt(rd, o, "bpf", json_type_object);
	if (!bpf)
		goto out;
	c->bpf_sampled = true;
	snprintf(where, sizeof(where), "cgroups[%zu].bpf.", index);
	read_counts(rd, bpf, "faults", nr_tiers, c->bpf.faults);
	read_counts(rd, bpf, "samples", nr_tiers, c->bpf.samples);
	read_counts(rd, bpf, "drops", nr_tiers, c->bpf.drops);
out:
	rd->where = "";
}

static void read_cgroup(struct reader *rd, json_object *o, size_t index, size_t nr_tiers,
			struct tierd_report_cgroup *c)
{
	json_object *tiers = get(rd, o, "tiers", json_type_array);
	char buf[TIERD_NAME_MAX] = "";

	get_str(rd, o, "path", c->path, sizeof(c->path));
	get_str(rd, o, "policy", c->policy, sizeof(c->policy));
	get_str(rd, o, "strategy", buf, sizeof(buf));
	for (int s = 0; s < TIERD_STRATEGY_NR; s++)
		if (strcmp(buf, tierd_strategy_name((enum tierd_strategy)s)) == 0)
			c->strategy = (enum tierd_strategy)s;
	get_str(rd, o, "sharing", buf, sizeof(buf));
	c->sharing = strcmp(buf, "pool") == 0 ? TIERD_SHARING_POOL : TIERD_SHARING_ISLAND;
	c->current_bytes = get_u64(rd, o, "current_bytes");
	c->standing.usage_bytes = get_u64(rd, o, "usage_bytes");
	c->standing.over_budget = get_bool(rd, o, "over_budget");
	if (rd->failed)
		return;
	if (json_object_array_length(tiers) != nr_tiers) {
		snprintf(rd->err, rd->err_size, "cgroup %s: %zu tiers, the topology has %zu", c->path,
			 json_object_array_length(tiers), nr_tiers);
		rd->failed = true;
		return;
	}
	for (size_t t = 0; t < nr_tiers; t++) {
		json_object *j = json_object_array_get_idx(tiers, t);
		struct tierd_tier_standing *ts = &c->standing.tiers[t];

		ts->anon_bytes = get_u64(rd, j, "anon_bytes");
		ts->file_bytes = get_u64(rd, j, "file_bytes");
		ts->has_max = opt_u64(j, "max_bytes", &ts->max_bytes);
		ts->has_min = opt_u64(j, "min_bytes", &ts->min_bytes);
		ts->over_bytes = get_u64(rd, j, "over_bytes");
		ts->under_min_bytes = get_u64(rd, j, "under_min_bytes");
	}
	read_cgroup_bpf(rd, o, index, nr_tiers, c);
}

static void read_actions(struct reader *rd, json_object *plan, struct tierd_report *rep)
{
	for (size_t i = 0; i < rep->nr_actions && !rd->failed; i++) {
		json_object *j = json_object_array_get_idx(plan, i);
		struct tierd_action *a = &rep->actions[i];
		char path[TIERD_CGROUP_PATH_MAX] = "";
		bool found = false;

		char name[64] = "";

		get_str(rd, j, "kind", name, sizeof(name));
		a->kind = strcmp(name, "migrate") == 0 ? TIERD_ACTION_MIGRATE : TIERD_ACTION_DEMOTE;
		get_str(rd, j, "reason", name, sizeof(name));
		a->reason = TIERD_REASON_NR;
		for (int k = 0; k < TIERD_REASON_NR; k++)
			if (strcmp(name, tierd_reason_name((enum tierd_reason)k)) == 0)
				a->reason = (enum tierd_reason)k;
		if (!rd->failed && a->reason == TIERD_REASON_NR) {
			snprintf(rd->err, rd->err_size, "plan[%zu]: unknown reason \"%s\"", i, name);
			rd->failed = true;
		}
		if (a->kind == TIERD_ACTION_MIGRATE) {
			a->start = get_u64(rd, j, "start");
			a->end = get_u64(rd, j, "end");
		}
		get_str(rd, j, "cgroup", path, sizeof(path));
		for (size_t c = 0; c < rep->nr_cgroups && !found; c++) {
			if (strcmp(rep->cgroups[c].path, path) == 0) {
				a->cgroup = c;
				found = true;
			}
		}
		a->from_tier = get_u64(rd, j, "from_tier");
		a->to_tier = get_u64(rd, j, "to_tier");
		a->bytes = get_u64(rd, j, "bytes");
		if (!rd->failed && (!found || a->from_tier >= rep->topo.nr_tiers ||
				    a->to_tier >= rep->topo.nr_tiers)) {
			snprintf(rd->err, rd->err_size, "plan[%zu]: unknown cgroup or tier", i);
			rd->failed = true;
		}
	}
}

/* Appends ", name" (or "name" to an empty list), as far as it fits. */
static void append_name(char *list, size_t size, const char *name)
{
	size_t len = strlen(list);

	snprintf(list + len, size - len, "%s%s", len ? ", " : "", name);
}

static void read_path_stats(struct reader *rd, json_object *o, struct tierd_path_stats *ps)
{
	ps->tried_bytes = get_u64(rd, o, "tried_bytes");
	ps->succeeded_bytes = get_u64(rd, o, "succeeded_bytes");
	ps->failed_bytes = get_u64(rd, o, "failed_bytes");
	ps->calls = get_u64(rd, o, "calls");
}

static void read_matrix(struct reader *rd, json_object *matrix, size_t nr_tiers,
			struct tierd_migration_stats *s)
{
	bool ok = json_object_array_length(matrix) == nr_tiers;

	for (size_t from = 0; ok && from < nr_tiers; from++) {
		json_object *row = json_object_array_get_idx(matrix, from);

		ok = json_object_get_type(row) == json_type_array &&
		     json_object_array_length(row) == nr_tiers;
		for (size_t to = 0; ok && to < nr_tiers; to++) {
			json_object *cell = json_object_array_get_idx(row, to);

			ok = json_object_get_type(cell) == json_type_int;
			s->matrix[from][to] = ok ? json_object_get_uint64(cell) : 0;
		}
	}
	if (!ok) {
		snprintf(rd->err, rd->err_size,
			 "key \"migrations.matrix\": expected %zu arrays of %zu byte counts (a row and a column per tier)",
			 nr_tiers, nr_tiers);
		rd->failed = true;
	}
}

static void read_migrations(struct reader *rd, json_object *o, size_t nr_tiers,
			    struct tierd_migration_stats *s)
{
	json_object *paths, *matrix;
	char where[KEY_PREFIX_MAX], names[NAME_LIST_MAX] = "";

	rd->where = "migrations.";
	paths = get(rd, o, "paths", json_type_object);
	matrix = get(rd, o, "matrix", json_type_array);
	if (rd->failed)
		goto out;
	json_object_object_foreach(paths, name, val) {
		enum tierd_migration_path p;
		json_object *stats;

		if (tierd_migration_path_parse(name, &p) < 0) {
			for (int i = 0; i < TIERD_PATH_NR; i++)
				append_name(names, sizeof(names),
					    tierd_migration_path_name((enum tierd_migration_path)i));
			snprintf(rd->err, rd->err_size,
				 "key \"migrations.paths.%s\": unknown path; expected one of: %s", name,
				 names);
			rd->failed = true;
			goto out;
		}
		rd->where = "migrations.paths.";
		stats = get(rd, paths, name, json_type_object);
		if (!stats)
			goto out;
		/* A known path's name: it fits. */
		snprintf(where, sizeof(where), "migrations.paths.%s.", name);
		rd->where = where;
		read_path_stats(rd, stats, &s->path[p]);
		if (rd->failed)
			goto out;
	}
	read_matrix(rd, matrix, nr_tiers, s);
out:
	rd->where = "";
}

static void read_reclaim(struct reader *rd, json_object *o, struct tierd_reclaim_stats *r)
{
	rd->where = "memory_reclaim.";
	r->jobs = get_u64(rd, o, "jobs");
	r->busy_ticks = get_u64(rd, o, "busy_ticks");
	r->deadline_hits = get_u64(rd, o, "deadline_hits");
	r->last_usec = get_u64(rd, o, "last_usec");
	r->max_usec = get_u64(rd, o, "max_usec");
	rd->where = "";
}

static void read_backend(struct reader *rd, json_object *o, struct tierd_backend_state *b)
{
	char mode[TIERD_NAME_MAX] = "", names[NAME_LIST_MAX] = "";
	json_object *wait, *worker;
	const char *name;

	rd->where = "backend.";
	get_str(rd, o, "damon", mode, sizeof(mode));
	get_str(rd, o, "damon_why", b->damon_why, sizeof(b->damon_why));
	b->nr_kdamonds = get_u64(rd, o, "kdamonds");
	b->kdamond_restarts = get_u64(rd, o, "kdamond_restarts");
	/* Absent from the state files of releases before it was measured. */
	wait = get_opt(rd, o, "tick_kernel_wait", json_type_object);
	rd->where = "backend.tick_kernel_wait.";
	if (wait) {
		b->sense_wait_usec = get_u64(rd, wait, "sense_usec");
		b->sense_wait_max_usec = get_u64(rd, wait, "sense_max_usec");
		b->act_wait_usec = get_u64(rd, wait, "act_usec");
		b->act_wait_max_usec = get_u64(rd, wait, "act_max_usec");
	}
	rd->where = "backend.";
	worker = get_opt(rd, o, "damon_worker", json_type_object);
	rd->where = "backend.damon_worker.";
	if (worker) {
		b->late_readings = get_u64(rd, worker, "late_readings");
		b->skipped_commits = get_u64(rd, worker, "skipped_commits");
	}
	rd->where = "";
	if (rd->failed || tierd_damon_mode_parse(mode, &b->damon) == 0)
		return;
	for (enum tierd_damon_mode m = TIERD_DAMON_OFF; (name = tierd_damon_mode_name(m)); m++)
		append_name(names, sizeof(names), name);
	snprintf(rd->err, rd->err_size, "key \"backend.damon\": unknown mode \"%s\"; expected one of: %s",
		 mode, names);
	rd->failed = true;
}

static void read_bpf(struct reader *rd, json_object *o, size_t nr_tiers, struct tierd_bpf_state *b)
{
	char mode[TIERD_NAME_MAX] = "", names[NAME_LIST_MAX] = "";
	json_object *promotions, *move_pages;
	const char *name;

	rd->where = "bpf.";
	get_str(rd, o, "mode", mode, sizeof(mode));
	get_str(rd, o, "why", b->why, sizeof(b->why));
	get_str(rd, o, "hooks", b->hooks, sizeof(b->hooks));
	b->samples_read = get_u64(rd, o, "samples_read");
	b->samples_lost = get_u64(rd, o, "samples_lost");
	b->unmanaged_faults = get_u64(rd, o, "unmanaged_faults");
	b->no_addr = get_u64(rd, o, "no_addr");
	promotions = get(rd, o, "promotions", json_type_object);
	rd->where = "bpf.promotions.";
	read_counts(rd, promotions, "tried", nr_tiers, b->promotions.tried);
	read_counts(rd, promotions, "succeeded", nr_tiers, b->promotions.succeeded);
	read_counts(rd, promotions, "failed", nr_tiers, b->promotions.failed);
	/* Absent from the state files of releases before the kernel worker. */
	rd->where = "bpf.";
	move_pages = get_opt(rd, o, "move_pages", json_type_object);
	rd->where = "bpf.move_pages.";
	if (move_pages) {
		b->promote_batches = get_u64(rd, move_pages, "batches");
		b->promote_busy_ticks = get_u64(rd, move_pages, "busy_ticks");
		b->promote_deadline_hits = get_u64(rd, move_pages, "deadline_hits");
		b->promote_last_usec = get_u64(rd, move_pages, "last_usec");
		b->promote_max_usec = get_u64(rd, move_pages, "max_usec");
	}
	rd->where = "";
	if (rd->failed || tierd_bpf_mode_parse(mode, &b->mode) == 0)
		return;
	for (enum tierd_bpf_mode m = TIERD_BPF_OFF; (name = tierd_bpf_mode_name(m)); m++)
		append_name(names, sizeof(names), name);
	snprintf(rd->err, rd->err_size, "key \"bpf.mode\": unknown mode \"%s\"; expected one of: %s",
		 mode, names);
	rd->failed = true;
}

int tierd_report_from_json(const char *text, size_t len, struct tierd_report *out, char *err,
			   size_t err_size)
{
	struct reader rd = { .err = err, .err_size = err_size, .where = "" };
	struct tierd_report rep = { 0 };
	json_object *root, *cgroups, *plan, *topo, *migrations, *backend, *reclaim, *bpf;
	struct json_tokener *tok;
	enum json_tokener_error jerr;
	size_t off;
	int r = -EINVAL;

	tok = json_tokener_new();
	if (!tok)
		return -ENOMEM;
	root = tierd_json_parse_text(tok, text, len, &jerr, &off);
	if (!root) {
		snprintf(err, err_size, "invalid JSON at byte %zu: %s", off, json_tokener_error_desc(jerr));
		json_tokener_free(tok);
		return -EINVAL;
	}
	json_tokener_free(tok);
	rep.realtime_usec = get_u64(&rd, root, "realtime_usec");
	rep.dry_run = get_bool(&rd, root, "dry_run");
	rep.nr_conflicts = get_u64(&rd, root, "conflicts");
	rep.nr_over_budget = get_u64(&rd, root, "over_budget");
	topo = get(&rd, root, "topology", json_type_object);
	cgroups = get(&rd, root, "cgroups", json_type_array);
	plan = get(&rd, root, "plan", json_type_array);
	if (rd.failed)
		goto out;
	read_topology(&rd, topo, &rep.topo);
	rep.nr_cgroups = json_object_array_length(cgroups);
	rep.nr_actions = json_object_array_length(plan);
	rep.cgroups = calloc(rep.nr_cgroups + 1, sizeof(*rep.cgroups));
	rep.actions = calloc(rep.nr_actions + 1, sizeof(*rep.actions));
	if (!rep.cgroups || !rep.actions) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < rep.nr_cgroups && !rd.failed; i++)
		read_cgroup(&rd, json_object_array_get_idx(cgroups, i), i, rep.topo.nr_tiers,
			    &rep.cgroups[i]);
	read_actions(&rd, plan, &rep);
	/* Absent from state files of earlier releases: zeros, DAMON and BPF "off". */
	migrations = get_opt(&rd, root, "migrations", json_type_object);
	backend = get_opt(&rd, root, "backend", json_type_object);
	reclaim = get_opt(&rd, root, "memory_reclaim", json_type_object);
	bpf = get_opt(&rd, root, "bpf", json_type_object);
	if (migrations)
		read_migrations(&rd, migrations, rep.topo.nr_tiers, &rep.migrations);
	if (backend)
		read_backend(&rd, backend, &rep.backend);
	if (reclaim)
		read_reclaim(&rd, reclaim, &rep.reclaim);
	if (bpf)
		read_bpf(&rd, bpf, rep.topo.nr_tiers, &rep.bpf);
	if (rd.failed)
		goto out;
	*out = rep;
	json_object_put(root);
	return 0;
out:
	tierd_report_free(&rep);
	json_object_put(root);
	return r;
}
