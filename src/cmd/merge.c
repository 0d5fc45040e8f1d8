// SPDX-License-Identifier: GPL-2.0-or-later
/* kpgo merge: N profiles into one, weighted, in one streaming pass. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "merge.h"

static const char usage_text[] =
	"usage: kpgo merge [--weights W1,W2,...] [--allow-mismatch] -o OUT.kpgo IN.kpgo...\n"
	"\n"
	"Adds the counters of all inputs, each multiplied by its weight (a whole\n"
	"number, default 1), as 'gcov-tool merge -w' does. Inputs must come from\n"
	"the same compiler and kernel build; with --allow-mismatch the first input\n"
	"is the reference and functions whose checksums differ from it are left\n"
	"out (and counted in MISMATCHED_FUNCTIONS). List the newest profile first.\n";

static int parse_weights(const char *s, uint64_t *w, size_t n)
{
	char tok[32];
	size_t i;

	for (i = 0; i < n; i++) {
		size_t len = strcspn(s, ",");

		if (len == 0 || len >= sizeof(tok))
			return -1;
		memcpy(tok, s, len);
		tok[len] = '\0';
		if (kpgo_parse_u64(tok, &w[i]) || w[i] > 1000000)
			return -1;
		s += len;
		if (*s == ',' && i + 1 < n)
			s++;
	}
	return *s ? -1 : 0;
}

int cmd_merge(int argc, char **argv)
{
	enum { OPT_ALLOW = 256 };
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "weights", required_argument, NULL, 'w' },
		{ "allow-mismatch", no_argument, NULL, OPT_ALLOW },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct kpgo_merge_opts mo = { 0 };
	const char *out = NULL, *weights = NULL;
	struct kpgo_merge_stats st;
	struct kpgo_error err;
	uint64_t *w = NULL;
	size_t n;
	int c, ret = 1;

	while ((c = getopt_long(argc, argv, "o:w:qvh", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'w': weights = optarg; break;
		case OPT_ALLOW: mo.allow_mismatch = true; break;
		case 'q': verbosity = 0; break;
		case 'v': verbosity = 2; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: return usage_error("merge", "bad option");
		}
	}
	if (!out)
		return usage_error("merge", "an output file is required (-o OUT.kpgo)");
	if (optind >= argc)
		return usage_error("merge", "no input profiles");
	n = (size_t)(argc - optind);
	if (weights) {
		w = calloc(n, sizeof(*w));
		if (!w)
			return error("out of memory");
		if (parse_weights(weights, w, n)) {
			free(w);
			return usage_error("merge",
					   "--weights needs %zu whole numbers (0 to 1000000), one per input",
					   n);
		}
		mo.weights = w;
	}
	if (kpgo_merge_files((const char *const *)argv + optind, n, &mo, out, &st, &err)) {
		error("%s", err.msg);
		goto out;
	}
	if (st.mismatched_functions)
		warning("%" PRIu64
			" functions left out: their checksums differ from the first input's",
			st.mismatched_functions);
	note(1, "merged %zu profiles (%" PRIu64 " objects) into '%s'", n, st.objects, out);
	ret = 0;
out:
	free(w);
	return ret;
}
