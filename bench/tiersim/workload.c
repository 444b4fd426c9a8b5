/* The workloads. Each synthetic one follows a published setup, scaled down:
 *
 * gups         Mole §6.2: a hot subset of 1/6 of
 *              the region (32 GB of 192 GB) takes 95% of the updates.
 * zipf         Mole §6.2's Silo/YCSB-C: read-only, Zipfian theta 0.99, the
 *              ranks scattered over the address space as YCSB's scrambled
 *              Zipfian scatters keys.
 * phase        HMM-V's dynamic hot set (§5 "random
 *              access with a dynamic hot set"): four stages, the hot data in a
 *              different place each stage.
 * alloc-burst  MigFlow's TPC-C on Silo (Results):
 *              the footprint keeps growing (66 GB database, ~270 GB peak, so
 *              a quarter at the start); pages are hot right after allocation,
 *              then ~82% of them cool ("cold 82.3%") and ~18% stay warm.
 * graph        Mole §6.2's Graph500: clustered hot regions that shift from
 *              one traversal iteration to the next.
 * multi-tenant HMM-V §5 multi-VM (four VMs with different hot-set sizes
 *              sharing DRAM, island and pool mode).
 * trace        a recorded trace (bench/README.md has the format). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine.h"
#include "workload.h"

#define PMY_ONE 10000u
#define USEC_PER_SEC 1000000ull

/* gups: Mole §6.2, 32 GB hot of 192 GB, 95:5. */
#define GUPS_HOT_DIV 6u
#define GUPS_HOT_PMY 9500u
/* zipf: YCSB's default Zipfian constant, as Silo's YCSB-C runs it. */
#define ZIPF_THETA 0.99
/* phase: HMM-V's four stages; a hot set of 1/8 fits tier 0 at 1:1:2:2
 * (1/6) but not at 1:1:8:8 (1/18). 90% of accesses to it ("90% access
 * touching X% of pages", HMM-V §5.3). */
#define PHASE_STAGES 4u
#define PHASE_HOT_DIV 8u
#define PHASE_HOT_PMY 9000u
#define PHASE_WRITE_PMY 3000u
/* alloc-burst: MigFlow's TPC-C. The database is a quarter of the peak
 * footprint; a page is in its burst for the first second after allocation
 * (MigFlow's burst queue holds a page about that long); 18% of pages stay
 * warm ("warm 114425" of 646020). Half of the accesses go to the burst,
 * 40% to warm pages, 10% anywhere allocated. */
#define BURST_INITIAL_DIV 4u
#define BURST_WINDOW_USEC (1 * USEC_PER_SEC)
#define BURST_WARM_PMY 1800u
#define BURST_BURST_PMY 5000u
#define BURST_WARM_ACCESS_PMY 4000u
#define BURST_BURST_WRITE_PMY 6000u
#define BURST_OTHER_WRITE_PMY 3000u
/* graph: 8 clusters of 1/64 each (1/8 hot), 85% of accesses to them, each
 * cluster moves by up to half its size either way every iteration (twenty
 * in a default 120 s run; Graph500 runs 64 traversals in Mole §6.2). */
#define GRAPH_CLUSTERS 8u
#define GRAPH_CLUSTER_DIV 64u
#define GRAPH_HOT_PMY 8500u
#define GRAPH_WRITE_PMY 1000u
/* multi-tenant: HMM-V §5 runs four VMs; here their hot sets are 1/3, 1/6,
 * 1/12 and 1/24 of their own memory, so at 1:1:2:2 (tier 0 = 1/6 of the
 * total, an island share of 1/24 = 1/6 of each tenant) the first needs more
 * than its share and the last two much less, as VM1 and VM4 did in HMM-V. */
#define TENANTS 4u
#define TENANT_HOT_PMY 9000u
#define TENANT_WRITE_PMY 3000u
static const uint32_t tenant_hot_div[TENANTS] = { 3, 6, 12, 24 };

static const char *const workload_names[] = {
#define TIERSIM_X(id, name) [id] = name,
	TIERSIM_WORKLOADS(TIERSIM_X)
#undef TIERSIM_X
};

