/* Human-readable tables of the topology and of a report, as `tierd --once`,
 * `tierctl status` and `tierctl topology` print them. */
#ifndef TIERD_TABLE_H
#define TIERD_TABLE_H

#include <stdio.h>

#include "../report/report.h"

void tierd_topology_print(FILE *f, const struct tierd_topology *topo);
void tierd_report_print(FILE *f, const struct tierd_report *rep);
/* "4 tiers, 12 cgroups managed, 2 over budget" */
void tierd_report_summary(const struct tierd_report *rep, char *buf, size_t size);

#endif
