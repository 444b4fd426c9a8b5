/* Policy and configuration validation: each bad case asserts its exact
 * message (file:line:col: key: expected ...). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "../policy/engine.h"
#include "../config/policy_json.h"

TIERD_TEST_MAIN_COUNTS;

/* Parses text; returns the diags joined by newlines (static buffer). */
static const char *errors_of(const char *text, int *ret)
{
	static char out[4096];
	struct tierd_diags diags = { 0 };
	struct tierd_policy p;
	int r = tierd_policy_parse("p.json", text, strlen(text), &p, &diags);

	out[0] = '\0';
	for (size_t i = 0; i < diags.nr; i++)
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s", i ? "\n" : "",
			 diags.items[i].message);
	if (r == 0)
		tierd_policy_free(&p);
	tierd_diags_free(&diags);
	*ret = r;
	return out;
}

static void test_good_policy(void)
{
	const char *text = "{\n"
			   "  \"name\": \"db\",\n"
			   "  \"match\": [{\"path\": \"/a/db.service\"}, {\"unit\": \"x.slice\"}, {\"glob\": \"/b/*\"}],\n"
			   "  \"priority\": -3,\n"
			   "  \"tiers\": [\n"
			   "    {\"tier\": 0, \"max\": \"512M\", \"min\": 1048576},\n"
			   "    {\"nodes\": \"2-3\", \"max\": \"12.5%capacity\"},\n"
			   "    {\"tier\": 1, \"max\": \"25%\", \"min\": \"10%usage\"}\n"
			   "  ],\n"
			   "  \"strategy\": {\"name\": \"mole\", \"params\": {\"period_multipliers\": [4, 3]}},\n"
			   "  \"migration_budget\": {\"bytes\": \"1G\", \"period\": \"500ms\"},\n"
			   "  \"sharing\": \"pool\"\n"
			   "}\n";
	struct tierd_diags diags = { 0 };
	struct tierd_policy p;
	int r = tierd_policy_parse("good.json", text, strlen(text), &p, &diags);

	CHECK_EQ_INT(r, 0);
	CHECK_EQ_INT(diags.nr, 0);
	if (r != 0) {
		tierd_diags_free(&diags);
		return;
	}
	CHECK_EQ_STR(p.name, "db");
	CHECK_EQ_STR(p.file, "good.json");
	CHECK_EQ_INT(p.nr_matches, 3);
	CHECK_EQ_INT(p.matches[0].kind, TIERD_MATCH_PATH);
	CHECK_EQ_INT(p.matches[1].kind, TIERD_MATCH_UNIT);
	CHECK_EQ_INT(p.matches[2].kind, TIERD_MATCH_GLOB);
	CHECK_EQ_INT(p.priority, -3);
	CHECK_EQ_INT(p.nr_tiers, 3);
	CHECK_EQ_INT(p.tiers[0].selector, TIERD_SELECT_INDEX);
	CHECK_EQ_INT(p.tiers[0].max.kind, TIERD_AMOUNT_BYTES);
	CHECK_EQ_U64(p.tiers[0].max.bytes, 512ull << 20);
	CHECK(p.tiers[0].has_min);
	CHECK_EQ_U64(p.tiers[0].min.bytes, 1048576);
	CHECK_EQ_INT(p.tiers[0].line, 6);
	CHECK_EQ_INT(p.tiers[0].column, 5);
	CHECK_EQ_INT(p.tiers[1].selector, TIERD_SELECT_NODES);
	CHECK(tierd_nodeset_has(&p.tiers[1].nodes, 2) && tierd_nodeset_has(&p.tiers[1].nodes, 3));
	CHECK_EQ_INT(p.tiers[1].max.kind, TIERD_AMOUNT_PCT_CAPACITY);
	CHECK_EQ_INT(p.tiers[1].max.pmy, 1250);
	CHECK_EQ_INT(p.tiers[2].max.kind, TIERD_AMOUNT_PCT_USAGE);
	CHECK_EQ_INT(p.tiers[2].max.pmy, 2500);
	CHECK_EQ_INT(p.tiers[2].min.kind, TIERD_AMOUNT_PCT_USAGE);
	CHECK_EQ_INT(p.strategy, TIERD_STRATEGY_MOLE);
	CHECK_EQ_STR(p.strategy_params_json, "{\"period_multipliers\":[4,3]}");
	CHECK(p.has_migration_budget);
	CHECK_EQ_U64(p.migration_budget.bytes, 1ull << 30);
	CHECK_EQ_U64(p.migration_budget.period_usec, 500000);
	CHECK_EQ_INT(p.sharing, TIERD_SHARING_POOL);
	tierd_policy_free(&p);
	tierd_diags_free(&diags);
}