const char *tiersim_workload_name(enum tiersim_workload_kind k)
{
	return (unsigned)k < TIERSIM_WL_NR ? workload_names[k] : "?";
}

int tiersim_workload_parse(const char *name, enum tiersim_workload_kind *ret)
{
	for (unsigned k = 0; k < TIERSIM_WL_NR; k++) {
		if (strcmp(name, workload_names[k]) == 0) {
			*ret = (enum tiersim_workload_kind)k;
			return 0;
		}
	}
	return -EINVAL;
}

uint64_t tiersim_workload_footprint(const struct tiersim_workload *w)
{
	uint64_t total = 0;

	for (size_t c = 0; c < w->nr_cgroups; c++)
		total += w->pages[c];
	return total;
}

/* A start for a hot range of hot pages in [lo, n - hot], from the seed. */
static uint64_t place(uint64_t seed, uint64_t salt, uint64_t n, uint64_t hot, uint64_t lo)
{
	uint64_t hi = n > hot ? n - hot : 0;

	if (lo > hi)
		lo = hi;
	return lo + tiersim_mix64(seed ^ tiersim_mix64(salt)) % (hi - lo + 1);
}

/* Vose's alias method: O(1) draws from the Zipfian over ranks 1..n. */
static int zipf_build(struct tiersim_workload *w, uint64_t n)
{
	double *p = malloc(n * sizeof(*p));
	uint32_t *small = malloc(n * sizeof(*small)), *large = malloc(n * sizeof(*large));
	size_t nr_small = 0, nr_large = 0;
	double sum = 0;
	int r = -ENOMEM;

	w->alias_prob = malloc(n * sizeof(*w->alias_prob));
	w->alias = malloc(n * sizeof(*w->alias));
	w->rank_page = malloc(n * sizeof(*w->rank_page));
	if (!p || !small || !large || !w->alias_prob || !w->alias || !w->rank_page)
		goto out;
	for (uint64_t k = 0; k < n; k++)
		sum += p[k] = 1.0 / pow((double)(k + 1), ZIPF_THETA);
	for (uint64_t k = 0; k < n; k++) {
		p[k] = p[k] / sum * (double)n;
		if (p[k] < 1.0)
			small[nr_small++] = (uint32_t)k;
		else
			large[nr_large++] = (uint32_t)k;
	}
	while (nr_small && nr_large) {
		uint32_t s = small[--nr_small], l = large[--nr_large];

		w->alias_prob[s] = p[s];
		w->alias[s] = l;
		p[l] = p[l] + p[s] - 1.0;
		if (p[l] < 1.0)
			small[nr_small++] = l;
		else
			large[nr_large++] = l;
	}
	while (nr_large) {
		uint32_t l = large[--nr_large];

		w->alias_prob[l] = 1.0;
		w->alias[l] = l;
	}
	while (nr_small) {
		uint32_t s = small[--nr_small];

		w->alias_prob[s] = 1.0;
		w->alias[s] = s;
	}
	/* Scrambled: rank -> page by a seeded Fisher-Yates shuffle. */
	for (uint64_t k = 0; k < n; k++)
		w->rank_page[k] = (uint32_t)k;
	for (uint64_t k = n - 1; k > 0; k--) {
		uint64_t j = tiersim_mix64(w->seed ^ (k * 0x9e3779b97f4a7c15ull)) % (k + 1);
		uint32_t t = w->rank_page[k];

		w->rank_page[k] = w->rank_page[j];
		w->rank_page[j] = t;
	}
	r = 0;
out:
	free(p);
	free(small);
	free(large);
	return r;
}

static void graph_move_clusters(struct tiersim_workload *w)
{
	/* A cluster starts in [0, starts) so that it fits in the space. */
	uint64_t starts = w->pages[0] - w->cluster_pages;
	uint64_t half = w->cluster_pages / 2;

	for (size_t i = 0; i < w->nr_clusters; i++) {
		uint64_t step = tiersim_rng_below(&w->rng, 2 * half + 1);

		/* By up to half a cluster either way, wrapping around among
		 * the starts (adding `starts`, not the space's size, keeps the
		 * sum non-negative without moving it). */
		w->cluster_start[i] = (w->cluster_start[i] + starts + step - half) %
				      starts;
	}
}

