// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gen-profile - write a synthetic, kernel-sized gcov directory for benchmarks.
 *
 * The output is laid out like /sys/kernel/debug/gcov:
 *
 *   DIR/<build root>/<subdirs>/<obj>.gcda   (+ <obj>.gcno symbolic links)
 *
 * and every .gcda is written the way the kernel writes it (GCC 12 layout,
 * kernel/gcov/gcc_4_7.c convert_to_gcda): magic, version "B22*", stamp,
 * checksum 0, then per function a FUNCTION record and an arc COUNTERS
 * record, no OBJECT_SUMMARY. --summary adds the summary GCC's own runtime
 * writes (runs 1, sum_max the largest counter of the whole profile, capped
 * to 32 bits as GCC stores it), for tools that want one.
 *
 * The shape of the build (file names, functions, idents, checksums, stamps,
 * counters per function, and which code is ever executed) depends only on
 * --seed; --run changes only the counter values, so runs 0..99 of one seed
 * are 100 profiles of the same kernel build that merge without mismatches.
 * Objects are generated independently of each other (one PRNG stream per
 * object and purpose), so -n does not change the first objects.
 *
 * Sizes are modelled on Debian's 6.1 amd64 kernel (linux-source-6.1 with
 * config.amd64_none_amd64, CONFIG_GCOV_PROFILE_ALL=y): 13,522 profiled C
 * objects, 2,312 of them built in and 11,210 in modules, in 1,174
 * directories; see docs/BENCHMARKS.md for how that was counted. The
 * functions-per-object and counters-per-function distributions below are the
 * quantiles measured on 239 randomly chosen objects of that build, compiled
 * with the kernel's own gcov flags (one __gcov0.<fn> array per function,
 * its size / 8 = its arc counters): 29.1 functions per object and 11.5
 * counters per function on average.
 *
 * Counter values imitate a kernel's: about a third of the objects (modules
 * loaded but unused) and half of the functions of the others are never
 * executed; executed functions have entry counts with a geometric number of
 * decimal digits (median around 10, up to 10^10), never-taken branches, and
 * loop arcs up to a thousand times the entry count: with the defaults 77% of
 * the counters are zero and some 4,600 exceed 2^32. Every counter stays
 * below 2^44, so 100 runs add up without any overflow and gcov-tool (which
 * wraps) and kpgo (which saturates) must agree exactly.
 *
 * Usage: gen-profile [options] -o DIR    (gen-profile -h for the options)
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gcda.h"
#include "strbuf.h"

#define VERSION_B22 0x4232322au /* "B22*", GCC 12.2 */
#define CTR_CAP (UINT64_C(1) << 44)

static const char usage_text[] =
	"usage: gen-profile [options] -o DIR\n"
	"\n"
	"Writes a kernel-style gcov directory (like /sys/kernel/debug/gcov) below DIR.\n"
	"\n"
	"  -o, --output DIR       where to write (created; must not hold a profile yet)\n"
	"  -n, --objects N        objects (.gcda files), default 15000\n"
	"  -f, --functions MEAN   mean functions per object, default 29 (measured\n"
	"                         distribution, scaled to this mean)\n"
	"  -c, --counters MEAN    mean arc counters per function, default 11.5 (same)\n"
	"  -s, --seed N           the kernel build: names, functions, checksums (default 1)\n"
	"  -r, --run N            the training run: changes counter values only (default 0)\n"
	"      --root PATH        the instrumented build root (default /build/linux-6.1)\n"
	"      --summary          add GCC's runtime OBJECT_SUMMARY (not what the kernel writes)\n"
	"      --no-gcno          leave out the .gcno symbolic links\n"
	"      --values MODEL     'flow' (default): arcs on one path count alike, as in\n"
	"                         a real profile; 'random': every arc drawn on its own\n"
	"  -q, --quiet            no summary line on stdout\n"
	"\n"
	"Prints one line: objects, functions, counters, bytes, largest counter,\n"
	"share of zero counters.\n";

