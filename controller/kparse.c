/* Parsers for the kernel's text files (contract in kparse.h).
 * Every scanner works on a (pointer, length) span and never reads past it:
 * callers hand in raw read() buffers, which are not NUL-terminated. The
 * kernel prints these files with fixed formats, so the parsers accept exactly
 * that shape on the lines they use; anything else there is a torn or foreign
 * read and is refused rather than half-believed.
 *
 * Common rules: lines end with '\n'; a last line without one (short read) is
 * still parsed. An empty line is malformed (the kernel never prints one).
 * Control bytes (NUL included) are malformed anywhere; bytes above 0x7f are
 * malformed too except in mountinfo, whose paths may be raw UTF-8.
 * On success *ret_line is left untouched; on -EINVAL (and on -ENAMETOOLONG
 * from mountinfo) it holds the 1-based number of the offending line. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "kparse.h"

#define KIB_BYTES 1024ull
#define DECIMAL_BASE 10u
#define OCTAL_BASE 8u
/* Mount points escape ' ', '\t', '\n' and '\\' as a backslash and three
 * octal digits (\040). */
#define OCTAL_ESCAPE_DIGITS 3
/* PSI averages are printed "%lu.%02lu": two decimals of a percent. */
#define PSI_AVG_DECIMALS 2
#define PSI_PMY_PER_PERCENT 100u
/* The kernel clamps each sample to its period, so an average never tops
 * 100.00%: a larger figure means the line is garbled. */
#define PSI_AVG_MAX_PMY 10000u
#define ASCII_FIRST_PRINTABLE 0x20
#define ASCII_DEL 0x7f

_Static_assert(TIERD_MEMSTAT_NR <= sizeof(((struct tierd_memstat *)0)->present) * CHAR_BIT,
	       "tierd_memstat.present has a bit per key");

struct span {
	const char *p;
	size_t len;
};

struct line_iter {
	const char *next;
	size_t left;
	int nr;
};

static int malformed(int *ret_line, int nr)
{
	if (ret_line)
		*ret_line = nr;
	return -EINVAL;
}

static void lines_init(struct line_iter *it, const char *text, size_t len)
{
	it->next = text;
	it->left = len;
	it->nr = 0;
}

/* Next line without its '\n'. A trailing '\n' does not open an empty last
 * line: it is the normal end of the file. */
static bool lines_next(struct line_iter *it, struct span *line)
{
	const char *nl;
	size_t used;

	if (it->left == 0)
		return false;
	nl = memchr(it->next, '\n', it->left);
	line->p = it->next;
	line->len = nl ? (size_t)(nl - it->next) : it->left;
	used = nl ? line->len + 1 : line->len;
	it->next += used;
	it->left -= used;
	it->nr++;
	return true;
}

/* Control bytes (NUL included) never appear in these files; high bytes only
 * in paths. */
static bool span_is_text(struct span s, bool allow_high)
{
	for (size_t i = 0; i < s.len; i++) {
		unsigned char c = (unsigned char)s.p[i];

		if (c < ASCII_FIRST_PRINTABLE || c == ASCII_DEL)
			return false;
		if (c > ASCII_DEL && !allow_high)
			return false;
	}
	return true;
}

static bool span_eq(struct span s, const char *str)
{
	size_t n = strlen(str);

	return s.len == n && memcmp(s.p, str, n) == 0;
}

static void span_skip(struct span *s, size_t n)
{
	s->p += n;
	s->len -= n;
}

/* Consumes prefix when s starts with it. */
static bool span_eat_str(struct span *s, const char *prefix)
{
	size_t n = strlen(prefix);

	if (s->len < n || memcmp(s->p, prefix, n) != 0)
		return false;
	span_skip(s, n);
	return true;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Consumes one or more decimal digits; false when there is none or the value
 * does not fit in 64 bits. */
static bool span_eat_u64(struct span *s, uint64_t *ret)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < s->len && is_digit(s->p[i]); i++) {
		unsigned d = (unsigned)(s->p[i] - '0');

		if (v > (UINT64_MAX - d) / DECIMAL_BASE)
			return false;
		v = v * DECIMAL_BASE + d;
	}
	if (i == 0)
		return false;
	span_skip(s, i);
	*ret = v;
	return true;
}