static int trace_load(struct tiersim_workload *w, const char *path, char *err, size_t err_size);

int tiersim_workload_new(const struct tiersim_workload_config *cfg,
			 struct tiersim_workload **ret, char *err, size_t err_size)
{
	struct tiersim_workload *w;
	uint64_t footprint;
	int r;

	if (!(cfg->scale > 0) || cfg->scale > 1e4) {
		snprintf(err, err_size, "scale: expected a number in (0, 10000], got %g", cfg->scale);
		return -EINVAL;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->kind = cfg->kind;
	w->seed = cfg->seed;
	w->duration_usec = cfg->duration_usec;
	tiersim_rng_seed(&w->rng, cfg->seed, 0x776f726bull /* "work" */);
	footprint = (uint64_t)llround((double)TIERSIM_FOOTPRINT_PAGES * cfg->scale);
	if (footprint < 256)
		footprint = 256; /* enough pages for every workload's shape */
	w->rate_per_sec = (uint64_t)llround((double)TIERSIM_ACCESSES_PER_SEC * cfg->scale);
	if (!w->rate_per_sec)
		w->rate_per_sec = 1;
	w->nr_cgroups = 1;
	w->pages[0] = footprint;
	w->prefault_pages[0] = footprint;

	switch (cfg->kind) {
	case TIERSIM_WL_GUPS:
		/* The hot set starts past the first third, so first touch does
		 * not hand it tier 0 for free. */
		w->hot_pages[0] = footprint / GUPS_HOT_DIV;
		w->hot_start[0] = place(w->seed, 1, footprint, w->hot_pages[0], footprint / 3);
		w->hot_pmy = GUPS_HOT_PMY;
		w->write_pmy = PMY_ONE; /* read-modify-write updates */
		break;
	case TIERSIM_WL_ZIPF:
		r = zipf_build(w, footprint);
		if (r < 0)
			goto fail;
		break;
	case TIERSIM_WL_PHASE:
		w->hot_pages[0] = footprint / PHASE_HOT_DIV;
		w->hot_start[0] = place(w->seed, 100, footprint, w->hot_pages[0], footprint / 3);
		w->hot_pmy = PHASE_HOT_PMY;
		w->write_pmy = PHASE_WRITE_PMY;
		break;
	case TIERSIM_WL_ALLOC_BURST:
		w->prefault_pages[0] = footprint / BURST_INITIAL_DIV;
		w->frontier = w->prefault_pages[0];
		break;
	case TIERSIM_WL_GRAPH:
		w->nr_clusters = GRAPH_CLUSTERS;
		w->cluster_pages = footprint / GRAPH_CLUSTER_DIV;
		for (size_t i = 0; i < w->nr_clusters; i++)
			w->cluster_start[i] = place(w->seed, 200 + i, footprint, w->cluster_pages, 0);
		w->hot_pmy = GRAPH_HOT_PMY;
		w->write_pmy = GRAPH_WRITE_PMY;
		break;
	case TIERSIM_WL_MULTI_TENANT:
		w->nr_cgroups = TENANTS;
		for (size_t c = 0; c < TENANTS; c++) {
			w->pages[c] = footprint / TENANTS;
			w->prefault_pages[c] = w->pages[c];
			w->hot_pages[c] = w->pages[c] / tenant_hot_div[c];
			w->hot_start[c] = place(w->seed, 300 + c, w->pages[c], w->hot_pages[c],
						w->pages[c] / 3);
		}
		w->hot_pmy = TENANT_HOT_PMY;
		w->write_pmy = TENANT_WRITE_PMY;
		break;
	case TIERSIM_WL_TRACE:
		if (!cfg->trace_path) {
			snprintf(err, err_size, "trace: no file given");
			r = -EINVAL;
			goto fail;
		}
		r = trace_load(w, cfg->trace_path, err, err_size);
		if (r < 0)
			goto fail;
		break;
	case TIERSIM_WL_NR:
	default:
		snprintf(err, err_size, "workload: unknown kind %d", (int)cfg->kind);
		r = -EINVAL;
		goto fail;
	}
	*ret = w;
	return 0;
fail:
	tiersim_workload_free(w);
	return r;
}

void tiersim_workload_free(struct tiersim_workload *w)
{
	if (!w)
		return;
	free(w->alias_prob);
	free(w->alias);
	free(w->rank_page);
	free(w->records);
	free(w);
}

static bool coin(struct tiersim_workload *w, uint32_t pmy)
{
	return tiersim_rng_below(&w->rng, PMY_ONE) < pmy;
}

static uint64_t hot_or_cold(struct tiersim_workload *w, size_t c)
{
	if (coin(w, w->hot_pmy))
		return w->hot_start[c] + tiersim_rng_below(&w->rng, w->hot_pages[c]);
	return tiersim_rng_below(&w->rng, w->pages[c]);
}

static bool burst_warm(const struct tiersim_workload *w, uint64_t page)
{
	return tiersim_mix64(w->seed ^ (page * 0xd1b54a32d192ed03ull)) % PMY_ONE < BURST_WARM_PMY;
}

static void alloc_burst_next(struct tiersim_workload *w, uint64_t t, struct tiersim_access *a)
{
	uint64_t n = w->pages[0], initial = w->prefault_pages[0];
	uint64_t growth = n - initial;
	uint64_t burst_pages, roll;

	/* Page j >= initial is allocated at (j - initial) / growth of the run. */
	if (w->frontier < n &&
	    (unsigned __int128)(w->frontier - initial) * w->duration_usec <=
		    (unsigned __int128)t * growth) {
		a->page = w->frontier++;
		a->write = true;
		return;
	}
	burst_pages = growth && w->duration_usec
			      ? (uint64_t)((unsigned __int128)growth * BURST_WINDOW_USEC /
					   w->duration_usec)
			      : 0;
	if (!burst_pages)
		burst_pages = 1;
	roll = tiersim_rng_below(&w->rng, PMY_ONE);
	if (roll < BURST_BURST_PMY && w->frontier > initial) {
		uint64_t lo = w->frontier - initial > burst_pages ? w->frontier - burst_pages : initial;

		a->page = lo + tiersim_rng_below(&w->rng, w->frontier - lo);
		a->write = coin(w, BURST_BURST_WRITE_PMY);
		return;
	}
	a->write = coin(w, BURST_OTHER_WRITE_PMY);
	if (roll < BURST_BURST_PMY + BURST_WARM_ACCESS_PMY) {
		/* A warm page, by rejection: about one in five draws is one. */
		for (int tries = 0; tries < 64; tries++) {
			a->page = tiersim_rng_below(&w->rng, w->frontier);
			if (burst_warm(w, a->page))
				return;
		}
		return;
	}
	a->page = tiersim_rng_below(&w->rng, w->frontier);
}

int tiersim_workload_next(struct tiersim_workload *w, uint64_t until_usec,
			  struct tiersim_access *a)
{
	uint64_t t;

