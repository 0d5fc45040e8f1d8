// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kpgo flags: the compiler and linker flags of the optimized build, for
 * both toolchains. The packaging takes them from here and nowhere else.
 */
#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "cmd/cmd.h"
#include "json-writer.h"
#include "toolchain.h"

static const char usage_text[] =
	"usage: kpgo flags [--compiler gcc] [--profile-dir DIR] [--no-partial-training]\n"
	"                  [--specs-dir DIR] [--make | --ld | --json]\n"
	"   or: kpgo flags --compiler clang --sample-profile FILE [--specs-dir DIR]\n"
	"                  [--make | --ld | --json]\n"
	"   or: kpgo flags --specs-dir DIR --rewrite FLAGS [--make]\n"
	"\n"
	"Prints the compiler flags of a build that uses a profile, on one line.\n"
	"GCC, with a staged profile:\n"
	"  -fprofile-use[=DIR]            read the profile (DIR: kpgo stage --profile-dir)\n"
	"  -fprofile-correction           the kernel's counters are updated without\n"
	"                                 atomics, so SMP counts are slightly inconsistent\n"
	"  -Wno-error=coverage-mismatch   a stale function (changed since the profile was\n"
	"                                 taken) falls back to static heuristics, with a\n"
	"                                 warning the profile report counts\n"
	"  -Wno-error=missing-profile     likewise for objects without a profile\n"
	"  -fprofile-partial-training     code the training never ran is optimised as\n"
	"                                 without a profile, not for size as \"never\n"
	"                                 executed\": a fleet runs what a training\n"
	"                                 workload missed (docs/BENCHMARKS.md measures it)\n"
	"--no-partial-training leaves that one out (smaller code, the untrained\n"
	"paths slower); --partial-training, the default for GCC, is accepted.\n"
	"Clang, with a sample profile (kpgo afdo, then llvm-profdata merge --sample):\n"
	"  -fprofile-sample-use=FILE      read the profile\n"
	"  -gline-tables-only             its counts are by line: the line tables\n"
	"  -mllvm -sample-profile-check-record-coverage=101\n"
	"  -mllvm -sample-profile-check-sample-coverage=101\n"
	"                                 clang then warns, for every function it found\n"
	"                                 in the profile, how much of it applied: what\n"
	"                                 kpgo report --afdo counts\n"
	"and for the linker (ThinLTO's back end runs in the link):\n"
	"  --lto-sample-profile=FILE\n"
	"\n"
	"  --make   print KCFLAGS=... for a kernel make command line\n"
	"  --ld     print the linker flags instead (none for GCC: an empty line)\n"
	"  --json   print both, as {\"compiler\", \"cflags\", \"ldflags\"}\n"
	"\n"
	"  --specs-dir DIR  for a build through ccache: the options ccache (4.7)\n"
	"                   compiles uncached, -fprofile-partial-training and\n"
	"                   -fprofile-update=*, go to cc1 through a specs file\n"
	"                   instead (-specs=DIR/HASH.specs at the end), named by its\n"
	"                   content and written once, so that ccache hits; the\n"
	"                   objects are the same. DIR: in ccache's cache directory\n"
	"  --rewrite FLAGS  print FLAGS (e.g. the kernel's CFLAGS_GCOV) so rewritten,\n"
	"                   not the flags of a profile\n";

/* @flags with the options ccache compiles uncached in a specs file of @dir. */
static int for_ccache(const char *dir, struct strbuf *flags)
{
	struct strbuf out = STRBUF_INIT;
	struct kpgo_error err;
	int r = kpgo_ccache_specs(flags->buf, dir, &out, &err);

	if (r == -ENOMEM) {
		strbuf_release(&out);
		return error("out of memory");
	}
	/* still correct: ccache compiles those objects uncached */
	if (r)
		warning("%s; the flags unchanged", err.msg);
	strbuf_release(flags);
	*flags = out;
	return 0;
}

