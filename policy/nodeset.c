/* Node sets and the kernel's list format. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nodeset.h"

void tierd_nodeset_clear(struct tierd_nodeset *set)
{
	memset(set, 0, sizeof(*set));
}

int tierd_nodeset_add(struct tierd_nodeset *set, int nid)
{
	if (nid < 0 || nid >= TIERD_NODESET_MAX_NODES)
		return -ERANGE;
	set->bits[nid / 64] |= 1ull << (nid % 64);
	return 0;
}

bool tierd_nodeset_has(const struct tierd_nodeset *set, int nid)
{
	if (nid < 0 || nid >= TIERD_NODESET_MAX_NODES)
		return false;
	return set->bits[nid / 64] & (1ull << (nid % 64));
}

size_t tierd_nodeset_count(const struct tierd_nodeset *set)
{
	size_t n = 0;

	for (size_t i = 0; i < TIERD_NODESET_WORDS; i++)
		n += (size_t)__builtin_popcountll(set->bits[i]);
	return n;
}

bool tierd_nodeset_empty(const struct tierd_nodeset *set)
{
	return tierd_nodeset_count(set) == 0;
}

bool tierd_nodeset_intersects(const struct tierd_nodeset *a, const struct tierd_nodeset *b)
{
	for (size_t i = 0; i < TIERD_NODESET_WORDS; i++)
		if (a->bits[i] & b->bits[i])
			return true;
	return false;
}

bool tierd_nodeset_equal(const struct tierd_nodeset *a, const struct tierd_nodeset *b)
{
	return memcmp(a->bits, b->bits, sizeof(a->bits)) == 0;
}

int tierd_nodeset_next(const struct tierd_nodeset *set, int after)
{
	for (int nid = after + 1; nid < TIERD_NODESET_MAX_NODES; nid++)
		if (tierd_nodeset_has(set, nid))
			return nid;
	return -1;
}

/* Reads a decimal node id at *p; -EINVAL when there is none, -ERANGE when it
 * is too large. */
static int parse_nid(const char **p, int *ret_nid)
{
	long v = 0;

	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	while (isdigit((unsigned char)**p)) {
		v = v * 10 + (**p - '0');
		if (v >= TIERD_NODESET_MAX_NODES)
			return -ERANGE;
		(*p)++;
	}
	*ret_nid = (int)v;
	return 0;
}

int tierd_nodeset_parse(const char *text, struct tierd_nodeset *out)
{
	struct tierd_nodeset set;
	const char *p = text;
	int r;

	tierd_nodeset_clear(&set);
	while (*p == ' ' || *p == '\t')
		p++;
	while (*p && *p != '\n' && *p != ' ' && *p != '\t') {
		int first, last;

		r = parse_nid(&p, &first);
		if (r < 0)
			return r;
		last = first;
		if (*p == '-') {
			p++;
			r = parse_nid(&p, &last);
			if (r < 0)
				return r;
			if (last < first)
				return -EINVAL;
		}
		for (int nid = first; nid <= last; nid++)
			(void)tierd_nodeset_add(&set, nid);
		if (*p == ',') {
			p++;
			if (!isdigit((unsigned char)*p))
				return -EINVAL;
		}
	}
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '\n')
		p++;
	if (*p)
		return -EINVAL;
	*out = set;
	return 0;
}

int tierd_nodeset_format(const struct tierd_nodeset *set, char *buf, size_t size)
{
	size_t len = 0;
	int nid = tierd_nodeset_next(set, -1);

	if (size == 0)
		return -ENOSPC;
	buf[0] = '\0';
	while (nid >= 0) {
		int last = nid, n;

		while (tierd_nodeset_has(set, last + 1))
			last++;
		if (last == nid)
			n = snprintf(buf + len, size - len, "%s%d", len ? "," : "", nid);
		else
			n = snprintf(buf + len, size - len, "%s%d-%d", len ? "," : "", nid, last);
		if (n < 0 || (size_t)n >= size - len)
			return -ENOSPC;
		len += (size_t)n;
		nid = tierd_nodeset_next(set, last);
	}
	return (int)len;
}
