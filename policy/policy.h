/* The policy model: what operators write in /etc/tierd/policies.d/NAME.json and
 * /etc/tierd/tierd.json, as plain structs. Reading them (with json-c) is
 * the configuration loader's, config/; nothing in policy/ sees json-c. See
 * tierd-policy(5) and tierd.json(5). */
#ifndef TIERD_POLICY_H
#define TIERD_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nodeset.h"
#include "snapshot.h"

#define TIERD_NAME_MAX 64
#define TIERD_PATTERN_MAX TIERD_CGROUP_PATH_MAX
#define TIERD_MAX_MATCHES 16
#define TIERD_FILE_PATH_MAX 4096

enum tierd_match_kind {
	TIERD_MATCH_PATH,  /* exact cgroup path */
	TIERD_MATCH_GLOB,  /* fnmatch(3) over the path, '/' matched literally */
	TIERD_MATCH_UNIT,  /* systemd unit or slice: last path component */
};

struct tierd_match {
	enum tierd_match_kind kind;
	char pattern[TIERD_PATTERN_MAX];
};

enum tierd_amount_kind {
	TIERD_AMOUNT_BYTES,
	TIERD_AMOUNT_PCT_USAGE,    /* of the cgroup's usage over all tiers */
	TIERD_AMOUNT_PCT_CAPACITY, /* of the tier's capacity */
};

struct tierd_amount {
	enum tierd_amount_kind kind;
	uint64_t bytes;
	uint32_t pmy;
};

enum tierd_tier_selector {
	TIERD_SELECT_INDEX, /* tier index from the fastest, 0 */
	TIERD_SELECT_NODES, /* the tier holding these nodes */
};

struct tierd_tier_budget {
	enum tierd_tier_selector selector;
	int index;
	struct tierd_nodeset nodes;
	struct tierd_amount max;
	bool has_min;
	struct tierd_amount min;
	int line, column;          /* where it was written, for later errors */
};

#define TIERD_STRATEGIES(X)                                                    \
	X(TIERD_STRATEGY_EXCHANGE, "exchange")                                 \
	X(TIERD_STRATEGY_MOLE, "mole")                                         \
	X(TIERD_STRATEGY_MIGFLOW, "migflow")                                   \
	X(TIERD_STRATEGY_HMMV, "hmmv")                                         \
	X(TIERD_STRATEGY_LINUX, "linux")                                       \
	X(TIERD_STRATEGY_AUTOTIERING, "autotiering")                           \
	X(TIERD_STRATEGY_NONE, "none")

enum tierd_strategy {
#define TIERD_X(id, name) id,
	TIERD_STRATEGIES(TIERD_X)
#undef TIERD_X
	TIERD_STRATEGY_NR
};

const char *tierd_strategy_name(enum tierd_strategy s);

/* The strategy of a policy that names none: the best of tierd's in
 * tiersim's `make bench`, where exchange has the lowest mean latency over
 * all seven workloads at both capacity ratios (geometric mean 1.10 times
 * the causal oracle; migflow 1.16, mole 1.47, linux 1.52; README.md). */
#define TIERD_STRATEGY_DEFAULT TIERD_STRATEGY_EXCHANGE

enum tierd_sharing {
	TIERD_SHARING_ISLAND, /* fixed share of the fast tier (HMM-V §3.4) */
	TIERD_SHARING_POOL,   /* fast tier shared by measured need (HMM-V §3.4) */
};

struct tierd_migration_budget {
	uint64_t bytes;        /* per period; 0 = nothing may move */
	uint64_t period_usec;
};

/* The BPF sampler's token bucket when a policy says nothing: bpf/tierd_sampler.h's
 * TIERD_BPF_DEFAULT_RATE_PER_SEC and TIERD_BPF_DEFAULT_BURST, repeated because
 * policy/ does not include bpf/ headers (the daemon asserts that they agree). */
#define TIERD_SAMPLING_DEFAULT_RATE 2000
#define TIERD_SAMPLING_DEFAULT_BURST 500

struct tierd_strategy_params;

struct tierd_policy {
	char name[TIERD_NAME_MAX];
	char file[TIERD_FILE_PATH_MAX];
	size_t nr_matches;
	struct tierd_match matches[TIERD_MAX_MATCHES];
	int priority;
	size_t nr_tiers;
	struct tierd_tier_budget tiers[TIERD_MAX_TIERS];
	enum tierd_strategy strategy;
	char *strategy_params_json;  /* the "params" object, re-serialised; owned */
	/* The same, read once by the loader into the strategy's typed params
	 * (policy/strategy_params.h); owned; NULL: the strategy's defaults. */
	struct tierd_strategy_params *strategy_params;
	bool has_migration_budget;
	struct tierd_migration_budget migration_budget;
	enum tierd_sharing sharing;
	uint32_t sampling_rate;  /* hint-fault samples per second per CPU; always set */
	uint32_t sampling_burst; /* token bucket size per CPU; always set */
};