/* The leading run of non-space bytes; s is left at the space (or the end). */
static struct span span_take_word(struct span *s)
{
	struct span word = { .p = s->p, .len = 0 };

	while (word.len < s->len && s->p[word.len] != ' ')
		word.len++;
	span_skip(s, word.len);
	return word;
}

static bool span_is_u64(struct span s)
{
	uint64_t ignored;

	return span_eat_u64(&s, &ignored) && s.len == 0;
}

/* Splits on single spaces; consecutive spaces yield empty fields, which
 * mountinfo has when a mount source is the empty string. */
struct field_iter {
	struct span rest;
	bool done;
};

static bool fields_next(struct field_iter *f, struct span *field)
{
	const char *sp = f->rest.len ? memchr(f->rest.p, ' ', f->rest.len) : NULL;

	if (f->done)
		return false;
	field->p = f->rest.p;
	if (!sp) {
		field->len = f->rest.len;
		f->done = true;
		return true;
	}
	field->len = (size_t)(sp - f->rest.p);
	span_skip(&f->rest, field->len + 1);
	return true;
}

/* Index of nid in topo->nodes, or -1. Kept local so this file has no link
 * dependency on the snapshot helpers. */
static int node_index(const struct tierd_topology *topo, size_t nr_nodes, uint64_t nid)
{
	for (size_t i = 0; i < nr_nodes; i++)
		if (topo->nodes[i].nid >= 0 && (uint64_t)topo->nodes[i].nid == nid)
			return (int)i;
	return -1;
}

/* The rest of an "anon" or "file" line: one or more " N<nid>=<value>". A
 * node named twice means two reads were spliced together. */
static bool parse_numa_values(struct span s, const struct tierd_topology *topo,
			      size_t nr_nodes, uint64_t *bytes)
{
	bool seen[TIERD_MAX_NODES] = { false };

	if (s.len == 0)
		return false;
	while (s.len) {
		uint64_t nid, value;
		int idx;

		if (!span_eat_str(&s, " N") || !span_eat_u64(&s, &nid) ||
		    !span_eat_str(&s, "=") || !span_eat_u64(&s, &value))
			return false;
		idx = node_index(topo, nr_nodes, nid);
		if (idx < 0)
			continue;
		if (seen[idx])
			return false;
		seen[idx] = true;
		bytes[idx] = value;
	}
	return true;
}

int tierd_kparse_numa_stat(const char *text, size_t len, const struct tierd_topology *topo,
			   struct tierd_cgroup_obs *obs, int *ret_line)
{
	/* A corrupt nr_nodes must not walk past nodes[]. */
	size_t nr_nodes = topo->nr_nodes < TIERD_MAX_NODES ? topo->nr_nodes : TIERD_MAX_NODES;
	bool has_anon = false, has_file = false;
	struct line_iter it;
	struct span line;

	memset(obs->anon_bytes, 0, sizeof(obs->anon_bytes));
	memset(obs->file_bytes, 0, sizeof(obs->file_bytes));
	lines_init(&it, text, len);
	while (lines_next(&it, &line)) {
		struct span key;
		uint64_t *bytes;
		bool *has;

		if (!span_is_text(line, false))
			return malformed(ret_line, it.nr);
		key = span_take_word(&line);
		if (key.len == 0)
			return malformed(ret_line, it.nr);
		if (span_eq(key, "anon")) {
			bytes = obs->anon_bytes;
			has = &has_anon;
		} else if (span_eq(key, "file")) {
			bytes = obs->file_bytes;
			has = &has_file;
		} else {
			continue;
		}
		if (*has || !parse_numa_values(line, topo, nr_nodes, bytes))
			return malformed(ret_line, it.nr);
		*has = true;
	}
	if (!has_anon && !has_file)
		return -ENODATA;
	return 0;
}

