// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz-seeds - write valid seed inputs for a fuzz target
 *
 * Usage: fuzz-seeds NAME DIR
 *
 * NAME is a target in tests/fuzz (gcda, archive, manifest, buildlog,
 * config, json, afdo-text, gcno, elf, store-index, spool-state, kconfig).
 * The seeds are made with kpgo's own writers (and, for the runtime's quirks the
 * writer never produces, by hand), so they follow the formats as the code
 * knows them and the fuzzer starts from inputs that get past the first
 * checks.
 * Exit status: 0 written, 1 failure, 2 usage or unknown NAME.
 */
#include <elf.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "gcda.h"
#include "gcno.h"
#include "manifest.h"
#include "profile.h"

static const char *dir;

static int write_seed(const char *name, const void *data, size_t len)
{
	struct strbuf path = STRBUF_INIT;
	int r;

	if (strbuf_addf(&path, "%s/%s", dir, name))
		return -ENOMEM;
	r = kpgo_write_file_atomic(path.buf, data, len, 0644);
	if (r)
		fprintf(stderr, "fuzz-seeds: cannot write '%s': %s\n", path.buf, strerror(-r));
	strbuf_release(&path);
	return r;
}

/* @n_fns functions of 1..4 counters with varied values, in @g (freed by the caller). */
static int make_gcda(struct kpgo_gcda *g, const char *ver, size_t n_fns)
{
	size_t i, j, n = 0;

	kpgo_gcda_init(g);
	if (kpgo_gcc_version_parse(ver, &g->version))
		return -EINVAL;
	g->stamp = 0x3b5f0a3c;
	g->fns = calloc(n_fns ? n_fns : 1, sizeof(*g->fns));
	g->ctrs = calloc(n_fns * 4 + 1, sizeof(*g->ctrs));
	if (!g->fns || !g->ctrs) {
		kpgo_gcda_release(g);
		return -ENOMEM;
	}
	for (i = 0; i < n_fns; i++) {
		struct kpgo_gcda_fn *f = &g->fns[i];

		f->ident = (uint32_t)(i * 7919 + 1);
		f->lineno_checksum = (uint32_t)(0x0e3ee8b6u + i);
		f->cfg_checksum = (uint32_t)(0xa7a65762u ^ i);
		f->n_arcs = (uint32_t)(i % 4 + 1);
		f->arcs = n;
		for (j = 0; j < f->n_arcs; j++)
			g->ctrs[n++] = i == 1 ? 0 : (uint64_t)(j + 1) << (8 * (i % 5));
	}
	g->n_fns = n_fns;
	g->n_ctrs = n;
	g->runs = 3;
	g->sum_max = kpgo_gcda_max(g);
	return 0;
}

static int gcda_seed(const char *name, const char *ver, size_t n_fns, unsigned flags)
{
	struct strbuf out = STRBUF_INIT;
	struct kpgo_gcda g;
	int r;

	r = make_gcda(&g, ver, n_fns);
	if (!r)
		r = kpgo_gcda_write(&g, flags, &out);
	if (!r)
		r = write_seed(name, out.buf, out.len);
	kpgo_gcda_release(&g);
	strbuf_release(&out);
	return r;
}

static void put32(struct strbuf *b, uint32_t v)
{
	strbuf_add(b, &v, 4);
}

/*
 * As GCC 12's runtime writes it: a summary, a placeholder function record,
 * an all-zero counter array as a negative length, the final zero word.
 */
static int gcc12_runtime_seed(void)
{
	struct strbuf b = STRBUF_INIT;
	uint32_t ver;
	int r;

	kpgo_gcc_version_parse("B22*", &ver);
	put32(&b, KPGO_GCDA_MAGIC);
	put32(&b, ver);
	put32(&b, 0x3b5f0a3c);
	put32(&b, 0x80ef7c77);
	put32(&b, KPGO_TAG_OBJECT_SUMMARY);
	put32(&b, 8);
	put32(&b, 2);
	put32(&b, 20);
	put32(&b, KPGO_TAG_FUNCTION);
	put32(&b, 12);
	put32(&b, 108032747);
	put32(&b, 0x0e3ee8b6);
	put32(&b, 0xa7a65762);
	put32(&b, KPGO_TAG_ARCS);
	put32(&b, 16);
	put32(&b, 20);
	put32(&b, 0);
	put32(&b, 8);
	put32(&b, 0);
	put32(&b, KPGO_TAG_FUNCTION);
	put32(&b, 0);
	put32(&b, KPGO_TAG_FUNCTION);
	put32(&b, 12);
	put32(&b, 902726597);
	put32(&b, 0x877a3b20);
	put32(&b, 0xc27ce21c);
	put32(&b, KPGO_TAG_ARCS);
	put32(&b, (uint32_t)-16);
	put32(&b, 0);
	r = write_seed("gcc12-runtime.gcda", b.buf, b.len);
	strbuf_release(&b);
	return r;
}

