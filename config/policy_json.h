/* Loading policies and the global configuration from JSON. The only module
 * that sees json-c. Every error is recorded in diags with file, line, column,
 * key path and what was expected; parsing goes on after an error so one run
 * shows them all. */
#ifndef TIERD_POLICY_JSON_H
#define TIERD_POLICY_JSON_H

#include <stddef.h>

#include "diag.h"
#include "../policy/policy.h"

/* Parses one policy from text (file names it in messages).
 * Returns 0, -EINVAL when diags got errors, -ENOMEM. */
int tierd_policy_parse(const char *file, const char *text, size_t len, struct tierd_policy *out,
		       struct tierd_diags *diags);

/* Reads and parses the files given (in that order) into a set, then checks
 * the set as a whole (duplicate names, equal-priority overlaps, impossible
 * budgets against the topology when topo is not NULL). The set is returned
 * only when everything validates: on -EINVAL *out is untouched.
 * Returns 0, -EINVAL (see diags), -ENOMEM, or -errno of a read failure. */
int tierd_policy_load_files(const char *const *files, size_t nr_files,
			    const struct tierd_topology *topo, struct tierd_policy_set *out,
			    struct tierd_diags *diags);

/* Every *.json file of dir, sorted by name, then as above. A missing
 * directory is an empty set. */
int tierd_policy_load_dir(const char *dir, const struct tierd_topology *topo,
			  struct tierd_policy_set *out, struct tierd_diags *diags);

/* Parses tierd.json text over defaults already in *cfg; on error *cfg may be
 * partly written, so parse into a copy. */
int tierd_config_parse(const char *file, const char *text, size_t len, struct tierd_config *cfg,
		       struct tierd_diags *diags);
/* Reads file into cfg (starting from defaults). A missing file gives the
 * defaults when missing_ok. */
int tierd_config_load(const char *file, int missing_ok, struct tierd_config *cfg,
		      struct tierd_diags *diags);


/* {"valid": bool, "errors": ["file:line:col: key: ...", ...]} for
 * `tierctl validate --json`. Returns 0 or -ENOMEM. */
int tierd_diags_to_json(const struct tierd_diags *diags, char **ret_text);

#endif
