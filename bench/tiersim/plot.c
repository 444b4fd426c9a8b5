/* The gnuplot scripts and running gnuplot. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plot.h"

bool tiersim_gnuplot_available(void)
{
	const char *path = getenv("PATH");
	char dir[4096];

	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");
		char file[4200];

		if (len && len < sizeof(dir)) {
			memcpy(dir, path, len);
			dir[len] = '\0';
			snprintf(file, sizeof(file), "%s/gnuplot", dir);
			if (access(file, X_OK) == 0)
				return true;
		}
		path += len;
		if (*path == ':')
			path++;
	}
	return false;
}

static void plot_lines(FILE *f, const char *label, const char *const *strategies, size_t n,
		       int column)
{
	fprintf(f, "plot ");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "'series-%s-%s.csv' every ::1 using 1:%d with lines lw 2 title '%s', \\\n     ",
			label, strategies[i], column, strategies[i]);
	/* Every series file carries the oracle's column; draw it once. */
	if (column == 3 && n)
		fprintf(f, "'series-%s-%s.csv' every ::1 using 1:4 with lines dt 2 lw 2 lc rgb 'black' "
			   "title 'oracle'\n", label, strategies[0]);
	else if (column == 5)
		fprintf(f, "1 with lines dt 2 lc rgb 'black' title 'oracle'\n");
	else
		fprintf(f, "NaN notitle\n");
}

static int run_gnuplot(const char *dir, const char *script)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);

		/* Its chatter about empty ranges is not ours to print. */
		if (devnull >= 0)
			(void)dup2(devnull, STDOUT_FILENO);
		if (chdir(dir) < 0)
			_exit(127);
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EIO;
}

int tiersim_plot(const char *dir, const char *label, const char *const *strategies, size_t n,
		 bool run)
{
	char script[256], path[4400];
	FILE *f;
	int r;

	snprintf(script, sizeof(script), "plot-%s.gp", label);
	snprintf(path, sizeof(path), "%s/%s", dir, script);
	f = fopen(path, "we");
	if (!f)
		return -errno;
	fprintf(f, "# tiersim: %s. Run in this directory: gnuplot %s\n", label, script);
	fprintf(f, "set datafile separator ','\n"
		   "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
		   "  set terminal pngcairo size 1100,600 noenhanced\n"
		   "} else {\n"
		   "  set terminal png size 1100,600 noenhanced\n"
		   "}\n"
		   "set key outside right\n"
		   "set grid\n"
		   "set xlabel 'time (s)'\n");
	fprintf(f, "set output 'latency-%s.png'\n"
		   "set title '%s: mean access latency per tick'\n"
		   "set ylabel 'ns'\n", label, label);
	plot_lines(f, label, strategies, n, 3);
	fprintf(f, "set output 'hotfrac-%s.png'\n"
		   "set title '%s: tier 0 share of the hot set''s accesses'\n"
		   "set ylabel 'fraction'\n"
		   "set yrange [0:1.05]\n", label, label);
	plot_lines(f, label, strategies, n, 5);
	r = ferror(f) ? -EIO : 0;
	if (fclose(f) != 0 && !r)
		r = -errno;
	if (r < 0 || !run)
		return r;
	return run_gnuplot(dir, script);
}