static int seeds_gcda(void)
{
	return gcda_seed("gcc12-kernel.gcda", "B22*", 5, 0) ||
	       gcda_seed("gcc12-summary.gcda", "B22*", 3, KPGO_GCDA_SUMMARY) ||
	       gcda_seed("gcc11-kernel.gcda", "B12*", 5, 0) ||
	       gcda_seed("gcc11-summary.gcda", "B13*", 2, KPGO_GCDA_SUMMARY) ||
	       gcda_seed("gcc9-summary.gcda", "A94*", 1, KPGO_GCDA_SUMMARY) ||
	       gcda_seed("gcc8-kernel.gcda", "A83*", 2, 0) ||
	       gcda_seed("gcc12-empty.gcda", "B22*", 0, 0) || gcc12_runtime_seed();
}

static int profile_seed(const char *name, const char *ver, size_t n_objs)
{
	static const char *const paths[] = { "init/main.gcda", "kernel/fork.gcda", "mm/mmap.gcda" };
	struct strbuf path = STRBUF_INIT;
	struct kpgo_error err;
	struct kpgo_profile p;
	size_t i;
	int r = 0;

	kpgo_profile_init(&p);
	if (kpgo_manifest_set(&p.manifest, MF_RELEASE, "6.1.0-fuzz") ||
	    kpgo_manifest_set(&p.manifest, MF_BUILD_ROOT, "/build/linux") ||
	    kpgo_manifest_set(&p.manifest, MF_WORKLOAD, "seed") ||
	    kpgo_manifest_set(&p.manifest, MF_RUNS, "2"))
		r = -ENOMEM;
	for (i = 0; !r && i < n_objs && i < sizeof(paths) / sizeof(paths[0]); i++) {
		struct kpgo_gcda g;
		char *dup;

		r = make_gcda(&g, ver, i + 1);
		if (r)
			break;
		dup = strdup(paths[i]);
		if (!dup || kpgo_profile_add(&p, dup, &g)) {
			free(dup);
			kpgo_gcda_release(&g);
			r = -ENOMEM;
		}
	}
	if (!r && strbuf_addf(&path, "%s/%s", dir, name))
		r = -ENOMEM;
	if (!r) {
		r = kpgo_profile_save(&p, path.buf, &err);
		if (r)
			fprintf(stderr, "fuzz-seeds: %s\n", err.msg);
	}
	kpgo_profile_release(&p);
	strbuf_release(&path);
	return r;
}

/*
 * The seed @name decompressed into @out_name: the tar itself. Compressed
 * seeds spend the fuzzer's mutations on zstd's checksums; these reach the
 * tar reader and the checks behind it.
 */
static int plain_seed(const char *name, const char *out_name)
{
	struct strbuf path = STRBUF_INIT, z = STRBUF_INIT, tar = STRBUF_INIT;
	ZSTD_DCtx *d = ZSTD_createDCtx();
	ZSTD_inBuffer in;
	int r = -ENOMEM;

	if (!d || strbuf_addf(&path, "%s/%s", dir, name))
		goto out;
	r = kpgo_read_file(path.buf, &z, 1 << 20);
	if (r)
		goto out;
	in = (ZSTD_inBuffer){ z.buf, z.len, 0 };
	while (in.pos < in.size) {
		ZSTD_outBuffer o;
		size_t left;

		if (strbuf_grow(&tar, 1 << 16)) {
			r = -ENOMEM;
			goto out;
		}
		o = (ZSTD_outBuffer){ tar.buf, tar.alloc - 1, tar.len };
		left = ZSTD_decompressStream(d, &o, &in);
		if (ZSTD_isError(left)) {
			r = -EINVAL;
			goto out;
		}
		tar.len = o.pos;
	}
	r = write_seed(out_name, tar.buf, tar.len);
out:
	ZSTD_freeDCtx(d);
	strbuf_release(&path);
	strbuf_release(&z);
	strbuf_release(&tar);
	return r;
}

