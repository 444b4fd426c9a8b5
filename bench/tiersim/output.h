/* Results out: the table on stdout and the CSV files. Formats are
 * documented in bench/README.md. */
#ifndef TIERSIM_OUTPUT_H
#define TIERSIM_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

#include "run.h"

void tiersim_table_header(FILE *f);
void tiersim_table_row(FILE *f, const struct tiersim_result *r);

/* "gups-1-1-2-2-mole": the name a run's files carry. */
void tiersim_run_label(const struct tiersim_result *r, bool with_strategy, char *buf, size_t size);

/* Writes the summary CSV, one line per run. Returns 0 or -errno. */
int tiersim_csv_summary(const char *path, const struct tiersim_result *results, size_t n);
/* Writes one run's time series, one line per tick. Returns 0 or -errno. */
int tiersim_csv_series(const char *path, const struct tiersim_result *r);

#endif