	if (w->kind == TIERSIM_WL_TRACE) {
		if (w->record >= w->nr_records || w->records[w->record].time_usec >= until_usec)
			return 0;
		*a = w->records[w->record++];
		return 1;
	}
	t = (uint64_t)((unsigned __int128)w->next * USEC_PER_SEC / w->rate_per_sec);
	if (t >= until_usec || t >= w->duration_usec)
		return 0;
	w->next++;
	a->time_usec = t;
	a->cgroup = 0;
	a->write = false;
	switch (w->kind) {
	case TIERSIM_WL_GUPS:
		a->page = hot_or_cold(w, 0);
		a->write = coin(w, w->write_pmy);
		break;
	case TIERSIM_WL_ZIPF: {
		uint64_t k = tiersim_rng_below(&w->rng, w->pages[0]);

		if (tiersim_rng_double(&w->rng) >= w->alias_prob[k])
			k = w->alias[k];
		a->page = w->rank_page[k];
		break;
	}
	case TIERSIM_WL_PHASE: {
		uint64_t stage_usec = w->duration_usec / PHASE_STAGES;
		uint64_t phase = stage_usec ? t / stage_usec : 0;

		if (phase != w->phase) {
			w->phase = phase;
			w->hot_start[0] = place(w->seed, 100 + phase, w->pages[0], w->hot_pages[0], 0);
		}
		a->page = hot_or_cold(w, 0);
		a->write = coin(w, w->write_pmy);
		break;
	}
	case TIERSIM_WL_ALLOC_BURST:
		alloc_burst_next(w, t, a);
		break;
	case TIERSIM_WL_GRAPH: {
		uint64_t iteration = t / TIERSIM_GRAPH_ITERATION_USEC;

		while (w->phase < iteration) {
			w->phase++;
			graph_move_clusters(w);
		}
		if (coin(w, w->hot_pmy)) {
			size_t i = (size_t)tiersim_rng_below(&w->rng, w->nr_clusters);

			a->page = w->cluster_start[i] + tiersim_rng_below(&w->rng, w->cluster_pages);
		} else {
			a->page = tiersim_rng_below(&w->rng, w->pages[0]);
		}
		a->write = coin(w, w->write_pmy);
		break;
	}
	case TIERSIM_WL_MULTI_TENANT:
		a->cgroup = (uint32_t)tiersim_rng_below(&w->rng, w->nr_cgroups);
		a->page = hot_or_cold(w, a->cgroup);
		a->write = coin(w, w->write_pmy);
		break;
	case TIERSIM_WL_TRACE:
	case TIERSIM_WL_NR:
		return 0;
	}
	return 1;
}

/* Trace replay. Each cgroup's distinct pages are packed into a dense
 * address space in their original order, so gaps in a recorded address
 * space cost nothing. */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int trace_parse_line(struct tiersim_workload *w, char *line, unsigned long lineno,
			    struct tiersim_access *a, char *err, size_t err_size)
{
	char *save = NULL, *end;
	char *ts = strtok_r(line, " \t\r\n", &save);
	char *cg = ts ? strtok_r(NULL, " \t\r\n", &save) : NULL;
	char *addr = cg ? strtok_r(NULL, " \t\r\n", &save) : NULL;
	char *kind = addr ? strtok_r(NULL, " \t\r\n", &save) : NULL;
	size_t c;