static int seeds_archive(void)
{
	return profile_seed("gcc12.kpgo", "B22*", 3) || profile_seed("gcc11.kpgo", "B12*", 1) ||
	       plain_seed("gcc12.kpgo", "gcc12.tar") || plain_seed("gcc11.kpgo", "gcc11.tar");
}

static int seeds_manifest(void)
{
	static const char text[] =
		"# a comment\n"
		"KPGO_FORMAT=1\n"
		"KERNEL_RELEASE=6.1.0-9-amd64\n"
		"ARCH=x86_64\n"
		"GCOV_VERSION=B22*\n"
		"COMPILER=gcc 12.2\n"
		"BUILD_ROOT=/build/linux\n"
		"WORKLOAD=fio randread\n"
		"\n"
		"RUNS=1\n"
		"OBJECTS=885\n"
		"FUNCTIONS=31000\n"
		"COUNTERS=250000\n"
		"SUM_ALL=987654321\n"
		"SUM_MAX=1234567\n"
		"PAYLOAD_SHA256=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\n"
		"X_FUTURE=kept=as is\n";
	static const char minimal[] =
		"KPGO_FORMAT=1\nGCOV_VERSION=B12*\nBUILD_ROOT=/b\nRUNS=1\nOBJECTS=0\n"
		"FUNCTIONS=0\nCOUNTERS=0\nSUM_MAX=0\nPAYLOAD_SHA256=";

	return write_seed("full.manifest", text, sizeof(text) - 1) ||
	       write_seed("minimal.manifest", minimal, sizeof(minimal) - 1);
}

static int seeds_buildlog(void)
{
	static const char log[] =
		"  CC      kernel/fork.o\n"
		"/src/kernel/fork.c: In function \xe2\x80\x98"
		"copy_process\xe2\x80\x99:\n"
		"/src/kernel/fork.c:10:5: warning: number of counters in profile data for function "
		"\xe2\x80\x98"
		"copy_process\xe2\x80\x99 does not match its profile data "
		"[-Wcoverage-mismatch]\n"
		"/src/kernel/fork.c:11:5: warning: the control flow of function 'f' does not match "
		"its profile data (counter 'arcs') [-Wcoverage-mismatch]\n"
		"/src/kernel/fork.c:20:5: warning: source locations for function 'dup_mm' have "
		"changed, the profile data may be out of date [-Wcoverage-mismatch]\n"
		"/src/kernel/fork.c:40:1: warning: profile for function 'new_fn' not found in "
		"profile data [-Wmissing-profile]\n"
		"/src/kernel/fork.c:50:1: warning: something new [-Wmissing-profile]\n"
		"  CC [M]  drivers/foo/bar.o\n"
		"/src/bar.c:1:1: warning: '/build/pgo/drivers/foo/bar.gcda' profile count data "
		"file not found [-Wmissing-profile]\r\n";

	return write_seed("kbuild.log", log, sizeof(log) - 1);
}

/* Settings files and weights files (fuzz-config reads both). */
static int seeds_config(void)
{
	static const char *const seeds[] = {
		"# kpgo\nKPGO_WORKLOAD=redis\nKPGO_SPOOL_DIR=/var/lib/kpgo/profiles\n"
		"KPGO_SNAPSHOT_INTERVAL=6h\nKPGO_COLLECT_TIMEOUT=60s\nKPGO_KEEP_COUNT=10\n"
		"KPGO_KEEP_AGE=30d\nKPGO_SPOOL_MAX=200\nKPGO_UPLOAD_TIMEOUT=10m\n"
		"KPGO_UPLOAD_RETRY_MAX=6h\n",
		"export KPGO_UPLOAD_COMMAND=\"scp -i '/root/my key' {} 'farm:/drop dir/'\"  # c\n",
		"KPGO_UPLOAD_COMMAND='rsync --timeout=60 {} farm::drop/'\nKPGO_SNAPSHOT_INTERVAL=off\n",
		"KPGO_WORKLOAD=\"a\\\"b\"\nKPGO_FOO=1\r\n",
		"# weights\nredis=3\n*=1\nidle=0\n",
		"#\n# Automatically generated file; DO NOT EDIT.\nCONFIG_CC_VERSION_TEXT=\"gcc\"\n"
		"CONFIG_GCOV_KERNEL=y\nCONFIG_GCOV_PROFILE_ALL=y\n# CONFIG_KCOV is not set",
	};
	char name[32];
	size_t i;

	for (i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		snprintf(name, sizeof(name), "seed-%zu", i);
		if (write_seed(name, seeds[i], strlen(seeds[i])))
			return -1;
	}
	return 0;
}