static void test_defaults(void)
{
	const char *text = "{\"name\": \"n\", \"match\": {\"unit\": \"a.service\"}}";
	struct tierd_diags diags = { 0 };
	struct tierd_policy p;

	CHECK_EQ_INT(tierd_policy_parse("d.json", text, strlen(text), &p, &diags), 0);
	/* A policy that names no strategy gets tierd's best. */
	CHECK_EQ_INT(p.strategy, TIERD_STRATEGY_EXCHANGE);
	CHECK_EQ_INT(p.sharing, TIERD_SHARING_ISLAND);
	CHECK_EQ_INT(p.priority, 0);
	CHECK_EQ_INT(p.nr_tiers, 0);
	CHECK(!p.has_migration_budget);
	CHECK(p.strategy_params_json == NULL);
	CHECK_EQ_U64(p.sampling_rate, 2000);
	CHECK_EQ_U64(p.sampling_burst, 500);
	tierd_policy_free(&p);
}

/* Parses a policy whose "sampling" is the given JSON; checks it loads. */
static void check_sampling(const char *sampling, uint32_t rate, uint32_t burst)
{
	char text[256];
	struct tierd_diags diags = { 0 };
	struct tierd_policy p;

	snprintf(text, sizeof(text), "{\"name\": \"n\", \"match\": {\"path\": \"/x\"}, \"sampling\": %s}",
		 sampling);
	CHECK_EQ_INT(tierd_policy_parse("s.json", text, strlen(text), &p, &diags), 0);
	CHECK_EQ_INT(diags.nr, 0);
	CHECK_EQ_U64(p.sampling_rate, rate);
	CHECK_EQ_U64(p.sampling_burst, burst);
	tierd_policy_free(&p);
	tierd_diags_free(&diags);
}

static void test_sampling(void)
{
	check_sampling("{\"rate\": 100, \"burst\": 20}", 100, 20);
	check_sampling("{\"rate\": 1000000, \"burst\": 1}", 1000000, 1);
	check_sampling("{\"rate\": 300}", 300, 500);
	check_sampling("{\"burst\": 64}", 2000, 64);
	check_sampling("{}", 2000, 500);
}