/* TIERD_MEMSTAT_* for a memory.stat key, or -1 for keys tierd does not use. */
static int memstat_key(struct span key)
{
	static const char *const names[TIERD_MEMSTAT_NR] = {
#define TIERD_X(name, field) [TIERD_MEMSTAT_##field] = name,
		TIERD_MEMSTAT_KEYS(TIERD_X)
#undef TIERD_X
	};

	for (int i = 0; i < TIERD_MEMSTAT_NR; i++)
		if (span_eq(key, names[i]))
			return i;
	return -1;
}

int tierd_kparse_memstat(const char *text, size_t len, struct tierd_memstat *stat, int *ret_line)
{
	struct line_iter it;
	struct span line;

	memset(stat, 0, sizeof(*stat));
	lines_init(&it, text, len);
	while (lines_next(&it, &line)) {
		struct span key;
		uint32_t bit;
		int k;

		if (!span_is_text(line, false))
			return malformed(ret_line, it.nr);
		key = span_take_word(&line);
		/* Every line is "key value"; a key alone is a read cut short. */
		if (key.len == 0 || !span_eat_str(&line, " ") || line.len == 0)
			return malformed(ret_line, it.nr);
		k = memstat_key(key);
		if (k < 0)
			continue;
		bit = 1u << k;
		if ((stat->present & bit) || !span_eat_u64(&line, &stat->value[k]) || line.len)
			return malformed(ret_line, it.nr);
		stat->present |= bit;
	}
	return 0;
}

/* "12.34" → 1234: exactly two decimals, at most 100.00. */
static bool span_eat_psi_avg(struct span *s, uint32_t *ret_pmy)
{
	uint64_t whole, frac = 0, pmy;

	if (!span_eat_u64(s, &whole) || !span_eat_str(s, "."))
		return false;
	for (int i = 0; i < PSI_AVG_DECIMALS; i++) {
		if (s->len == 0 || !is_digit(s->p[0]))
			return false;
		frac = frac * DECIMAL_BASE + (uint64_t)(s->p[0] - '0');
		span_skip(s, 1);
	}
	if (whole > PSI_AVG_MAX_PMY / PSI_PMY_PER_PERCENT)
		return false;
	pmy = whole * PSI_PMY_PER_PERCENT + frac;
	if (pmy > PSI_AVG_MAX_PMY)
		return false;
	*ret_pmy = (uint32_t)pmy;
	return true;
}

/* The rest of a "some"/"full" line, fields in the kernel's fixed order. */
static bool parse_psi_fields(struct span s, struct tierd_psi_line *out)
{
	return span_eat_str(&s, " avg10=") && span_eat_psi_avg(&s, &out->avg10_pmy) &&
	       span_eat_str(&s, " avg60=") && span_eat_psi_avg(&s, &out->avg60_pmy) &&
	       span_eat_str(&s, " avg300=") && span_eat_psi_avg(&s, &out->avg300_pmy) &&
	       span_eat_str(&s, " total=") && span_eat_u64(&s, &out->total_usec) &&
	       s.len == 0;
}

int tierd_kparse_psi(const char *text, size_t len, struct tierd_psi *psi, int *ret_line)
{
	struct line_iter it;
	struct span line;

	memset(psi, 0, sizeof(*psi));
	lines_init(&it, text, len);
	while (lines_next(&it, &line)) {
		struct tierd_psi_line *out;
		struct span kind;
		bool *has;

		if (!span_is_text(line, false))
			return malformed(ret_line, it.nr);
		kind = span_take_word(&line);
		if (kind.len == 0)
			return malformed(ret_line, it.nr);
		if (span_eq(kind, "some")) {
			out = &psi->some;
			has = &psi->has_some;
		} else if (span_eq(kind, "full")) {
			out = &psi->full;
			has = &psi->has_full;
		} else {
			continue;
		}
		if (*has || !parse_psi_fields(line, out))
			return malformed(ret_line, it.nr);
		*has = true;
	}
	if (!psi->has_some && !psi->has_full)
		return -ENODATA;
	return 0;
}