/* A .config's head and a fragment (fuzz-kconfig). */
static int seeds_kconfig(void)
{
	static const char config[] =
		"#\n# Automatically generated file; DO NOT EDIT.\n#\nCONFIG_CC_VERSION_TEXT=\"gcc "
		"(Debian 12.2.0-14) 12.2.0\"\nCONFIG_MODULES=y\nCONFIG_GCOV_KERNEL=y\n"
		"CONFIG_GCOV_PROFILE_ALL=y\n# CONFIG_LTO_CLANG_THIN is not set\n"
		"CONFIG_SYSTEM_TRUSTED_KEYS=\"debian/certs/debian-uefi-certs.pem\"\n"
		"CONFIG_MODULE_SIG_KEY=\"certs/signing_key.pem\"\nCONFIG_LOCALVERSION=\"-pgo\"\n";
	static const char fragment[] = "# pgo-instr\nCONFIG_GCOV_KERNEL=y\nCONFIG_GCOV_KERNEL=m\n"
				       "# CONFIG_GCOV_KERNEL is not set\r\nCONFIG_DEBUG_FS=y";

	return write_seed("config", config, sizeof(config) - 1) ||
	       write_seed("fragment", fragment, sizeof(fragment) - 1);
}

/* gcov --json-format --stdout, as GCC 12 prints it for two objects. */
static int seeds_json(void)
{
	static const char two[] =
		"{\"gcc_version\": \"12.2.0\", \"files\": [{\"lines\": [{\"branches\": [], "
		"\"count\": 1600, \"line_number\": 5, \"unexecuted_block\": false, "
		"\"function_name\": \"helper\"}, {\"branches\": [], \"count\": 800, "
		"\"line_number\": 8, \"unexecuted_block\": false, \"function_name\": \"helper\"}, "
		"{\"branches\": [], \"count\": 1, \"line_number\": 30, \"unexecuted_block\": true}], "
		"\"functions\": [{\"blocks\": 4, \"end_column\": 1, \"start_line\": 5, "
		"\"name\": \"helper\", \"blocks_executed\": 4, \"execution_count\": 1600, "
		"\"demangled_name\": \"helper\", \"start_column\": 38, \"end_line\": 10}], "
		"\"file\": \"main.c\"}, {\"lines\": [{\"branches\": [], \"count\": 1600, "
		"\"line_number\": 1, \"unexecuted_block\": false, \"function_name\": \"clamp\"}], "
		"\"functions\": [{\"blocks\": 1, \"end_column\": 1, \"start_line\": 1, "
		"\"name\": \"clamp\", \"blocks_executed\": 1, \"execution_count\": 1600, "
		"\"demangled_name\": \"clamp\", \"start_column\": 45, \"end_line\": 6}], "
		"\"file\": \"lib/util.h\"}], \"format_version\": \"1\", "
		"\"current_working_directory\": \"/tmp/b\", \"data_file\": \"main.gcda\"}\n"
		"{\"gcc_version\": \"12.2.0\", \"files\": [{\"lines\": [{\"branches\": [], "
		"\"count\": 1500, \"line_number\": 1, \"unexecuted_block\": false, "
		"\"function_name\": \"clamp\"}], \"functions\": [{\"blocks\": 1, "
		"\"end_column\": 1, \"start_line\": 1, \"name\": \"clamp\", "
		"\"blocks_executed\": 1, \"execution_count\": 1500, \"demangled_name\": "
		"\"clamp\", \"start_column\": 45, \"end_line\": 6}], \"file\": "
		"\"../lib/./util.h\"}], \"format_version\": \"1\", "
		"\"current_working_directory\": \"/tmp/b/x\", \"data_file\": \"x/w.gcda\"}\n";
	static const char values[] =
		"[null, true, false, -0, 12.5e-3, \"\\u00e9\\ud83d\\ude00\\n\", {\"a\": [[]]}]";

	static const char afdo_summary[] =
		"{\n  \"output\": \"/b/kpgo-afdo.txt\",\n  \"output_sha256\": "
		"\"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\",\n"
		"  \"defs\": null,\n  \"profile_objects\": 2,\n  \"objects\": 2,\n"
		"  \"functions\": 5,\n  \"lines\": 17,\n  \"samples\": 9000,\n"
		"  \"unexecuted\": 0,\n  \"ambiguous_names\": 1,\n  \"ambiguous_definitions\": 2,\n"
		"  \"ambiguous_samples\": 30,\n  \"weak_names\": 1,\n  \"weak_definitions\": 1,\n"
		"  \"merged_definitions\": 1,\n  \"merged_copies\": 1,\n  \"unplaced_lines\": 0,\n"
		"  \"unplaced_samples\": 0,\n  \"far_lines\": 1,\n  \"negative_counts\": 0,\n"
		"  \"gcov_messages\": 1,\n  \"gcov_first_message\": \"x.gcno:no lines\",\n"
		"  \"without_gcno\": [],\n  \"other_build\": [\"a.gcda\"],\n"
		"  \"ambiguous\": [\"helper (a.c:5, b.c:9)\"],\n  \"rebuilt\": [\"b.gcda\"],\n"
		"  \"changed_functions\": 3,\n  \"moved_functions\": 7\n}\n";
	static const char stage_summary[] =
		"{\"profile\": \"p.kpgo\", \"payload_sha256\": "
		"\"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\", "
		"\"staged\": 3, \"runs\": 1, \"sum_max\": 1600, \"scale\": 1, "
		"\"missing_from_tree\": [\"x.gcda\"], \"tree_without_profile\": [], "
		"\"removed_stale\": [\"old.gcda\", \"b/old.gcda\"]}";

	return write_seed("gcov.json", two, sizeof(two) - 1) ||
	       write_seed("values.json", values, sizeof(values) - 1) ||
	       write_seed("afdo-summary.json", afdo_summary, sizeof(afdo_summary) - 1) ||
	       write_seed("stage-summary.json", stage_summary, sizeof(stage_summary) - 1);
}