static void test_bad_cases(void)
{
	static const struct {
		const char *text;
		const char *expected;
	} cases[] = {
		{ "{\"name\": \"a\", \"match\": {\"path\": \"/x\"}, \"colour\": 1}",
		  "p.json:1:40: colour: unknown key; expected one of: name, match, priority, tiers, strategy, migration_budget, sharing, sampling" },
		{ "{\"match\": {\"path\": \"/x\"}}", "p.json:1:1: missing key \"name\"" },
		{ "{\"name\": \"a\"}", "p.json:1:1: missing key \"match\"" },
		{ "{\"name\": \"a b\", \"match\": {\"path\": \"/x\"}}",
		  "p.json:1:10: name: expected letters, digits, '_', '-', '.', '@' only, got \"a b\"" },
		{ "{\"name\": \"a\", \"match\": {\"path\": \"x\"}}",
		  "p.json:1:33: match.path: expected a cgroup path starting with \"/\", got \"x\"" },
		{ "{\"name\": \"a\", \"match\": {\"unit\": \"a/b.service\"}}",
		  "p.json:1:33: match.unit: expected a unit name such as \"nginx.service\" or \"batch.slice\", got \"a/b.service\"" },
		{ "{\"name\": \"a\", \"match\": {\"path\": \"/x\", \"glob\": \"/y\"}}",
		  "p.json:1:24: match: expected exactly one of \"path\", \"glob\", \"unit\"" },
		{ "{\"name\": \"a\", \"match\": []}", "p.json:1:24: match: expected at least one match entry" },
		{ "{\"name\": \"a\", \"match\": {\"path\": \"/x\"}, \"priority\": 1.5}",
		  "p.json:1:52: priority: expected an integer, got a fractional number" },
		{ "{\"name\": \"a\", \"match\": {\"path\": \"/x\"}, \"tiers\": [{\"tier\": 0}]}",
		  "p.json:1:50: tiers[0]: missing key \"max\"" },
		{ "{\"name\": \"a\", \"match\": {\"path\": \"/x\"}, \"tiers\": [{\"max\": \"1G\"}]}",
		  "p.json:1:50: tiers[0]: expected exactly one of \"tier\" (index from the fastest, 0) or \"nodes\" (node list)" },
		{ "{\"name\": \"a\", \"match\": {\"path\": \"/x\"}, \"tiers\": [{\"tier\": 16, \"max\": \"1G\"}]}",
		  "p.json:1:59: tiers[0].tier: expected an integer from 0 to 15, got 16" },
		{ "{\"name\": \"a\", \"match\": {\"path\": \"/x\"}, \"tiers\": [{\"tier\": 0, \"max\": \"1X\"}]}",
		  "p.json:1:69: tiers[0].max: expected a size such as \"512M\" or \"4G\" (K, M, G, T, P, E), got \"1X\"" },
		{ "{\"name\": \"a\", \"match\": {\"path\": \"/x\"}, \"tiers\": [{\"tier\": 0, \"max\": \"101%\"}]}",
		  "p.json:1:69: tiers[0].max: expected a percentage from 0% to 100% with at most two decimals, got \"101%\"" },
		{ "{\"name\": \"a\", \"match\": {\"path\": \"/x\"}, \"tiers\": [{\"tier\": 0, \"max\": \"5%tier\"}]}",
		  "p.json:1:69: tiers[0].max: expected \"N%\", \"N%usage\" or \"N%capacity\", got \"5%tier\"" },
		{ "{\"name\": \"a\", \"match\": {\"path\": \"/x\"}, \"tiers\": [{\"tier\": 0, \"max\": \"1G\", \"min\": \"2G\"}]}",
		  "p.json:1:82: tiers[0].min: min is above max: a tier budget needs min <= max" },
		{ "{\"name\": \"a\", \"match\": {\"path\": \"/x\"}, \"tiers\": [{\"tier\": 1, \"max\": \"1G\"},\n{\"tier\": 1, \"max\": \"2G\"}]}",
		  "p.json:2:1: tiers[1]: this tier already has a budget at line 1, column 50" },
		{ "{\"name\": \"a\", \"match\": {\"path\": \"/x\"}, \"strategy\": \"fast\"}",
		  "p.json:1:52: strategy: expected one of: exchange, mole, migflow, hmmv, linux, autotiering, none; got \"fast\"" },
		{ "{\"name\": \"a\", \"match\": {\"path\": \"/x\"}, \"strategy\": {\"name\": \"mole\", \"params\": 3}}",
		  "p.json:1:79: strategy.params: expected an object, got an integer" },
		/* The strategy checks its own params; the error points at the key. */
		{ "{\"name\": \"a\", \"match\": {\"path\": \"/x\"}, \"strategy\": {\"name\": \"mole\", \"params\": {\"headroom\": \"90%\", \"m\": 1}}}",
		  "p.json:1:92: strategy.params.headroom: expected a percentage from 0% to 50% such as \"5%\", got \"90%\"" },
		{ "{\"name\": \"a\", \"match\": {\"path\": \"/x\"}, \"strategy\": {\"name\": \"exchange\", \"params\": {\"gain\": 0.5}}}",
		  "p.json:1:92: strategy.params.gain: expected a number from 1 to 1000 such as 32, got 0.5" },
		/* An unknown strategy's params are not checked against "none". */
		{ "{\"name\": \"a\", \"match\": {\"path\": \"/x\"}, \"strategy\": {\"name\": \"fast\", \"params\": {\"x\": 1}}}",
		  "p.json:1:61: strategy.name: expected one of: exchange, mole, migflow, hmmv, linux, autotiering, none; got \"fast\"" },
		{ "{\"name\": \"a\", \"match\": {\"path\": \"/x\"}, \"strategy\": {\"name\": \"none\", \"params\": {\"burst\": 5}}}",
		  "p.json:1:79: strategy.params: strategy \"none\" takes no params" },
		{ "{\"name\": \"a\", \"match\": {\"path\": \"/x\"}, \"migration_budget\": {\"bytes\": \"1G\", \"period\": \"10\"}}",
		  "p.json:1:86: migration_budget.period: expected a positive duration with a unit (us, ms, s, m, h), got \"10\"" },
		{ "{\"name\": \"a\", \"match\": {\"path\": \"/x\"}, \"sharing\": \"ocean\"}",
		  "p.json:1:51: sharing: expected \"island\" or \"pool\", got \"ocean\"" },
		{ "{\"name\": \"a\", \"match\": {\"path\": \"/x\"}, \"sampling\": {\"rate\": 0}}",
		  "p.json:1:61: sampling.rate: expected an integer from 1 to 1000000, got 0" },
		{ "{\"name\": \"a\", \"match\": {\"path\": \"/x\"}, \"sampling\": {\"burst\": 1000001}}",
		  "p.json:1:62: sampling.burst: expected an integer from 1 to 1000000, got 1000001" },
		{ "{\"name\": \"a\", \"match\": {\"path\": \"/x\"}, \"sampling\": {\"rate\": \"2000\"}}",
		  "p.json:1:61: sampling.rate: expected an integer, got a string" },
		{ "{\"name\": \"a\", \"match\": {\"path\": \"/x\"}, \"sampling\": {\"rate\": 10, \"bucket\": 5}}",
		  "p.json:1:65: sampling.bucket: unknown key; expected one of: rate, burst" },
		{ "{\"name\": \"a\", \"match\": {\"path\": \"/x\"}, \"sampling\": 2000}",
		  "p.json:1:52: sampling: expected an object {\"rate\": ..., \"burst\": ...}, got an integer" },
		{ "{\"name\": \"a\", \"name\": \"b\", \"match\": {\"path\": \"/x\"}}",
		  "p.json:1:15: name: key written twice in one object; keep one" },
		{ "{\n  \"name\": \"a\",\n  \"match\": {\"path\": \"/x\"}\n  \"tiers\": []\n}",
		  "p.json:4:3: invalid JSON: object value separator ',' expected" },
		{ "{\"name\": \"a\"", "p.json:1:13: invalid JSON: unexpected end of data" },
		{ "[1, 2]", "p.json:1:1: expected a policy object, got an array" },
		{ "", "p.json:1:1: invalid JSON: unexpected end of data" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r;
		const char *got = errors_of(cases[i].text, &r);

		CHECK_EQ_INT(r, -EINVAL);
		CHECK_EQ_STR(got, cases[i].expected);
	}
}

/* All errors of a file, top to bottom, whatever order they were found in. */
static void test_error_order(void)
{
	int r;
	const char *got = errors_of("{\n \"name\": \"a b\",\n \"match\": {\"path\": \"/x\"},\n"
				    " \"sharing\": 3,\n \"zz\": 1,\n \"priority\": \"x\"\n}",
				    &r);

	CHECK_EQ_INT(r, -EINVAL);
	CHECK_EQ_STR(got, "p.json:2:10: name: expected letters, digits, '_', '-', '.', '@' only, got \"a b\"\n"
			  "p.json:4:13: sharing: expected \"island\" or \"pool\", got an integer\n"
			  "p.json:5:2: zz: unknown key; expected one of: name, match, priority, tiers, strategy, migration_budget, sharing, sampling\n"
			  "p.json:6:14: priority: expected an integer, got a string");
}

static void test_nul_byte(void)
{
	static const char text[] = "{\"name\": \"a\0\"}";
	struct tierd_diags diags = { 0 };
	struct tierd_policy p;

	CHECK_EQ_INT(tierd_policy_parse("n.json", text, sizeof(text) - 1, &p, &diags), -EINVAL);
	CHECK_EQ_INT(diags.nr, 1);
	CHECK_EQ_STR(diags.items[0].message, "n.json:1:12: NUL byte in a JSON file");
	tierd_diags_free(&diags);
}

/* json-c's strict mode takes single-quoted keys; the position scanner
 * did not, and looped on one forever, growing its index (a fuzzer found
 * it: fuzz/corpus/fuzz_policy/single-quote-hang). They are refused. */
static void test_single_quotes(void)
{
	static const char key[] = "{\n  'name': \"a\"\n}";
	static const char nested[] = "{\"name\": \"a\", \"match\": {'path': \"/x\"}}";
	static const char config[] = "{\"log_level\": \"info\", 'bpf': false}";
	struct tierd_diags diags = { 0 };
	struct tierd_config cfg;
	struct tierd_policy p;

	CHECK_EQ_INT(tierd_policy_parse("q.json", key, sizeof(key) - 1, &p, &diags), -EINVAL);
	CHECK_EQ_INT(diags.nr, 1);
	CHECK_EQ_STR(diags.items[0].message,
		     "q.json:2:3: invalid JSON: expected a string in double quotes");
	tierd_diags_free(&diags);
	CHECK_EQ_INT(tierd_policy_parse("q.json", nested, sizeof(nested) - 1, &p, &diags), -EINVAL);
	CHECK_EQ_INT(diags.nr, 1);
	CHECK_EQ_STR(diags.items[0].message,
		     "q.json:1:25: invalid JSON: expected a string in double quotes");
	tierd_diags_free(&diags);
	/* tierd.json goes through the same scanner. */
	tierd_config_defaults(&cfg);
	CHECK_EQ_INT(tierd_config_parse("c.json", config, sizeof(config) - 1, &cfg, &diags), -EINVAL);
	CHECK_EQ_INT(diags.nr, 1);
	CHECK_EQ_STR(diags.items[0].message,
		     "c.json:1:23: invalid JSON: expected a string in double quotes");
	CHECK(cfg.bpf);
	tierd_diags_free(&diags);
}

/* Exactly len bytes in their own allocation, no NUL after them: ASan
 * catches any read past the end. */
static char *unterminated(const char *text, size_t len)
{
	char *copy = malloc(len);

	if (!copy)
		abort();
	memcpy(copy, text, len);
	return copy;
}

/* The fuzzers' first finding: json-c was handed len + 1 bytes to find a
 * terminating NUL, a read past the end of text that is not a C string. */
static void test_unterminated_text(void)
{
	static const char cut[] = "{\n  \"name\": \"ba";
	static const char number[] = "7";
	static const char config[] = "{\"tick_interval\": \"3s\"}";
	struct tierd_diags diags = { 0 };
	struct tierd_config cfg;
	struct tierd_policy p = { 0 };
	char *text;

	text = unterminated(cut, sizeof(cut) - 1);
	CHECK_EQ_INT(tierd_policy_parse("u.json", text, sizeof(cut) - 1, &p, &diags), -EINVAL);
	CHECK_EQ_INT(diags.nr, 1);
	CHECK_EQ_STR(diags.items[0].message, "u.json:2:14: invalid JSON: unexpected end of data");
	free(text);
	tierd_diags_free(&diags);

	/* A document that ends in a number still ends there. */
	text = unterminated(number, sizeof(number) - 1);
	CHECK_EQ_INT(tierd_policy_parse("n.json", text, sizeof(number) - 1, &p, &diags), -EINVAL);
	CHECK_EQ_INT(diags.nr, 1);
	CHECK_EQ_STR(diags.items[0].message, "n.json:1:1: expected a policy object, got an integer");
	free(text);
	tierd_diags_free(&diags);

	tierd_config_defaults(&cfg);
	text = unterminated(config, sizeof(config) - 1);
	CHECK_EQ_INT(tierd_config_parse("c.json", text, sizeof(config) - 1, &cfg, &diags), 0);
	CHECK_EQ_INT(cfg.tick_usec, 3000000);
	CHECK_EQ_INT(diags.nr, 0);
	free(text);
	tierd_diags_free(&diags);
}

static char *write_tmp(const char *dir, const char *name, const char *text)
{
	char *path;
	FILE *f;

	if (asprintf(&path, "%s/%s", dir, name) < 0)
		abort();
	f = fopen(path, "w");
	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
	return path;
}

static void test_set_checks(void)
{
	char dir[] = "/tmp/tierd-test-XXXXXX";
	struct tierd_policy_set set = { 0 };
	struct tierd_diags diags = { 0 };
	struct tierd_topology topo = { 0 };
	char *a, *b, *c, *d;
	const char *files[2];

	if (!mkdtemp(dir))
		abort();
	a = write_tmp(dir, "a.json", "{\"name\": \"a\", \"match\": {\"path\": \"/s/x.service\"}, \"priority\": 5,"
				     " \"tiers\": [{\"tier\": 0, \"max\": \"3G\", \"min\": \"3G\"}]}");
	b = write_tmp(dir, "b.json", "{\"name\": \"b\", \"match\": {\"glob\": \"/s/*.service\"}, \"priority\": 5,"
				     " \"tiers\": [{\"nodes\": \"0\", \"max\": \"2G\", \"min\": \"2G\"}]}");
	c = write_tmp(dir, "c.json", "{\"name\": \"a\", \"match\": {\"unit\": \"x.service\"}, \"priority\": 7}");
	d = write_tmp(dir, "d.json", "{\"name\": \"d\", \"match\": {\"path\": \"/y\"}, \"tiers\": [{\"nodes\": \"0-1\", \"max\": \"1G\"}]}");

	/* Equal priority, overlapping matches: an error naming both files. */
	files[0] = a;
	files[1] = b;
	CHECK_EQ_INT(tierd_policy_load_files(files, 2, NULL, &set, &diags), -EINVAL);
	CHECK_EQ_INT(diags.nr, 1);
	{
		char want[1024];

		snprintf(want, sizeof(want),
			 "%s:1:1: priority: policies \"b\" (%s) and \"a\" (%s) match the same cgroups \"/s/*.service\" with equal priority 5; give one a higher priority",
			 b, b, a);
		CHECK_EQ_STR(diags.items[0].message, want);
	}
	CHECK_EQ_INT(set.nr, 0);
	tierd_diags_free(&diags);

	/* Duplicate names. */
	files[1] = c;
	CHECK_EQ_INT(tierd_policy_load_files(files, 2, NULL, &set, &diags), -EINVAL);
	CHECK_EQ_INT(diags.nr, 1);
	{
		char want[1024];

		snprintf(want, sizeof(want), "%s:1:1: name: policy name \"a\" is also used by %s", c, a);
		CHECK_EQ_STR(diags.items[0].message, want);
	}
	tierd_diags_free(&diags);

	/* Against a topology: mins above capacity; a node list across tiers. */
	topo.nr_nodes = 2;
	topo.nodes[0] = (struct tierd_node){ .nid = 0, .tier = 0, .total_bytes = 4ull << 30 };
	topo.nodes[1] = (struct tierd_node){ .nid = 1, .tier = 1, .total_bytes = 4ull << 30 };
	topo.nr_tiers = 2;
	(void)tierd_nodeset_add(&topo.tiers[0].nodes, 0);
	(void)tierd_nodeset_add(&topo.tiers[1].nodes, 1);
	topo.tiers[0].total_bytes = topo.tiers[1].total_bytes = 4ull << 30;
	free(b);
	b = write_tmp(dir, "b.json", "{\"name\": \"b\", \"match\": {\"glob\": \"/s/*.service\"}, \"priority\": 6,"
				     " \"tiers\": [{\"nodes\": \"0\", \"max\": \"2G\", \"min\": \"2G\"}]}");
	files[1] = b;
	CHECK_EQ_INT(tierd_policy_load_files(files, 2, &topo, &set, &diags), -EINVAL);
	CHECK_EQ_INT(diags.nr, 1);
	{
		char want[1024];

		snprintf(want, sizeof(want),
			 "%s:1:75: tiers[0].min: the policies' min budgets on tier 0 add up to 5.0G, above its capacity 4.0G (each policy counted once)",
			 b);
		CHECK_EQ_STR(diags.items[0].message, want);
	}
	tierd_diags_free(&diags);
	/* Reported at the min that tipped the sum, not at the last one. */
	{
		char *f = write_tmp(dir, "f.json", "{\"name\": \"f\", \"match\": {\"path\": \"/f\"},"
					    " \"tiers\": [{\"tier\": 0, \"max\": \"1G\", \"min\": \"100M\"}]}");
		const char *three[3] = { a, b, f };
		char want[1024];

		CHECK_EQ_INT(tierd_policy_load_files(three, 3, &topo, &set, &diags), -EINVAL);
		snprintf(want, sizeof(want),
			 "%s:1:75: tiers[0].min: the policies' min budgets on tier 0 add up to 5.1G, above its capacity 4.0G (each policy counted once)",
			 b);
		CHECK_EQ_INT(diags.nr, 1);
		if (diags.nr)
			CHECK_EQ_STR(diags.items[0].message, want);
		tierd_diags_free(&diags);
		unlink(f);
		free(f);
	}
	files[0] = d;
	CHECK_EQ_INT(tierd_policy_load_files(files, 1, &topo, &set, &diags), -EINVAL);
	{
		char want[1024];

		snprintf(want, sizeof(want),
			 "%s:1:50: tiers[0]: names no tier of this machine (2 tiers; a node list must lie within one tier)",
			 d);
		CHECK_EQ_INT(diags.nr, 1);
		if (diags.nr)
			CHECK_EQ_STR(diags.items[0].message, want);
	}
	tierd_diags_free(&diags);

	/* One tier budgeted twice, by index and by node list. */
	{
		char *e = write_tmp(dir, "e.json",
				    "{\"name\": \"e\", \"match\": {\"path\": \"/e\"}, \"tiers\": [{\"tier\": 1, \"max\": \"1G\"},"
				    " {\"nodes\": \"1\", \"max\": \"2G\"}]}");
		char want[1024];

		files[0] = e;
		CHECK_EQ_INT(tierd_policy_load_files(files, 1, NULL, &set, &diags), 0);
		tierd_policy_set_free(&set);
		CHECK_EQ_INT(tierd_policy_load_files(files, 1, &topo, &set, &diags), -EINVAL);
		snprintf(want, sizeof(want),
			 "%s:1:76: tiers[1]: names tier 1, which tiers[0] already budgets on this machine", e);
		CHECK_EQ_INT(diags.nr, 1);
		if (diags.nr)
			CHECK_EQ_STR(diags.items[0].message, want);
		tierd_diags_free(&diags);
		unlink(e);
		free(e);
	}

	/* A good pair loads, and picks follow priority. */
	files[0] = a;
	files[1] = b;
	topo.nodes[0].total_bytes = topo.tiers[0].total_bytes = 8ull << 30;
	CHECK_EQ_INT(tierd_policy_load_files(files, 2, &topo, &set, &diags), 0);
	CHECK_EQ_INT(set.nr, 2);
	{
		const struct tierd_policy *p, *o;

		CHECK_EQ_INT(tierd_policy_pick(&set, "/s/x.service", &p, &o), TIERD_PICK_ONE);
		CHECK_EQ_STR(p->name, "b");
		CHECK_EQ_INT(tierd_policy_pick(&set, "/s/y.service", &p, &o), TIERD_PICK_ONE);
		CHECK_EQ_STR(p->name, "b");
		CHECK_EQ_INT(tierd_policy_pick(&set, "/s/deep/y.service", &p, &o), TIERD_PICK_NONE);
	}
	tierd_policy_set_free(&set);
	tierd_diags_free(&diags);
	unlink(a);
	unlink(b);
	unlink(c);
	unlink(d);
	rmdir(dir);
	free(a);
	free(b);
	free(c);
	free(d);
}

static void test_pick_conflict(void)
{
	struct tierd_policy pol[2] = { 0 };
	struct tierd_policy_set set = { .nr = 2, .policies = pol };
	const struct tierd_policy *p, *o;

	strcpy(pol[0].name, "x");
	pol[0].nr_matches = 1;
	pol[0].matches[0] = (struct tierd_match){ .kind = TIERD_MATCH_UNIT, .pattern = "a.service" };
	strcpy(pol[1].name, "y");
	pol[1].nr_matches = 1;
	pol[1].matches[0] = (struct tierd_match){ .kind = TIERD_MATCH_GLOB, .pattern = "/s/*" };
	CHECK_EQ_INT(tierd_policy_pick(&set, "/s/a.service", &p, &o), TIERD_PICK_CONFLICT);
	CHECK_EQ_STR(p->name, "x");
	CHECK_EQ_STR(o->name, "y");
	CHECK_EQ_INT(tierd_policy_pick(&set, "/t/a.service", &p, &o), TIERD_PICK_ONE);
	CHECK_EQ_STR(p->name, "x");
}

static void test_config(void)
{
	const char *good = "{\"tick_interval\": \"250ms\", \"metrics_file\": \"/m.prom\", \"log_level\": \"debug\","
			   " \"tiers\": [\"0\", \"1-2\"], \"migration_budget\": {\"bytes\": \"1G\", \"period\": \"5s\"}}";
	const char *bad = "{\"tick_interval\": \"1ms\", \"state_file\": \"rel\", \"log_level\": \"loud\","
			  " \"tiers\": [\"0-1\", \"1\"], \"extra\": 1}";
	struct tierd_diags diags = { 0 };
	struct tierd_config cfg;

	tierd_config_defaults(&cfg);
	CHECK_EQ_U64(cfg.tick_usec, 1000000);
	CHECK_EQ_STR(cfg.metrics_file, "/var/lib/prometheus/node-exporter/tierd.prom");
	CHECK_EQ_U64(cfg.migration_budget.bytes, 838860800);
	CHECK_EQ_INT(tierd_config_parse("t.json", good, strlen(good), &cfg, &diags), 0);
	CHECK_EQ_U64(cfg.tick_usec, 250000);
	CHECK_EQ_STR(cfg.metrics_file, "/m.prom");
	CHECK_EQ_INT(cfg.log_level, TIERD_LOG_DEBUG);
	CHECK_EQ_INT(cfg.nr_tier_override, 2);
	CHECK(tierd_nodeset_has(&cfg.tier_override[1], 2));
	CHECK_EQ_U64(cfg.migration_budget.period_usec, 5000000);

	tierd_config_defaults(&cfg);
	CHECK_EQ_INT(tierd_config_parse("t.json", bad, strlen(bad), &cfg, &diags), -EINVAL);
	CHECK_EQ_INT(diags.nr, 5);
	if (diags.nr == 5) {
		CHECK_EQ_STR(diags.items[0].message, "t.json:1:19: tick_interval: expected at least 10ms");
		CHECK_EQ_STR(diags.items[1].message,
			     "t.json:1:40: state_file: expected an absolute path, got \"rel\"");
		CHECK_EQ_STR(diags.items[2].message,
			     "t.json:1:60: log_level: expected one of: err, warning, notice, info, debug; got \"loud\"");
		CHECK_EQ_STR(diags.items[3].message,
			     "t.json:1:85: tiers[1]: shares nodes with tiers[0]; a node sits in one tier");
		CHECK_EQ_STR(diags.items[4].message,
			     "t.json:1:91: extra: unknown key; expected one of: tick_interval, metrics_file, state_file, policy_dir, log_level, migration_budget, tiers, damon, manage_demotion, numa_balancing, bpf, damon_stat");
	}
	tierd_diags_free(&diags);
}

static void test_config_kernel(void)
{
	const char *good = "{\"damon\": false, \"manage_demotion\": false, \"numa_balancing\": \"tiering\", \"bpf\": false, \"damon_stat\": \"leave\"}";
	const char *bad = "{\"damon\": \"yes\", \"numa_balancing\": \"auto\", \"bpf\": 1, \"damon_stat\": \"off\"}";
	struct tierd_diags diags = { 0 };
	struct tierd_config cfg;

	tierd_config_defaults(&cfg);
	CHECK(cfg.damon);
	CHECK(cfg.manage_demotion);
	CHECK(cfg.bpf);
	CHECK_EQ_INT(cfg.numa_balancing, TIERD_NUMAB_LEAVE);
	CHECK(cfg.stop_damon_stat);
	CHECK_EQ_INT(tierd_config_parse("k.json", good, strlen(good), &cfg, &diags), 0);
	CHECK(!cfg.damon);
	CHECK(!cfg.manage_demotion);
	CHECK(!cfg.bpf);
	CHECK_EQ_INT(cfg.numa_balancing, TIERD_NUMAB_TIERING);
	CHECK(!cfg.stop_damon_stat);
	CHECK_EQ_STR(tierd_numa_balancing_name(TIERD_NUMAB_OFF), "off");

	tierd_config_defaults(&cfg);
	CHECK_EQ_INT(tierd_config_parse("k.json", bad, strlen(bad), &cfg, &diags), -EINVAL);
	CHECK_EQ_INT(diags.nr, 4);
	if (diags.nr == 4) {
		CHECK_EQ_STR(diags.items[0].message, "k.json:1:11: damon: expected true or false, got a string");
		CHECK_EQ_STR(diags.items[1].message,
			     "k.json:1:36: numa_balancing: expected one of: leave, off, tiering; got \"auto\"");
		CHECK_EQ_STR(diags.items[2].message, "k.json:1:51: bpf: expected true or false, got an integer");
		CHECK_EQ_STR(diags.items[3].message,
			     "k.json:1:68: damon_stat: expected one of: stop, leave; got \"off\"");
	}
	CHECK(cfg.damon);
	CHECK(cfg.stop_damon_stat);
	CHECK(cfg.bpf);
	tierd_diags_free(&diags);
}

int main(void)
{
	test_good_policy();
	test_defaults();
	test_sampling();
	test_config_kernel();
	test_bad_cases();
	test_error_order();
	test_nul_byte();
	test_single_quotes();
	test_unterminated_text();
	test_set_checks();
	test_pick_conflict();
	test_config();
	return tierd_test_finish();
}
