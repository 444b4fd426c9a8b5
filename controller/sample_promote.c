/* Promotions of sampled pages; see sample_promote.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "sample_promote.h"

int tierd_sample_promoter_init(struct tierd_sample_promoter *p, const struct tierd_move_pages_ops *ops,
			       void *ops_data, struct tierd_sample_pages *pages)
{
	*p = (struct tierd_sample_promoter){ .ops = ops, .ops_data = ops_data, .pages = pages };
	p->retry = calloc(TIERD_PROMOTE_RETRY_MAX, sizeof(*p->retry));
	return p->retry ? 0 : -ENOMEM;
}

void tierd_sample_promoter_free(struct tierd_sample_promoter *p)
{
	free(p->retry);
	free(p->feedback);
	memset(p, 0, sizeof(*p));
}

/* The node of tier with the most free memory, or -1 when it has none. */
static int target_node(const struct tierd_topology *topo, size_t tier)
{
	const struct tierd_node *best = NULL;

	for (size_t i = 0; i < topo->nr_nodes; i++) {
		const struct tierd_node *n = &topo->nodes[i];

		if (n->tier == (int)tier && (!best || n->free_bytes > best->free_bytes))
			best = n;
	}
	return best ? best->nid : -1;
}

static int cmp_item(const void *a, const void *b)
{
	const struct tierd_promote_item *x = a, *y = b;

	if (x->cgroup_id != y->cgroup_id)
		return x->cgroup_id < y->cgroup_id ? -1 : 1;
	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->vaddr != y->vaddr)
		return x->vaddr < y->vaddr ? -1 : 1;
	/* A page both retried and planned anew: the fewer attempts first. */
	return (x->attempts > y->attempts) - (x->attempts < y->attempts);
}

/* Adds the page behind token, when the table still knows it. */
static void add_item(struct tierd_sample_promoter *p, const struct tierd_topology *topo,
		     struct tierd_promote_item *items, size_t *n, uint64_t token, uint64_t cgroup_id,
		     size_t from_tier, size_t to_tier, uint32_t attempts)
{
	uint64_t vaddr;
	uint32_t tgid;
	int node = target_node(topo, to_tier);

	if (node < 0)
		return;
	if (tierd_sample_pages_lookup(p->pages, token, &tgid, &vaddr) < 0) {
		p->stale++;
		return;
	}
	items[(*n)++] = (struct tierd_promote_item){ .cgroup_id = cgroup_id, .tgid = tgid, .node = node,
				       .vaddr = vaddr, .token = token,
				       .from_tier = (uint32_t)from_tier,
				       .to_tier = (uint32_t)to_tier, .attempts = attempts };
}

static struct tierd_promote_feedback *feedback_of(struct tierd_sample_promoter *p, uint64_t id)
{
	for (size_t i = 0; i < p->nr_feedback; i++)
		if (p->feedback[i].cgroup_id == id)
			return &p->feedback[i];
	p->feedback[p->nr_feedback] = (struct tierd_promote_feedback){ .cgroup_id = id };
	return &p->feedback[p->nr_feedback++];
}

