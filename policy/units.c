/* Sizes, percentages and durations as written in policies. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "units.h"

#define KIB 1024ull

/* Reads an unsigned decimal integer; -EINVAL when no digit, -ERANGE on
 * overflow. */
static int parse_u64(const char **p, uint64_t *ret)
{
	uint64_t v = 0;
	const char *s = *p;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return -ERANGE;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*p = s;
	*ret = v;
	return 0;
}

int tierd_parse_bytes(const char *text, uint64_t *ret_bytes)
{
	static const char suffixes[] = "KMGTPE";
	const char *p = text;
	uint64_t v, mult = 1;
	int r;

	r = parse_u64(&p, &v);
	if (r < 0)
		return r;
	if (*p) {
		const char *s = strchr(suffixes, *p);

		if (!s)
			return -EINVAL;
		for (const char *q = suffixes; q <= s; q++)
			mult *= KIB;
		p++;
		if (strcmp(p, "iB") == 0 || strcmp(p, "B") == 0)
			p += strlen(p);
	} else {
		*ret_bytes = v;
		return 0;
	}
	if (*p)
		return -EINVAL;
	if (v > UINT64_MAX / mult)
		return -ERANGE;
	*ret_bytes = v * mult;
	return 0;
}

int tierd_parse_percent(const char *text, uint32_t *ret_pmy, const char **ret_rest)
{
	/* Permyriad keeps two decimals of a percent exactly. */
	const uint64_t pmy_per_percent = TIERD_PMY_ONE / 100;
	const char *p = text;
	uint64_t whole, frac = 0;
	int r;

	r = parse_u64(&p, &whole);
	if (r < 0)
		return r;
	if (*p == '.') {
		int digits = 0;

		p++;
		for (; *p >= '0' && *p <= '9'; p++, digits++) {
			if (digits == 2)
				return -EINVAL;
			frac = frac * 10 + (uint64_t)(*p - '0');
		}
		if (digits == 0)
			return -EINVAL;
		if (digits == 1)
			frac *= 10;
	}
	if (*p != '%')
		return -EINVAL;
	if (whole > 100 || whole * pmy_per_percent + frac > TIERD_PMY_ONE)
		return -ERANGE;
	*ret_pmy = (uint32_t)(whole * pmy_per_percent + frac);
	if (ret_rest)
		*ret_rest = p + 1;
	return 0;
}

int tierd_parse_duration(const char *text, uint64_t *ret_usec)
{
	static const struct {
		const char *suffix;
		uint64_t usec;
	} units[] = {
		{ "us", 1 },
		{ "ms", TIERD_USEC_PER_MSEC },
		{ "s", TIERD_USEC_PER_SEC },
		{ "m", 60 * TIERD_USEC_PER_SEC },
		{ "h", 3600 * TIERD_USEC_PER_SEC },
	};
	const char *p = text;
	uint64_t v;
	int r;

	r = parse_u64(&p, &v);
	if (r < 0)
		return r;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(p, units[i].suffix) != 0)
			continue;
		if (v > UINT64_MAX / units[i].usec)
			return -ERANGE;
		*ret_usec = v * units[i].usec;
		return 0;
	}
	return -EINVAL;
}

void tierd_format_bytes(uint64_t bytes, char *buf, int size)
{
	static const char suffixes[] = "KMGTPE";
	double v = (double)bytes;
	int i = -1;

	while (v >= (double)KIB && i < (int)sizeof(suffixes) - 2) {
		v /= (double)KIB;
		i++;
	}
	if (i < 0)
		snprintf(buf, (size_t)size, "%lluB", (unsigned long long)bytes);
	else
		snprintf(buf, (size_t)size, "%.1f%c", v, suffixes[i]);
}