/*
 * A sample profile as kpgo afdo writes it, one in LLVM's other shapes, a
 * clang build log, a definitions table.
 */
static int seeds_afdo_text(void)
{
	static const char afdo[] = "clamp:3100:3100\n 1: 1600\n 2: 1500\n"
				   "main:6404:1\n 0: 1\n 3: 1601\n 4: 1600\n 5: 100\n 7: 1500\n";
	static const char llvm[] =
		"# comment\n\nfoo:2300:10\n 0: 10\n 1.2: 100 bar:60 baz:40\n 5: callee:1000\n"
		"  0: 500\n  2: deeper:10\n   0: 10\n 6: 1990\n_Z3barv:0:0\n 65535.7: 0";
	static const char log[] =
		"  CC      kernel/fork.o\n"
		"warning: ../kernel/fork.c:2626: 3 of 3 available profile records (100%) were "
		"applied [-Wbackend-plugin]\n"
		"warning: ../kernel/fork.c:2626: 1001 of 2002 available profile samples (50%) were "
		"applied [-Wbackend-plugin]\n"
		"1 warning generated.\n"
		"  CC [M]  drivers/x.o\r\n"
		"warning: ../include/linux/list.h:10: 2 of 4 available profile records (50%) were "
		"applied [-Wbackend-plugin]\n"
		"warning: ../include/linux/list.h:10: 5 of 9 available profile samples (55%) were "
		"applied\n"
		"ld.lld: warning: t.c:9: 1 of 6 available profile records (16%) were applied";

	static const char defs[] = "# kpgo afdo defs 1\n"
				   "clamp\tprofile\t../include/./util.h\t1\n"
				   "helper\tleft-out\t../kernel/a.c\t5\n"
				   "helper\tleft-out\t/src/dir name/b.c\t9\n"
				   "main\tprofile\tmain.c\t11\n"
				   "# a comment\n"
				   "pick\tprofile\tmain.c\t23\n"
				   "pick\tweak\t../kernel/sys_ni.c\t4294967295";

	return write_seed("afdo.txt", afdo, sizeof(afdo) - 1) ||
	       write_seed("llvm.txt", llvm, sizeof(llvm) - 1) ||
	       write_seed("clang.log", log, sizeof(log) - 1) ||
	       write_seed("defs.txt", defs, sizeof(defs) - 1);
}