	if (!ts || ts[0] == '#')
		return 0;
	if (!kind || strtok_r(NULL, " \t\r\n", &save)) {
		snprintf(err, err_size, "line %lu: expected \"time_usec cgroup addr r|w\"", lineno);
		return -EINVAL;
	}
	errno = 0;
	a->time_usec = strtoull(ts, &end, 10);
	if (errno || *end || ts[0] == '-') {
		snprintf(err, err_size, "line %lu: time_usec: expected an integer, got \"%s\"",
			 lineno, ts);
		return -EINVAL;
	}
	errno = 0;
	a->page = strtoull(addr, &end, 0) / TIERSIM_PAGE_BYTES;
	if (errno || *end || addr[0] == '-') {
		snprintf(err, err_size, "line %lu: addr: expected an address, got \"%s\"",
			 lineno, addr);
		return -EINVAL;
	}
	if (strcmp(kind, "r") && strcmp(kind, "w") && strcmp(kind, "R") && strcmp(kind, "W")) {
		snprintf(err, err_size, "line %lu: expected r or w, got \"%s\"", lineno, kind);
		return -EINVAL;
	}
	a->write = kind[0] == 'w' || kind[0] == 'W';
	if (strlen(cg) >= sizeof(w->cgroup_names[0])) {
		snprintf(err, err_size, "line %lu: cgroup name longer than %zu bytes", lineno,
			 sizeof(w->cgroup_names[0]) - 1);
		return -EINVAL;
	}
	for (c = 0; c < w->nr_cgroups; c++)
		if (strcmp(w->cgroup_names[c], cg) == 0)
			break;
	if (c == w->nr_cgroups) {
		if (c == TIERSIM_MAX_CGROUPS) {
			snprintf(err, err_size, "line %lu: more than %d cgroups", lineno,
				 TIERSIM_MAX_CGROUPS);
			return -EINVAL;
		}
		strcpy(w->cgroup_names[c], cg);
		w->nr_cgroups++;
	}
	a->cgroup = (uint32_t)c;
	return 1;
}

static int trace_load(struct tiersim_workload *w, const char *path, char *err, size_t err_size)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t line_size = 0, cap = 0;
	unsigned long lineno = 0;
	uint64_t *pages[TIERSIM_MAX_CGROUPS] = { NULL };
	int r = 0;