static void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("gen-profile: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* --- deterministic randomness ------------------------------------------ */

/* splitmix64: tiny, good enough, and identical on every platform. */
struct rng {
	uint64_t s;
};

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static uint64_t rng_next(struct rng *r)
{
	r->s += UINT64_C(0x9e3779b97f4a7c15);
	return mix64(r->s);
}

/* An independent stream for (seed, run, object, purpose). */
static void rng_stream(struct rng *r, uint64_t seed, uint64_t run, uint64_t obj, uint64_t purpose)
{
	r->s = mix64(mix64(mix64(mix64(seed) ^ run) ^ obj) ^ purpose);
}

enum { STREAM_PATHS = 1, STREAM_SHAPE, STREAM_COUNTS };

/* Uniform in [0, 1). */
static double rng_unit(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

static uint64_t rng_below(struct rng *r, uint64_t n)
{
	return n ? rng_next(r) % n : 0;
}

static bool rng_chance(struct rng *r, double p)
{
	return rng_unit(r) < p;
}

/* --- measured distributions ------------------------------------------- */

/*
 * Quantiles at QP[] of functions per object and counters per function,
 * measured on 239 objects (6,950 functions) of Debian's 6.1 amd64 config
 * compiled with gcov; see the header comment. Sampled by linear
 * interpolation of the inverse CDF.
 */
static const double QP[] = { 0,	  .05, .10, .15, .20, .25, .30, .35, .40,  .45, .50,  .55,
			     .60, .65, .70, .75, .80, .85, .90, .95, .975, .99, .995, 1 };
static const double Q_FNS[] = { 1,  2,	4,  4,	5,  7,	10, 12, 13,  15,  18,  22,
				25, 28, 34, 38, 42, 47, 66, 92, 133, 195, 218, 233 };
static const double Q_CTRS[] = { 1, 2, 2,  2,  3,  3,  4,  4,  5,  5,  6,  7,
				 8, 9, 11, 13, 15, 20, 26, 38, 54, 81, 99, 322 };
#define NQ (sizeof(QP) / sizeof(QP[0]))

static double quantile(const double *q, double u)
{
	size_t i;

	for (i = 1; i < NQ - 1 && u >= QP[i]; i++)
		;
	return q[i - 1] + (q[i] - q[i - 1]) * (u - QP[i - 1]) / (QP[i] - QP[i - 1]);
}

/* Mean of the interpolated distribution (piecewise linear inverse CDF). */
static double quantile_mean(const double *q)
{
	double m = 0;
	size_t i;

	for (i = 1; i < NQ; i++)
		m += (QP[i] - QP[i - 1]) * (q[i] + q[i - 1]) / 2;
	return m;
}

static uint32_t draw(struct rng *r, const double *q, double scale, uint32_t max)
{
	double v = quantile(q, rng_unit(r)) * scale;
	uint32_t n;

	if (v < 1)
		v = 1;
	n = v >= max ? max : (uint32_t)(v + 0.5);
	return n ? n : 1;
}

/* --- file names ------------------------------------------------------- */

/* Top-level directories weighted by the Debian build's profiled objects. */
static const struct {
	const char *name;
	unsigned weight;
} TOPS[] = {
	{ "drivers", 8902 }, { "net", 1340 },	{ "fs", 1218 },	 { "sound", 690 },
	{ "arch/x86", 376 }, { "kernel", 282 }, { "lib", 249 },	 { "crypto", 140 },
	{ "security", 120 }, { "mm", 94 },	{ "block", 63 }, { "io_uring", 26 },
	{ "ipc", 11 },	     { "virt", 4 },
};
#define NTOPS (sizeof(TOPS) / sizeof(TOPS[0]))

/*
 * Below the top: 1 to 5 more levels (the build's objects sit 2 to 5 levels
 * deep), names drawn from a few per level so that directories share
 * parents; about 11.5 objects per directory, as in the build.
 */
static void next_dir(struct rng *r, struct strbuf *dir)
{
	static const unsigned depth_w[] = { 4, 30, 28, 16, 12, 10 }; /* levels below top */
	unsigned total = 0, t, i, depth = 0;
	uint64_t x;

	for (i = 0; i < NTOPS; i++)
		total += TOPS[i].weight;
	x = rng_below(r, total);
	for (t = 0; t < NTOPS - 1 && x >= TOPS[t].weight; t++)
		x -= TOPS[t].weight;
	x = rng_below(r, 100);
	while (depth < 5 && x >= depth_w[depth]) {
		x -= depth_w[depth];
		depth++;
	}
	strbuf_reset(dir);
	if (strbuf_addstr(dir, TOPS[t].name))
		die("out of memory");
	for (i = 0; i < depth; i++)
		if (strbuf_addf(dir, "/%c%" PRIu64, "dsnmcp"[i], rng_below(r, i ? 12 : 40)))
			die("out of memory");
}

/* --- output ----------------------------------------------------------- */

static void mkdirs(const char *path)
{
	char buf[4096];
	size_t i, n = strlen(path);

	if (n >= sizeof(buf))
		die("path too long: '%s'", path);
	memcpy(buf, path, n + 1);
	for (i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		buf[i] = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			die("cannot create '%s': %s", buf, strerror(errno));
		buf[i] = path[i];
	}
}

static void write_all(const char *path, const void *data, size_t len)
{
	const char *p = data;
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	if (fd < 0)
		die("cannot create '%s': %s", path, strerror(errno));
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("cannot write '%s': %s", path, n < 0 ? strerror(errno) : "short write");
		p += n;
		len -= (size_t)n;
	}
	if (close(fd) < 0)
		die("cannot write '%s': %s", path, strerror(errno));
}

/* --- one object ------------------------------------------------------- */

struct params {
	uint64_t seed, run;
	double fn_scale, ctr_scale;
	bool random_values;
};

struct stats {
	uint64_t functions, counters, zeros, bytes, max;
};

/* A count with a geometric number of decimal digits: mostly small, a long tail. */
static double heavy_tail(struct rng *r, double p_more, unsigned max_digits)
{
	double lo = 1;
	unsigned d;

	for (d = 0; d < max_digits && rng_chance(r, p_more); d++)
		lo *= 10;
	return lo * (1 + 9 * rng_unit(r));
}

static uint64_t clamp_count(double v)
{
	if (v < 0.5)
		return 0;
	if (v >= (double)CTR_CAP)
		return CTR_CAP - 1;
	return (uint64_t)(v + 0.5);
}

/*
 * Object @i's functions and counters. Everything but the counter values
 * comes from the SHAPE stream, the values' variation from the COUNTS
 * stream alone, so runs differ in counter values only.
 */
static void make_object(const struct params *pp, uint64_t i, struct kpgo_gcda *g)
{
	struct rng shape, counts;
	uint32_t n_fns, f, a;
	bool obj_cold;
	size_t alloc = 0;

	rng_stream(&shape, pp->seed, 0, i, STREAM_SHAPE);
	rng_stream(&counts, pp->seed, pp->run + 1, i, STREAM_COUNTS);

	kpgo_gcda_init(g);
	g->version = VERSION_B22;
	g->stamp = (uint32_t)rng_next(&shape);
	g->checksum = 0; /* the kernel has none to give */
	/* init/main.o is every kernel's, and busy. */
	obj_cold = i != 0 && rng_chance(&shape, 0.3);
	n_fns = draw(&shape, Q_FNS, pp->fn_scale, 20000);
	g->fns = calloc(n_fns, sizeof(*g->fns));
	if (!g->fns)
		die("out of memory");
	for (f = 0; f < n_fns; f++) {
		struct kpgo_gcda_fn *fn = &g->fns[f];
		uint32_t n_arcs = draw(&shape, Q_CTRS, pp->ctr_scale, 100000), k;
		bool fn_cold = obj_cold || rng_chance(&shape, 0.5);
		double entry = heavy_tail(&shape, 0.55, 9);
		double flow[4], run_entry;

		/* GCC 12's idents are 31-bit hashes (cgraph profile_id), unique per object. */
		do {
			fn->ident = (uint32_t)rng_next(&shape) & 0x7fffffffu;
			for (k = 0; k < f && fn->ident != g->fns[k].ident; k++)
				;
		} while (!fn->ident || k < f);
		fn->lineno_checksum = (uint32_t)rng_next(&shape);
		/*
		 * Functions with the same control flow share a cfg_checksum: half
		 * of the functions measured did, nearly all of them small.
		 */
		if (rng_chance(&shape, 0.5))
			fn->cfg_checksum = (uint32_t)mix64((uint64_t)n_arcs << 8 |
							   rng_below(&shape, 4));
		else
			fn->cfg_checksum = (uint32_t)rng_next(&shape);
		fn->n_arcs = n_arcs;
		fn->arcs = g->n_ctrs;
		if (g->n_ctrs + n_arcs > alloc) {
			alloc = (g->n_ctrs + n_arcs) * 2;
			g->ctrs = realloc(g->ctrs, alloc * sizeof(*g->ctrs));
			if (!g->ctrs)
				die("out of memory");
		}
		/* This run: the function ran or not, and how often relative to usual. */
		run_entry = rng_chance(&counts, 0.97) ? entry * (0.5 + 1.5 * rng_unit(&counts)) : 0;
		if (fn_cold)
			run_entry = 0;
		/*
		 * The flows through the function: entry, two branch shares and a
		 * loop. Arcs on the same flow count the same, as in a real
		 * profile (flow conservation); --values random draws every arc
		 * on its own instead, a worst case for compression.
		 */
		flow[0] = 1;
		flow[1] = rng_unit(&shape) * (0.8 + 0.45 * rng_unit(&counts));
		flow[2] = rng_unit(&shape) * (0.8 + 0.45 * rng_unit(&counts));
		flow[3] = heavy_tail(&shape, 0.5, 2) * (0.8 + 0.45 * rng_unit(&counts));
		for (a = 0; a < n_arcs; a++) {
			uint64_t kind = rng_below(&shape, 20);
			double frac;

			if (pp->random_values) {
				if (kind < 6) /* a branch never taken */
					frac = 0;
				else if (kind < 16) /* a branch taken some of the time */
					frac = rng_unit(&shape);
				else /* a loop body */
					frac = heavy_tail(&shape, 0.5, 2);
				frac *= 0.8 + 0.45 * rng_unit(&counts);
			} else if (kind < 7) {
				frac = 0; /* error paths, never taken */
			} else if (kind < 13) {
				frac = flow[0];
			} else if (kind < 18) {
				frac = flow[1 + (kind & 1)];
			} else {
				frac = flow[3];
			}
			g->ctrs[g->n_ctrs++] = clamp_count(run_entry * frac);
		}
	}
	g->n_fns = n_fns;
}

static void account(const struct kpgo_gcda *g, struct stats *st)
{
	size_t k;

	st->functions += g->n_fns;
	st->counters += g->n_ctrs;
	for (k = 0; k < g->n_ctrs; k++) {
		if (!g->ctrs[k])
			st->zeros++;
		if (g->ctrs[k] > st->max)
			st->max = g->ctrs[k];
	}
}

static uint64_t parse_num(const char *opt, const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-')
		die("%s: bad number '%s'", opt, s);
	return v;
}

static double parse_mean(const char *opt, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 1 && v <= 10000))
		die("%s: bad mean '%s' (1 to 10000)", opt, s);
	return v;
}