/* A string of a notes file: GCC 12's bytes, or GCC 11's padded words. */
static void gcno_str(struct strbuf *b, bool words, const char *s)
{
	size_t n = strlen(s) + 1;

	put32(b, (uint32_t)(words ? (n + 3) / 4 : n));
	strbuf_add(b, s, n);
	while (words && n++ % 4)
		strbuf_addch(b, '\0');
}

/* A notes file as GCC @ver writes it: two functions with their blocks, arcs and lines. */
static int gcno_seed(const char *name, const char *ver, bool words)
{
	static const char *const fns[][2] = { { "main", "../t.c" }, { "helper", "../include/h.h" } };
	struct strbuf b = STRBUF_INIT;
	uint32_t v, len;
	size_t i, at;
	int r;

	kpgo_gcc_version_parse(ver, &v);
	put32(&b, KPGO_GCNO_MAGIC);
	put32(&b, v);
	put32(&b, 0x41e2553a);
	if (!words)
		put32(&b, 0);
	gcno_str(&b, words, "/build/obj");
	put32(&b, 1);
	for (i = 0; i < 2; i++) {
		put32(&b, KPGO_TAG_FUNCTION);
		at = b.len;
		put32(&b, 0);
		put32(&b, (uint32_t)(108032747 + i));
		put32(&b, 0xca6e5820);
		put32(&b, 0xf6544a7d);
		gcno_str(&b, words, fns[i][0]);
		put32(&b, 0);
		gcno_str(&b, words, fns[i][1]);
		put32(&b, 12);
		put32(&b, 5);
		put32(&b, 20);
		put32(&b, 1);
		len = (uint32_t)(b.len - at - 4) / (words ? 4 : 1);
		memcpy(b.buf + at, &len, 4);
		put32(&b, 0x01410000); /* BLOCKS */
		put32(&b, words ? 1 : 4);
		put32(&b, 4);
		put32(&b, 0x01430000); /* ARCS */
		put32(&b, words ? 3 : 12);
		put32(&b, 0);
		put32(&b, 2);
		put32(&b, 4);
	}
	r = write_seed(name, b.buf, b.len);
	strbuf_release(&b);
	return r;
}

static int seeds_gcno(void)
{
	return gcno_seed("gcc12.gcno", "B22*", false) || gcno_seed("gcc11.gcno", "B13*", true);
}

/* An object file's symbol table, as GCC writes one, and the kernel's notes. */
static int seeds_elf(void)
{
	static const char strtab[] = "\0local\0strong\0weak_fn\0data";
	struct {
		Elf64_Ehdr eh;
		Elf64_Sym syms[5];
		char str[sizeof(strtab)];
		Elf64_Shdr sh[3];
	} im;
	static const unsigned char notes[] = {
		4,   0,	  0,   0, 8,	0,    0,    0,	  3, 0, 0, 0,
		'G', 'N', 'U', 0, 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4,
	};
	static const struct {
		unsigned name, bind, type;
	} syms[] = { { 1, STB_LOCAL, STT_FUNC },
		     { 7, STB_GLOBAL, STT_FUNC },
		     { 14, STB_WEAK, STT_FUNC },
		     { 22, STB_GLOBAL, STT_OBJECT } };
	size_t i;

	memset(&im, 0, sizeof(im));
	memcpy(im.eh.e_ident, ELFMAG, SELFMAG);
	im.eh.e_ident[EI_CLASS] = ELFCLASS64;
	im.eh.e_ident[EI_DATA] = ELFDATA2LSB;
	im.eh.e_ident[EI_VERSION] = EV_CURRENT;
	im.eh.e_type = ET_REL;
	im.eh.e_shoff = offsetof(__typeof__(im), sh);
	im.eh.e_shentsize = sizeof(Elf64_Shdr);
	im.eh.e_shnum = 3;
	for (i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		im.syms[i + 1].st_name = syms[i].name;
		im.syms[i + 1].st_info = ELF64_ST_INFO(syms[i].bind, syms[i].type);
		im.syms[i + 1].st_shndx = 1;
	}
	memcpy(im.str, strtab, sizeof(strtab));
	im.sh[1].sh_type = SHT_SYMTAB;
	im.sh[1].sh_offset = offsetof(__typeof__(im), syms);
	im.sh[1].sh_size = sizeof(im.syms);
	im.sh[1].sh_entsize = sizeof(Elf64_Sym);
	im.sh[1].sh_link = 2;
	im.sh[2].sh_type = SHT_STRTAB;
	im.sh[2].sh_offset = offsetof(__typeof__(im), str);
	im.sh[2].sh_size = sizeof(strtab);
	return write_seed("object.o", &im, sizeof(im)) || write_seed("notes", notes, sizeof(notes));
}