int cmd_flags(int argc, char **argv)
{
	enum {
		OPT_PARTIAL = 256,
		OPT_NO_PARTIAL,
		OPT_COMPILER,
		OPT_MAKE,
		OPT_SAMPLE,
		OPT_LD,
		OPT_JSON,
		OPT_SPECS_DIR,
		OPT_REWRITE
	};
	static const struct option opts[] = {
		{ "profile-dir", required_argument, NULL, 'p' },
		{ "compiler", required_argument, NULL, OPT_COMPILER },
		{ "partial-training", no_argument, NULL, OPT_PARTIAL },
		{ "no-partial-training", no_argument, NULL, OPT_NO_PARTIAL },
		{ "sample-profile", required_argument, NULL, OPT_SAMPLE },
		{ "make", no_argument, NULL, OPT_MAKE },
		{ "ld", no_argument, NULL, OPT_LD },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "specs-dir", required_argument, NULL, OPT_SPECS_DIR },
		{ "rewrite", required_argument, NULL, OPT_REWRITE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct kpgo_flags_opts o = { .compiler = KPGO_COMPILER_GCC };
	struct strbuf cflags = STRBUF_INIT, ldflags = STRBUF_INIT, sb = STRBUF_INIT;
	const char *compiler = "gcc", *specs_dir = NULL, *rewrite = NULL;
	bool make = false, ld = false, json = false;
	int partial = -1; /* -1: the compiler's default (GCC: on) */
	struct kpgo_json_writer w;
	struct kpgo_error err;
	int c, ret = 0;

	while ((c = getopt_long(argc, argv, "p:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p': o.profile_dir = optarg; break;
		case OPT_COMPILER: compiler = optarg; break;
		case OPT_PARTIAL: partial = 1; break;
		case OPT_NO_PARTIAL: partial = 0; break;
		case OPT_SAMPLE: o.sample_profile = optarg; break;
		case OPT_MAKE: make = true; break;
		case OPT_LD: ld = true; break;
		case OPT_JSON: json = true; break;
		case OPT_SPECS_DIR: specs_dir = optarg; break;
		case OPT_REWRITE: rewrite = optarg; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: return usage_error("flags", "bad option");
		}
	}
	if (optind != argc)
		return usage_error("flags", "unexpected argument '%s'", argv[optind]);
	if (kpgo_compiler_parse(compiler, &o.compiler))
		return usage_error("flags", "unknown compiler '%s' (gcc or clang)", compiler);
	/*
	 * GCC optimises for size what a profile says never ran: the packaged
	 * kernel, trained on one workload, was slower than one built without
	 * a profile on programs its training missed (docs/BENCHMARKS.md).
	 */
	o.partial_training = partial < 0 ? o.compiler == KPGO_COMPILER_GCC : partial;
	if (make + ld + json > 1)
		return usage_error("flags", "--make, --ld and --json exclude each other");
	if (rewrite && (!specs_dir || ld || json))
		return usage_error("flags", "--rewrite needs --specs-dir, and prints compiler flags "
					    "only (not --ld or --json)");
	c = rewrite ? strbuf_addstr(&cflags, rewrite) : kpgo_flags(&o, &cflags, &ldflags, &err);
	if (c) {
		ret = c == -ENOMEM ? error("out of memory") : usage_error("flags", "%s", err.msg);
		goto out;
	}
	if (specs_dir) {
		ret = for_ccache(specs_dir, &cflags);
		if (ret)
			goto out;
	}
	if (json) {
		kpgo_jw_init(&w, &sb);
		kpgo_jw_object_begin(&w, NULL);
		kpgo_jw_string(&w, "compiler", compiler);
		kpgo_jw_string(&w, "cflags", cflags.buf);
		kpgo_jw_string(&w, "ldflags", ldflags.buf);
		kpgo_jw_end(&w);
		ret = print_json_doc(&w);
	} else {
		printf("%s%s\n", make ? "KCFLAGS=" : "", ld ? ldflags.buf : cflags.buf);
	}
out:
	strbuf_release(&cflags);
	strbuf_release(&ldflags);
	strbuf_release(&sb);
	return ret;
}