/* The whole text as one non-empty line, its optional '\n' dropped. */
static bool single_line(const char *text, size_t len, struct span *ret)
{
	struct span s = { .p = text, .len = len };

	if (s.len && s.p[s.len - 1] == '\n')
		s.len--;
	if (s.len == 0 || !span_is_text(s, false))
		return false;
	*ret = s;
	return true;
}

int tierd_kparse_limit(const char *text, size_t len, uint64_t *ret_bytes)
{
	struct span s;
	uint64_t v;

	if (!single_line(text, len, &s))
		return -EINVAL;
	if (span_eq(s, "max")) {
		*ret_bytes = TIERD_LIMIT_NONE;
		return 0;
	}
	if (!span_eat_u64(&s, &v) || s.len)
		return -EINVAL;
	*ret_bytes = v;
	return 0;
}

int tierd_kparse_u64(const char *text, size_t len, uint64_t *ret_value)
{
	struct span s;
	uint64_t v;

	if (!single_line(text, len, &s) || !span_eat_u64(&s, &v) || s.len)
		return -EINVAL;
	*ret_value = v;
	return 0;
}

/* The rest of a MemTotal/MemFree line: padding spaces, a count, " kB". */
static bool parse_meminfo_kib(struct span s, uint64_t *ret_bytes)
{
	uint64_t kib;
	size_t pad = 0;

	while (pad < s.len && s.p[pad] == ' ')
		pad++;
	if (pad == 0)
		return false;
	span_skip(&s, pad);
	if (!span_eat_u64(&s, &kib) || !span_eat_str(&s, " kB") || s.len)
		return false;
	if (kib > UINT64_MAX / KIB_BYTES)
		return false;
	*ret_bytes = kib * KIB_BYTES;
	return true;
}

/* "MemTotal" of "MemTotal:   ...", s left after the colon. Every key ends
 * in one, so a line without it (or with a space first) is cut or foreign;
 * the empty span is returned then. */
static struct span span_take_meminfo_key(struct span *s)
{
	struct span key = { .p = s->p, .len = 0 };

	while (key.len < s->len && s->p[key.len] != ':' && s->p[key.len] != ' ')
		key.len++;
	if (key.len == s->len || s->p[key.len] != ':') {
		key.len = 0;
		return key;
	}
	span_skip(s, key.len + 1);
	return key;
}

int tierd_kparse_node_meminfo(const char *text, size_t len, uint64_t *ret_total,
			      uint64_t *ret_free, int *ret_line)
{
	bool has_nid = false, has_total = false, has_free = false;
	uint64_t nid = 0, total = 0, free_bytes = 0;
	struct line_iter it;
	struct span line;

	lines_init(&it, text, len);
	while (lines_next(&it, &line)) {
		uint64_t line_nid;
		struct span key;
		uint64_t *out;
		bool *has;

		if (!span_is_text(line, false) || !span_eat_str(&line, "Node ") ||
		    !span_eat_u64(&line, &line_nid) || !span_eat_str(&line, " "))
			return malformed(ret_line, it.nr);
		/* One file describes one node: another id means a spliced read. */
		if (has_nid && line_nid != nid)
			return malformed(ret_line, it.nr);
		nid = line_nid;
		has_nid = true;
		key = span_take_meminfo_key(&line);
		if (key.len == 0)
			return malformed(ret_line, it.nr);
		if (span_eq(key, "MemTotal")) {
			out = &total;
			has = &has_total;
		} else if (span_eq(key, "MemFree")) {
			out = &free_bytes;
			has = &has_free;
		} else {
			continue;
		}
		if (*has || !parse_meminfo_kib(line, out))
			return malformed(ret_line, it.nr);
		*has = true;
	}
	if (!has_total || !has_free)
		return -ENODATA;
	*ret_total = total;
	*ret_free = free_bytes;
	return 0;
}

/* "major:minor" */
static bool span_is_devno(struct span s)
{
	uint64_t ignored;

	return span_eat_u64(&s, &ignored) && span_eat_str(&s, ":") &&
	       span_eat_u64(&s, &ignored) && s.len == 0;
}