/* The item of group [g, g + n) at vaddr (the group is sorted by vaddr). */
static const struct tierd_promote_item *find_item(const struct tierd_promote_item *g, size_t n, uint64_t vaddr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (g[mid].vaddr < vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && g[lo].vaddr == vaddr ? &g[lo] : NULL;
}

/* What one group's move did, accounted on the tick's thread. */
static void account_group(struct tierd_sample_promoter *p, const struct tierd_topology *topo,
			  const struct tierd_promote_batch *b, const struct tierd_promote_group *gr,
			  struct tierd_migration_stats *stats, struct tierd_promotion_counts *counts,
			  tierd_promote_log_fn log_fn, void *log_data)
{
	const struct tierd_promote_item *g = b->items + gr->first;
	const struct tierd_move_result *res = &gr->res;
	struct tierd_promote_feedback *fb = feedback_of(p, g->cgroup_id);
	const uint64_t *again = b->again + gr->first;
	size_t nr_again = gr->r < 0 ? 0 : gr->nr_again;
	uint64_t tried = gr->n - res->already_on_target;
	uint32_t to = g->to_tier;

	if (gr->r < 0) {
		if (log_fn)
			log_fn(log_data, g->cgroup_id, g->tgid, g->node, gr->r);
		/* The process is gone: so are its pages. */
		if (gr->r == -ESRCH)
			tierd_sample_pages_forget(p->pages, g->tgid);
	}
	tierd_migration_account(stats, TIERD_PATH_MOVE_PAGES, tried * TIERD_PAGE_BYTES,
				res->moved * TIERD_PAGE_BYTES, TIERD_MAX_TIERS, to);
	for (size_t k = 0; k < TIERD_MAX_NODES; k++) {
		int i = res->moved_from_node[k] ? tierd_topology_node_index(topo, (int)k) : -1;
		int from = i < 0 ? -1 : topo->nodes[i].tier;

		if (from >= 0 && from < TIERD_MAX_TIERS && to < TIERD_MAX_TIERS)
			stats->matrix[from][to] += res->moved_from_node[k] * TIERD_PAGE_BYTES;
	}
	if (to < TIERD_MAX_TIERS) {
		counts->tried[to] += tried;
		counts->succeeded[to] += res->moved;
		counts->failed[to] += tried - res->moved;
	}
	fb->promoted_bytes += res->moved * TIERD_PAGE_BYTES;
	fb->failed_bytes += (tried - res->moved) * TIERD_PAGE_BYTES;
	for (size_t i = 0; i < nr_again && p->nr_retry < TIERD_PROMOTE_RETRY_MAX; i++) {
		const struct tierd_promote_item *it = find_item(g, gr->n, again[i]);

		if (!it || it->attempts + 1 >= TIERD_PROMOTE_ATTEMPTS)
			continue;
		p->retry[p->nr_retry++] = (struct tierd_promote_retry){
			.token = it->token, .cgroup_id = it->cgroup_id, .to_tier = it->to_tier,
			.from_tier = it->from_tier, .attempts = it->attempts + 1 };
	}
}

/* A group not tried before the deadline waits for the next batch, its
 * attempts unchanged. */
static void defer_group(struct tierd_sample_promoter *p, const struct tierd_promote_batch *b,
			const struct tierd_promote_group *gr)
{
	for (size_t i = 0; i < gr->n; i++) {
		const struct tierd_promote_item *it = &b->items[gr->first + i];

		p->deferred++;
		if (p->nr_retry >= TIERD_PROMOTE_RETRY_MAX)
			continue;
		p->retry[p->nr_retry++] = (struct tierd_promote_retry){
			.token = it->token, .cgroup_id = it->cgroup_id, .to_tier = it->to_tier,
			.from_tier = it->from_tier, .attempts = it->attempts };
	}
}

/* Per cgroup and tier, the bytes a promotion may still add under the
 * cgroup's max this tick: its ceiling (engine.h) less what it holds and
 * what the plan moves in; UINT64_MAX where no max caps it. NULL on
 * -ENOMEM. */
static uint64_t (*ceiling_room(const struct tierd_engine_input *in,
			       const struct tierd_plan *plan))[TIERD_MAX_TIERS]
{
	uint64_t (*room)[TIERD_MAX_TIERS] = calloc(in->nr_cgroups + 1, sizeof(*room));
	int64_t (*net)[TIERD_MAX_TIERS] = calloc(in->nr_cgroups + 1, sizeof(*net));

	if (!room || !net) {
		free(room);
		free(net);
		return NULL;
	}
	for (size_t i = 0; i < plan->nr_actions; i++) {
		const struct tierd_action *a = &plan->actions[i];

		if (a->cgroup < in->nr_cgroups && a->from_tier < TIERD_MAX_TIERS &&
		    a->to_tier < TIERD_MAX_TIERS) {
			net[a->cgroup][a->to_tier] += (int64_t)a->bytes;
			net[a->cgroup][a->from_tier] -= (int64_t)a->bytes;
		}
	}
	for (size_t c = 0; c < in->nr_cgroups; c++) {
		for (size_t t = 0; t < TIERD_MAX_TIERS; t++) {
			const struct tierd_tier_standing *ts = plan->standings ? &plan->standings[c].tiers[t] : NULL;
			int64_t after;

			room[c][t] = UINT64_MAX;
			if (!ts || !ts->has_max)
				continue;
			after = (int64_t)(ts->anon_bytes + ts->file_bytes) + net[c][t];
			room[c][t] = after < (int64_t)ts->ceiling_bytes ? ts->ceiling_bytes - (uint64_t)after : 0;
		}
	}
	free(net);
	return room;
}

/* Whether a retry into to_tier still fits cgroup id's max, which it then
 * takes from: the engine admitted the page a tick or more ago, and the
 * cgroup may have grown to its max since. */
static bool retry_fits(const struct tierd_engine_input *in, uint64_t (*room)[TIERD_MAX_TIERS],
		       uint64_t id, uint32_t to_tier)
{
	for (size_t c = 0; c < in->nr_cgroups; c++) {
		if (in->cgroups[c].obs->id != id || to_tier >= TIERD_MAX_TIERS)
			continue;
		if (room[c][to_tier] < TIERD_PAGE_BYTES)
			return false;
		if (room[c][to_tier] != UINT64_MAX)
			room[c][to_tier] -= TIERD_PAGE_BYTES;
		return true;
	}
	return true;
}

/* Cuts the sorted items into groups: same cgroup, process and node, each
 * page once, at most TIERD_MOVE_PAGES_BATCH pages (one move_pages call, so
 * that a deadline is checked between calls). Compacts items. */
static int make_groups(struct tierd_promote_batch *b)
{
	size_t n = 0;

	b->groups = calloc(b->nr_items ? b->nr_items : 1, sizeof(*b->groups));
	if (!b->groups)
		return -ENOMEM;
	for (size_t i = 0, k = 0; i < b->nr_items; i = k) {
		struct tierd_promote_item *first = &b->items[i];
		size_t start = n;

		for (k = i; k < b->nr_items && b->items[k].cgroup_id == first->cgroup_id &&
			    b->items[k].tgid == first->tgid && b->items[k].node == first->node;
		     k++)
			if (n == start || b->items[n - 1].vaddr != b->items[k].vaddr)
				b->items[n++] = b->items[k];
		for (size_t g = start; g < n; g += TIERD_MOVE_PAGES_BATCH) {
			size_t len = n - g < TIERD_MOVE_PAGES_BATCH ? n - g : TIERD_MOVE_PAGES_BATCH;

			b->groups[b->nr_groups++] = (struct tierd_promote_group){ .first = g, .n = len };
		}
	}
	b->nr_items = n;
	return 0;
}

int tierd_sample_promote_prepare(struct tierd_sample_promoter *p,
				 const struct tierd_engine_input *in, const struct tierd_plan *plan,
				 struct tierd_promote_batch *b)
{
	uint64_t (*room)[TIERD_MAX_TIERS] = NULL;
	size_t nr_pages = p->nr_retry, n = 0;
	int r = -ENOMEM;

	*b = (struct tierd_promote_batch){ 0 };
	for (size_t i = 0; i < plan->nr_actions; i++) {
		const struct tierd_action *a = &plan->actions[i];

		if (tierd_action_is_sampled(a))
			nr_pages += (a->end - a->start + TIERD_PAGE_BYTES - 1) / TIERD_PAGE_BYTES;
	}
	if (nr_pages) {
		b->items = calloc(nr_pages, sizeof(*b->items));
		b->addrs = calloc(nr_pages, sizeof(*b->addrs));
		b->again = calloc(nr_pages, sizeof(*b->again));
		if (!b->items || !b->addrs || !b->again)
			goto out;
	}
	if (p->nr_retry) {
		room = ceiling_room(in, plan);
		if (!room)
			goto out;
	}
	for (size_t i = 0; i < p->nr_retry; i++) {
		if (!retry_fits(in, room, p->retry[i].cgroup_id, p->retry[i].to_tier)) {
			p->at_max++;
			continue;
		}
		add_item(p, in->topo, b->items, &n, p->retry[i].token, p->retry[i].cgroup_id,
			 p->retry[i].from_tier, p->retry[i].to_tier, p->retry[i].attempts);
	}
	for (size_t i = 0; i < plan->nr_actions; i++) {
		const struct tierd_action *a = &plan->actions[i];

		if (!tierd_action_is_sampled(a))
			continue;
		for (uint64_t t = a->start; t < a->end; t += TIERD_PAGE_BYTES)
			add_item(p, in->topo, b->items, &n, t, in->cgroups[a->cgroup].obs->id,
				 a->from_tier, a->to_tier, 0);
	}
	if (n)
		qsort(b->items, n, sizeof(*b->items), cmp_item);
	b->nr_items = n;
	r = make_groups(b);
	if (r == 0)
		p->nr_retry = 0;
out:
	free(room);
	if (r < 0)
		tierd_promote_batch_free(b);
	return r;
}

void tierd_promote_batch_run(const struct tierd_move_pages_ops *ops, void *ops_data,
			     struct tierd_promote_batch *b, uint64_t deadline_usec)
{
	for (size_t i = 0; i < b->nr_groups; i++) {
		struct tierd_promote_group *gr = &b->groups[i];

		/* The first call is always made: a batch always makes progress. */
		if (i && deadline_usec && tierd_clock_usec(CLOCK_MONOTONIC) >= deadline_usec) {
			b->deadline_hit = true;
			return;
		}
		for (size_t k = 0; k < gr->n; k++)
			b->addrs[gr->first + k] = b->items[gr->first + k].vaddr;
		gr->r = tierd_move_pages(ops, ops_data, (int)b->items[gr->first].tgid,
					 b->addrs + gr->first, gr->n, b->items[gr->first].node,
					 &gr->res, b->again + gr->first, &gr->nr_again);
		gr->ran = true;
		b->nr_ran++;
	}
}

int tierd_sample_promote_finish(struct tierd_sample_promoter *p,
				const struct tierd_topology *topo, struct tierd_promote_batch *b,
				struct tierd_migration_stats *stats,
				struct tierd_promotion_counts *counts, tierd_promote_log_fn log_fn,
				void *log_data)
{
	struct tierd_promote_feedback *fb = NULL;

	if (b->nr_items) {
		fb = calloc(b->nr_items, sizeof(*fb));
		if (!fb) {
			tierd_promote_batch_free(b);
			return -ENOMEM;
		}
	}
	free(p->feedback);
	p->feedback = fb;
	p->nr_feedback = 0;
	if (b->deadline_hit)
		p->deadline_hits++;
	for (size_t i = 0; i < b->nr_groups; i++) {
		if (b->groups[i].ran)
			account_group(p, topo, b, &b->groups[i], stats, counts, log_fn, log_data);
		else
			defer_group(p, b, &b->groups[i]);
	}
	tierd_promote_batch_free(b);
	return 0;
}

void tierd_promote_batch_free(struct tierd_promote_batch *b)
{
	free(b->items);
	free(b->addrs);
	free(b->again);
	free(b->groups);
	*b = (struct tierd_promote_batch){ 0 };
}

void tierd_sample_promoter_consumed(struct tierd_sample_promoter *p)
{
	p->nr_feedback = 0;
}

int tierd_sample_promote(struct tierd_sample_promoter *p, const struct tierd_engine_input *in,
			 const struct tierd_plan *plan, struct tierd_migration_stats *stats,
			 struct tierd_promotion_counts *counts, tierd_promote_log_fn log_fn,
			 void *log_data)
{
	struct tierd_promote_batch b;
	int r = tierd_sample_promote_prepare(p, in, plan, &b);

	if (r < 0)
		return r;
	tierd_promote_batch_run(p->ops, p->ops_data, &b, 0);
	return tierd_sample_promote_finish(p, in->topo, &b, stats, counts, log_fn, log_data);
}
