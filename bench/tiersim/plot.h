/* PNG plots with gnuplot (Debian: gnuplot-nox): per workload and capacity
 * ratio, the mean access latency and the tier-0 hot-set fraction over time,
 * one line per strategy and the oracle's. The gnuplot script is always
 * written next to the CSVs; it is run only when gnuplot is installed. */
#ifndef TIERSIM_PLOT_H
#define TIERSIM_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Is a gnuplot executable on PATH? */
bool tiersim_gnuplot_available(void);

/* Writes DIR/plot-LABEL.gp over DIR/series-LABEL-STRATEGY.csv for each
 * strategy and, when run is true, runs it in DIR to make
 * latency-LABEL.png and hotfrac-LABEL.png. Returns 0, -errno, or -EIO when
 * gnuplot failed. */
int tiersim_plot(const char *dir, const char *label, const char *const *strategies, size_t n,
		 bool run);

#endif