/* Whether the comma-separated options hold exactly word. */
static bool has_option(struct span opts, const char *word)
{
	while (opts.len) {
		const char *comma = memchr(opts.p, ',', opts.len);
		struct span opt = { .p = opts.p, .len = comma ? (size_t)(comma - opts.p) : opts.len };

		if (span_eq(opt, word))
			return true;
		span_skip(&opts, comma ? opt.len + 1 : opt.len);
	}
	return false;
}

/* Undoes the kernel's \ooo escaping of a mount point into buf (a C string,
 * so an escaped NUL is refused). */
static int decode_mount_path(struct span s, char *buf, size_t size)
{
	size_t n = 0;

	while (s.len) {
		unsigned char c = (unsigned char)s.p[0];

		if (c == '\\') {
			unsigned v = 0;

			if (s.len < 1 + OCTAL_ESCAPE_DIGITS)
				return -EINVAL;
			for (int i = 1; i <= OCTAL_ESCAPE_DIGITS; i++) {
				if (s.p[i] < '0' || s.p[i] > '7')
					return -EINVAL;
				v = v * OCTAL_BASE + (unsigned)(s.p[i] - '0');
			}
			if (v == 0 || v > UCHAR_MAX)
				return -EINVAL;
			c = (unsigned char)v;
			span_skip(&s, 1 + OCTAL_ESCAPE_DIGITS);
		} else {
			span_skip(&s, 1);
		}
		if (n + 1 >= size)
			return -ENAMETOOLONG;
		buf[n++] = (char)c;
	}
	buf[n] = '\0';
	return 0;
}

/* One mountinfo line: "id parent maj:min root mountpoint options
 * [optional...] - fstype source superoptions". Fields past the super
 * options are ignored: proc(5) allows the format to grow at the end. */
static int parse_mount_line(struct span line, struct tierd_mounts *mounts)
{
	struct field_iter f = { .rest = line, .done = false };
	struct span id, parent, devno, root, mount_point, options, field;
	struct span fstype, source, super_opts;
	int r;

	if (!fields_next(&f, &id) || !span_is_u64(id) ||
	    !fields_next(&f, &parent) || !span_is_u64(parent) ||
	    !fields_next(&f, &devno) || !span_is_devno(devno) ||
	    !fields_next(&f, &root) || root.len == 0 ||
	    !fields_next(&f, &mount_point) || mount_point.len == 0 ||
	    !fields_next(&f, &options) || options.len == 0)
		return -EINVAL;
	do {
		if (!fields_next(&f, &field) || field.len == 0)
			return -EINVAL;
	} while (!span_eq(field, "-"));
	/* The source alone may be empty: mount(2) accepts "" for it. */
	if (!fields_next(&f, &fstype) || fstype.len == 0 || !fields_next(&f, &source) ||
	    !fields_next(&f, &super_opts) || super_opts.len == 0)
		return -EINVAL;

	if (span_eq(fstype, "cgroup2")) {
		if (mounts->has_cgroup2)
			return 0;
		r = decode_mount_path(mount_point, mounts->cgroup2_path,
				      sizeof(mounts->cgroup2_path));
		if (r < 0)
			return r;
		mounts->has_cgroup2 = true;
	} else if (span_eq(fstype, "cgroup") && has_option(super_opts, "memory")) {
		mounts->memory_v1 = true;
	}
	return 0;
}

int tierd_kparse_mountinfo(const char *text, size_t len, struct tierd_mounts *mounts,
			   int *ret_line)
{
	struct line_iter it;
	struct span line;

	memset(mounts, 0, sizeof(*mounts));
	lines_init(&it, text, len);
	while (lines_next(&it, &line)) {
		int r;

		if (!span_is_text(line, true))
			return malformed(ret_line, it.nr);
		r = parse_mount_line(line, mounts);
		if (r < 0) {
			if (ret_line)
				*ret_line = it.nr;
			return r;
		}
	}
	return 0;
}
