/* Sizes, percentages and durations as operators write them in JSON
 * ("512M", "4G", "25%", "10s"). Pure: no I/O.
 * Project-wide units: bytes (uint64_t), microseconds (uint64_t, *_usec),
 * ratios in permyriad (1/10000, *_pmy). */
#ifndef TIERD_UNITS_H
#define TIERD_UNITS_H

#include <stdint.h>

#define TIERD_PMY_ONE 10000u /* 100% in permyriad */
#define TIERD_USEC_PER_MSEC 1000ull
#define TIERD_USEC_PER_SEC 1000000ull

/* "123", "512K", "512M", "4G", "1T", optionally followed by "B" or "iB"
 * (binary multiples, as memparse() in the kernel). Returns 0, -EINVAL on
 * malformed text, -ERANGE on overflow. */
int tierd_parse_bytes(const char *text, uint64_t *ret_bytes);

/* "25%", "12.5%", "0.01%" → permyriad (0..10000). Returns 0, -EINVAL on
 * malformed text or more than two decimals, -ERANGE above 100%. `rest` gets
 * the text after '%' (may be ""). */
int tierd_parse_percent(const char *text, uint32_t *ret_pmy, const char **ret_rest);

/* "250ms", "10s", "2m", "1h", "500us" → microseconds. A bare number is
 * refused (-EINVAL): a duration must say its unit. */
int tierd_parse_duration(const char *text, uint64_t *ret_usec);

/* Formats bytes the way the tables print them: "512.0M", "3.2G", "900.0K", "12B". */
void tierd_format_bytes(uint64_t bytes, char *buf, int size);

#endif