/* The store's index as kpgo writes it, and with lines a reader sets aside. */
static int seeds_store_index(void)
{
	static const char head[] = "# kpgo store index 2\n"
				   "# sha256\trelease\tbuild_id\tarch\tgcov_version\tworkload\truns\t"
				   "merged_profiles\twindow_end\tadded\tsum\n";
	static const char good[] =
		"0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0\t6.1.0-pgo-instr"
		"\t3b9f0a17c2d4e6f8\tx86_64\tB22*\tredis\t1\t1\t2026-11-02T10:00:00Z"
		"\t2026-11-02T10:05:00Z\t123456\n"
		"a0b1c2d3e4f5061728394a5b6c7d8e9fa0b1c2d3e4f5061728394a5b6c7d8e9f\t6.1.0-pgo-instr"
		"\t3b9f0a17c2d4e6f8\tx86_64\tB22*\t\t3\t3\t2026-11-03T00:00:00Z"
		"\t2026-11-03T00:00:01Z\t18446744073709551615\n";
	static const char odd[] =
		"a0b1c2d3e4f5061728394a5b6c7d8e9fa0b1c2d3e4f5061728394a5b6c7d8e9f\t6.1.0\t\tx86_64"
		"\tB13*\tidle\t1\t1\t\t\t0\n"
		"A0B1\t6.1.0\t\tx86_64\tB13*\tidle\t1\t1\t\t\t0\n"
		"a0b1c2d3e4f5061728394a5b6c7d8e9fa0b1c2d3e4f5061728394a5b6c7d8e9f\t6.1.0\t\tx86_64"
		"\tB13*\tidle\t1\t1\t\t\t0\n"
		"a0b1c2d3e4f5061728394a5b6c7d8e9fa0b1c2d3e4f5061728394a5b6c7d8e9f\t6.1.0\t\tx86_64"
		"\tB13*\tidle\t-1\t1\t\t\n";
	struct strbuf b = STRBUF_INIT;
	int r;

	r = strbuf_addstr(&b, head) || strbuf_addstr(&b, good) ? -ENOMEM : 0;
	if (!r)
		r = write_seed("index", b.buf, b.len);
	if (!r)
		r = write_seed("odd", odd, sizeof(odd) - 1);
	strbuf_release(&b);
	return r;
}

/* The spool's retry files: a profile's attempts and the upload's backoff. */
static int seeds_spool_state(void)
{
	static const char item[] = "ATTEMPTS=3\nLAST_TRY=1793000000\n"
				   "LAST_ERROR='rsync' exited with status 10\n";
	static const char state[] = "FAILURES=1000000\nNEXT_TRY=9223372036854775807\n"
				    "LAST_ERROR=\n";

	return write_seed("item", item, sizeof(item) - 1) ||
	       write_seed("state", state, sizeof(state) - 1);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(void);
	} targets[] = {
		{ "gcda", seeds_gcda },
		{ "archive", seeds_archive },
		{ "manifest", seeds_manifest },
		{ "buildlog", seeds_buildlog },
		{ "config", seeds_config },
		{ "json", seeds_json },
		{ "afdo-text", seeds_afdo_text },
		{ "gcno", seeds_gcno },
		{ "elf", seeds_elf },
		{ "store-index", seeds_store_index },
		{ "spool-state", seeds_spool_state },
		{ "kconfig", seeds_kconfig },
	};
	size_t i;

	if (argc != 3) {
		fprintf(stderr, "usage: fuzz-seeds NAME DIR\n");
		return 2;
	}
	dir = argv[2];
	for (i = 0; i < sizeof(targets) / sizeof(targets[0]); i++)
		if (!strcmp(argv[1], targets[i].name))
			return targets[i].fn() ? 1 : 0;
	fprintf(stderr, "fuzz-seeds: no fuzz target '%s'\n", argv[1]);
	return 2;
}