	if (!f) {
		r = -errno;
		snprintf(err, err_size, "%s: %s", path, strerror(errno));
		return r;
	}
	w->nr_cgroups = 0;
	memset(w->pages, 0, sizeof(w->pages));
	memset(w->prefault_pages, 0, sizeof(w->prefault_pages));
	while (getline(&line, &line_size, f) >= 0) {
		struct tiersim_access a = { 0 };

		lineno++;
		r = trace_parse_line(w, line, lineno, &a, err, err_size);
		if (r < 0)
			goto out;
		if (r == 0)
			continue;
		if (w->nr_records && a.time_usec < w->records[w->nr_records - 1].time_usec) {
			snprintf(err, err_size, "line %lu: time_usec goes back (%" PRIu64 " after %"
				 PRIu64 ")", lineno, a.time_usec,
				 w->records[w->nr_records - 1].time_usec);
			r = -EINVAL;
			goto out;
		}
		if (w->nr_records == cap) {
			size_t ncap = cap ? cap * 2 : 4096;
			struct tiersim_access *n = realloc(w->records, ncap * sizeof(*n));

			if (!n) {
				r = -ENOMEM;
				goto out;
			}
			w->records = n;
			cap = ncap;
		}
		w->records[w->nr_records++] = a;
	}
	if (ferror(f)) {
		r = -EIO;
		snprintf(err, err_size, "%s: read error", path);
		goto out;
	}
	if (!w->nr_records) {
		snprintf(err, err_size, "%s: no accesses", path);
		r = -EINVAL;
		goto out;
	}
	/* Dense page numbers: sorted distinct pages per cgroup. */
	for (size_t c = 0; c < w->nr_cgroups; c++) {
		pages[c] = malloc(w->nr_records * sizeof(**pages));
		if (!pages[c]) {
			r = -ENOMEM;
			goto out;
		}
	}
	for (size_t i = 0; i < w->nr_records; i++) {
		const struct tiersim_access *a = &w->records[i];

		pages[a->cgroup][w->pages[a->cgroup]++] = a->page;
	}
	for (size_t c = 0; c < w->nr_cgroups; c++) {
		uint64_t n = 0;

		qsort(pages[c], w->pages[c], sizeof(**pages), cmp_u64);
		for (uint64_t i = 0; i < w->pages[c]; i++)
			if (!n || pages[c][n - 1] != pages[c][i])
				pages[c][n++] = pages[c][i];
		w->pages[c] = n;
		w->prefault_pages[c] = 0;
	}
	for (size_t i = 0; i < w->nr_records; i++) {
		struct tiersim_access *a = &w->records[i];
		const uint64_t *p = pages[a->cgroup];
		uint64_t lo = 0, hi = w->pages[a->cgroup];

		while (lo < hi) {
			uint64_t mid = (lo + hi) / 2;

			if (p[mid] < a->page)
				lo = mid + 1;
			else
				hi = mid;
		}
		a->page = lo;
	}
	w->duration_usec = w->records[w->nr_records - 1].time_usec + 1;
	r = 0;
out:
	for (size_t c = 0; c < TIERSIM_MAX_CGROUPS; c++)
		free(pages[c]);
	free(line);
	fclose(f);
	return r;
}