int main(int argc, char **argv)
{
	enum { OPT_ROOT = 256, OPT_SUMMARY, OPT_NO_GCNO, OPT_VALUES };
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "objects", required_argument, NULL, 'n' },
		{ "functions", required_argument, NULL, 'f' },
		{ "counters", required_argument, NULL, 'c' },
		{ "seed", required_argument, NULL, 's' },
		{ "run", required_argument, NULL, 'r' },
		{ "root", required_argument, NULL, OPT_ROOT },
		{ "summary", no_argument, NULL, OPT_SUMMARY },
		{ "no-gcno", no_argument, NULL, OPT_NO_GCNO },
		{ "values", required_argument, NULL, OPT_VALUES },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL, *root = "/build/linux-6.1";
	double fn_mean = 0, ctr_mean = 0;
	bool summary = false, gcno = true, quiet = false;
	uint64_t n_objs = 15000, i, sum_max = 0;
	struct params pp = { .seed = 1, .run = 0 };
	struct strbuf dir = STRBUF_INIT, prev = STRBUF_INIT, path = STRBUF_INIT;
	struct strbuf data = STRBUF_INIT, link = STRBUF_INIT;
	struct stats st = { 0 };
	struct rng paths;
	unsigned left_in_dir = 0, file_no = 0;
	int c;

	while ((c = getopt_long(argc, argv, "o:n:f:c:s:r:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'n': n_objs = parse_num("--objects", optarg); break;
		case 'f': fn_mean = parse_mean("--functions", optarg); break;
		case 'c': ctr_mean = parse_mean("--counters", optarg); break;
		case 's': pp.seed = parse_num("--seed", optarg); break;
		case 'r': pp.run = parse_num("--run", optarg); break;
		case OPT_ROOT: root = optarg; break;
		case OPT_SUMMARY: summary = true; break;
		case OPT_NO_GCNO: gcno = false; break;
		case OPT_VALUES:
			if (strcmp(optarg, "flow") && strcmp(optarg, "random"))
				die("--values: 'flow' or 'random', not '%s'", optarg);
			pp.random_values = !strcmp(optarg, "random");
			break;
		case 'q': quiet = true; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: fputs(usage_text, stderr); return 2;
		}
	}
	if (!out || optind != argc || n_objs == 0 || n_objs > 1000000 || root[0] != '/' ||
	    strstr(root, "//") || strstr(root, "/.")) {
		fputs(usage_text, stderr);
		return 2;
	}
	pp.fn_scale = fn_mean ? fn_mean / quantile_mean(Q_FNS) : 1;
	pp.ctr_scale = ctr_mean ? ctr_mean / quantile_mean(Q_CTRS) : 1;

	if (summary) {
		/* GCC's runtime writes the whole program's largest counter in every file. */
		for (i = 0; i < n_objs; i++) {
			struct kpgo_gcda g;

			make_object(&pp, i, &g);
			sum_max = kpgo_gcda_max(&g) > sum_max ? kpgo_gcda_max(&g) : sum_max;
			kpgo_gcda_release(&g);
		}
		if (sum_max > UINT32_MAX)
			sum_max = UINT32_MAX;
	}

	rng_stream(&paths, pp.seed, 0, 0, STREAM_PATHS);
	for (i = 0; i < n_objs; i++) {
		struct kpgo_gcda g;
		int r;

		if (i == 0) {
			if (strbuf_addstr(&dir, "init"))
				die("out of memory");
			left_in_dir = 7;
		} else if (left_in_dir == 0) {
			/* A new directory; the names may repeat an earlier one's, then share it. */
			next_dir(&paths, &dir);
			left_in_dir = 1 + (unsigned)rng_below(&paths, 22);
		}
		left_in_dir--;
		if (strcmp(dir.buf, prev.buf)) {
			strbuf_reset(&path);
			if (strbuf_addf(&path, "%s%s/%s", out, root, dir.buf))
				die("out of memory");
			mkdirs(path.buf);
			strbuf_reset(&prev);
			if (strbuf_addstr(&prev, dir.buf))
				die("out of memory");
		}

		make_object(&pp, i, &g);
		account(&g, &st);
		if (summary) {
			g.runs = 1;
			g.sum_max = sum_max;
		}
		strbuf_reset(&data);
		r = kpgo_gcda_write(&g, summary ? KPGO_GCDA_SUMMARY : 0, &data);
		if (r)
			die("cannot encode object %" PRIu64 ": %s", i, strerror(-r));
		st.bytes += data.len;

		/* The file number is global, so a shared directory never repeats a name. */
		strbuf_reset(&path);
		if (i == 0)
			r = strbuf_addf(&path, "%s%s/init/main", out, root);
		else
			r = strbuf_addf(&path, "%s%s/%s/o%u", out, root, dir.buf, file_no++);
		if (r || strbuf_addstr(&path, ".gcda"))
			die("out of memory");
		write_all(path.buf, data.buf, data.len);
		if (gcno) {
			/* As in debugfs: a link to the .gcno in the build tree. */
			strbuf_reset(&link);
			path.len -= 5;
			path.buf[path.len] = '\0';
			if (strbuf_addf(&link, "%s%s", root, path.buf + strlen(out) + strlen(root)) ||
			    strbuf_addstr(&link, ".gcno") || strbuf_addstr(&path, ".gcno"))
				die("out of memory");
			if (symlink(link.buf, path.buf) < 0)
				die("cannot create '%s': %s", path.buf, strerror(errno));
		}
		kpgo_gcda_release(&g);
	}
	if (!quiet)
		printf("objects %" PRIu64 " functions %" PRIu64 " counters %" PRIu64
		       " bytes %" PRIu64 " max %" PRIu64 " zero %.1f%%\n",
		       n_objs, st.functions, st.counters, st.bytes, st.max,
		       st.counters ? 100.0 * (double)st.zeros / (double)st.counters : 0.0);
	strbuf_release(&dir);
	strbuf_release(&prev);
	strbuf_release(&path);
	strbuf_release(&data);
	strbuf_release(&link);
	return 0;
}