struct tierd_policy_set {
	size_t nr;
	struct tierd_policy *policies; /* owned, sorted by file name */
};

void tierd_policy_free(struct tierd_policy *p);
void tierd_policy_set_free(struct tierd_policy_set *set);
/* Moves src into dst (freeing dst's old content); src is left empty. */
void tierd_policy_set_move(struct tierd_policy_set *dst, struct tierd_policy_set *src);

/* Does policy p match the cgroup at path? */
bool tierd_policy_matches(const struct tierd_policy *p, const char *cgroup_path);

enum tierd_pick {
	TIERD_PICK_NONE,      /* no policy matches */
	TIERD_PICK_ONE,       /* *ret_policy is the winner */
	TIERD_PICK_CONFLICT,  /* two policies of the same top priority match */
};
/* Picks the policy for a cgroup: the highest priority wins. On a tie
 * *ret_policy and *ret_other name the two conflicting policies. */
enum tierd_pick tierd_policy_pick(const struct tierd_policy_set *set, const char *cgroup_path,
				  const struct tierd_policy **ret_policy,
				  const struct tierd_policy **ret_other);

enum tierd_log_level {
	TIERD_LOG_ERR = 3,     /* syslog priorities, as journald wants them */
	TIERD_LOG_WARNING = 4,
	TIERD_LOG_NOTICE = 5,
	TIERD_LOG_INFO = 6,
	TIERD_LOG_DEBUG = 7,
};

/* "err", "warning", "notice", "info", "debug". Returns 0 or -EINVAL. */
int tierd_log_level_parse(const char *s, enum tierd_log_level *ret);

/* What tierd does with the kernel's NUMA balancing (kernel.numa_balancing). */
enum tierd_numa_balancing {
	TIERD_NUMAB_LEAVE,    /* as found; a warning when it also moves managed memory */
	TIERD_NUMAB_OFF,      /* 0 while tierd runs: tierd alone places memory */
	TIERD_NUMAB_TIERING,  /* 2: hint faults on slow tiers only (tierd's promotion samples) */
};

/* The global configuration (tierd.json). */
struct tierd_config {
	uint64_t tick_usec;
	char metrics_file[TIERD_FILE_PATH_MAX];
	char state_file[TIERD_FILE_PATH_MAX];
	char policy_dir[TIERD_FILE_PATH_MAX];
	enum tierd_log_level log_level;
	struct tierd_migration_budget migration_budget;
	size_t nr_tier_override;               /* 0 = use the kernel's tiers */
	struct tierd_nodeset tier_override[TIERD_MAX_TIERS];
	bool damon;                            /* use DAMON when the kernel has it */
	bool bpf;                              /* sample hint faults with BPF when possible */
	bool manage_demotion;                  /* may set demotion_enabled for memory.reclaim */
	enum tierd_numa_balancing numa_balancing;
	/* "damon_stat": "stop" (true: turned off while tierd runs, restored at
	 * exit) or "leave" (false: tierd runs without DAMON while it runs). */
	bool stop_damon_stat;
};

/* "leave", "off", "tiering". Returns 0 or -EINVAL. */
int tierd_numa_balancing_parse(const char *s, enum tierd_numa_balancing *ret);
const char *tierd_numa_balancing_name(enum tierd_numa_balancing n);

/* Compiled-in defaults; documented in tierd.json(5). */
#define TIERD_DEFAULT_CONFIG_FILE "/etc/tierd/tierd.json"
#define TIERD_DEFAULT_POLICY_DIR "/etc/tierd/policies.d"
/* Debian's prometheus-node-exporter textfile collector directory. */
#define TIERD_DEFAULT_METRICS_FILE "/var/lib/prometheus/node-exporter/tierd.prom"
#define TIERD_DEFAULT_STATE_FILE "/run/tierd/state.json"
/* One second: numa_stat is rstat-flushed on read and cheap at this rate. */
#define TIERD_DEFAULT_TICK_USEC (1 * 1000000ull)
/* MigFlow's migration budget, "800 MB / 10 s" (the MigFlow README, overview of daemon/). */
#define TIERD_DEFAULT_MIGRATION_BYTES (800ull << 20)
#define TIERD_DEFAULT_MIGRATION_PERIOD_USEC (10 * 1000000ull)
/* Below 10 ms a tick would cost more than it observes. */
#define TIERD_MIN_TICK_USEC (10 * 1000ull)

void tierd_config_defaults(struct tierd_config *cfg);

#endif
