/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_PROFSTAT_H
#define KPGO_PROFSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "manifest.h"
#include "profile.h"
#include "util.h"

/*
 * What a person wants to know of a profile: where the counts are, by
 * function, object and directory ("subsystem"), how much of the code ran,
 * and, given the instrumented build's .gcno files, the functions' names.
 *
 * A function's count is the sum of its arc counters: how many times
 * control passed along its edges, a measure of the work done in it (a
 * function entered once that loops a thousand times counts a thousand).
 * A share is a count divided by the profile's sum of all counters.
 */

/* Default and largest number of directory levels of a subsystem. */
#define KPGO_PSTAT_DEPTH_DEFAULT 2
#define KPGO_PSTAT_DEPTH_MAX 16

/**
 * enum kpgo_name_state - how a function got its name
 * @KPGO_NAME_NONE: no .gcno for its object, or no function of its ident there
 * @KPGO_NAME_EXACT: the .gcno has its ident and both checksums
 * @KPGO_NAME_CHANGED: the .gcno has its ident but other checksums (the
 *	function's source or control flow changed between the two builds);
 *	the name is most likely right, the location may have moved
 */
enum kpgo_name_state {
	KPGO_NAME_NONE,
	KPGO_NAME_EXACT,
	KPGO_NAME_CHANGED,
};

/**
 * struct kpgo_pstat_fn - one function of the profile
 * @obj: index of its object in &kpgo_pstat.objs
 * @ident, @lineno_checksum, @cfg_checksum: from the .gcda
 * @count: sum of its arc counters (saturating)
 * @state: whether and how it was named
 * @name: its name, NULL unless named
 * @file: its source file, relative to the source tree where that could be
 *	told (see kpgo_pstat_name()), NULL unless named
 * @line: its first line, 0 unless named
 * @elsewhere: named, and defined in another file than the object's own
 *	source (a header's static inline function, compiled into the object)
 */
struct kpgo_pstat_fn {
	size_t obj;
	uint32_t ident;
	uint32_t lineno_checksum;
	uint32_t cfg_checksum;
	uint64_t count;
	enum kpgo_name_state state;
	const char *name;
	const char *file;
	uint32_t line;
	bool elsewhere;
};

/**
 * struct kpgo_pstat_obj - one object
 * @path: as in the archive ("fs/read_write.gcda")
 * @stamp: the .gcda's compilation stamp
 * @count: sum of its counters (saturating)
 * @first_fn, @n_fns: its functions in &kpgo_pstat.fns
 * @n_run: its functions with a count above zero
 * @group: index of its subsystem in &kpgo_pstat.groups
 * @gcno: 1 its .gcno was read, 0 none found, -1 not looked for
 * @gcno_other_build: its .gcno is of another compilation (stamps differ):
 *	names are then matched by checksums alone
 */
struct kpgo_pstat_obj {
	char *path;
	uint32_t stamp;
	uint64_t count;
	size_t first_fn;
	size_t n_fns;
	size_t n_run;
	size_t group;
	int gcno;
	bool gcno_other_build;
};

/**
 * struct kpgo_pstat_group - the objects of one directory ("subsystem")
 * @dir: the first &kpgo_pstat.depth directory levels of the objects'
 *	paths ("net/ipv4"); "." for objects at the top
 * @count: sum of its objects' counts (saturating)
 * @n_objs, @n_objs_run: its objects, those with a count above zero
 * @n_fns, @n_fns_run: their functions, those with a count above zero
 */
struct kpgo_pstat_group {
	char *dir;
	uint64_t count;
	size_t n_objs;
	size_t n_objs_run;
	size_t n_fns;
	size_t n_fns_run;
};

/**
 * struct kpgo_pstat_names - what kpgo_pstat_name() found
 * @objects_gcno: objects whose .gcno was read
 * @objects_no_gcno: objects without one
 * @objects_other_build: of those read, the ones of another compilation
 * @fns_exact, @fns_changed, @fns_none: functions by &enum kpgo_name_state
 * @count_named: sum of the counts of the named functions (either state)
 */
struct kpgo_pstat_names {
	size_t objects_gcno;
	size_t objects_no_gcno;
	size_t objects_other_build;
	size_t fns_exact;
	size_t fns_changed;
	size_t fns_none;
	uint64_t count_named;
};

/**
 * struct kpgo_pstat - a profile's statistics
 * @manifest: the archive's
 * @depth: directory levels of a subsystem
 * @objs, @n_objs: objects, sorted by path
 * @fns, @n_fns: functions, object after object, each object's in file order
 * @groups, @n_groups: subsystems, sorted by @dir
 * @sum: sum of every counter (saturating)
 * @counters, @max: how many counters, the largest
 * @objs_run, @fns_run: objects and functions with a count above zero
 * @named: kpgo_pstat_name() has run
 * @names: its findings
 * @arenas, @n_arenas: the .gcno strings the names point into
 * @objs_alloc, @fns_alloc: allocated lengths of @objs and @fns
 */
struct kpgo_pstat {
	struct kpgo_manifest manifest;
	unsigned depth;
	size_t n_objs;
	size_t n_fns;
	size_t n_groups;
	struct kpgo_pstat_obj *objs;
	struct kpgo_pstat_fn *fns;
	struct kpgo_pstat_group *groups;
	uint64_t sum;
	uint64_t counters;
	uint64_t max;
	size_t objs_run;
	size_t fns_run;
	bool named;
	struct kpgo_pstat_names names;
	size_t n_arenas;
	char **arenas;
	size_t objs_alloc;
	size_t fns_alloc;
};

void kpgo_pstat_init(struct kpgo_pstat *ps);
void kpgo_pstat_release(struct kpgo_pstat *ps);

/**
 * kpgo_pstat_begin() - start gathering a profile's objects into @ps
 * @depth: directory levels of a subsystem, 1..KPGO_PSTAT_DEPTH_MAX
 *
 * @ps must be initialised (and is released first). Then
 * kpgo_pstat_add() for each object, in the archive's order, and
 * kpgo_pstat_finish(). Returns 0 or -EINVAL for a bad @depth.
 */
int kpgo_pstat_begin(struct kpgo_pstat *ps, unsigned depth);
/* Adds object @path (a kpgo_object_path_ok() path) and its functions. */
int kpgo_pstat_add(struct kpgo_pstat *ps, const char *path, const struct kpgo_gcda *g);
/* Copies @m and sums up the subsystems. */
int kpgo_pstat_finish(struct kpgo_pstat *ps, const struct kpgo_manifest *m);

/**
 * kpgo_pstat_load() - read and verify a profile archive into @ps
 * @depth: directory levels of a subsystem, 1..KPGO_PSTAT_DEPTH_MAX
 *
 * @ps must be initialised (and is released first). Returns 0 or a negative
 * errno with @err set ("cannot read 'PATH': ..." is the caller's).
 */
int kpgo_pstat_load(struct kpgo_pstat *ps, const char *path, unsigned depth, struct kpgo_error *err);

/**
 * kpgo_pstat_name() - name the functions from an instrumented build's .gcno
 * @gcno_dir: the object tree of the instrumented build, or a copy of its
 *	.gcno files (the -pgo-instr headers package), or a gcov debugfs
 *	directory (whose .gcno links point into the tree): for the object
 *	"fs/read_write.gcda" it reads "fs/read_write.gcno" there
 *
 * A function is named when the object's .gcno has its ident (see &enum
 * kpgo_name_state). An object without a .gcno is counted, not an error: a
 * build may have more objects than a package carries. A source file is
 * shown relative to the source tree: the part of the object's own source
 * name ("../fs/read_write.c" for "fs/read_write.gcda") in front of the
 * object's path is taken off every file name of the object that starts
 * with it (the last such prefix seen serves objects without one).
 *
 * Returns 0, or a negative errno with @err set: the directory cannot be
 * opened, or a .gcno cannot be read or is malformed (the message names it).
 */
int kpgo_pstat_name(struct kpgo_pstat *ps, const char *gcno_dir, struct kpgo_error *err);

/*
 * Indices of the functions (or objects, or groups) with a count above zero,
 * hottest first (ties by path, then by ident); at most @max (0: all).
 * Returns the number stored in *@out (malloc'ed, the caller frees it; NULL
 * when none), or -ENOMEM.
 */
ssize_t kpgo_pstat_hottest_fns(const struct kpgo_pstat *ps, size_t max, size_t **out);
ssize_t kpgo_pstat_hottest_objs(const struct kpgo_pstat *ps, size_t max, size_t **out);
ssize_t kpgo_pstat_hottest_groups(const struct kpgo_pstat *ps, size_t max, size_t **out);

/* @count over the profile's sum, 0 when the sum is 0. */
double kpgo_pstat_share(const struct kpgo_pstat *ps, uint64_t count);

/*
 * Appends a function's label: "fs/read_write.c:ksys_read" when named (with
 * " (in mm/memory.o)" for a function defined elsewhere), else
 * "fs/read_write.gcda ident 1234". Bytes of names that are not printable
 * ASCII appear as \xNN, a backslash as \\: fit for a terminal.
 */
int kpgo_pstat_fn_label(const struct kpgo_pstat *ps, const struct kpgo_pstat_fn *f,
			struct strbuf *out);

/*
 * Appends the text `kpgo info FILE` prints: "file: @file", the manifest,
 * totals, coverage, names (when named), and the @top hottest subsystems,
 * objects and functions with their shares.
 */
int kpgo_pstat_format(const struct kpgo_pstat *ps, const char *file, size_t top, struct strbuf *out);

/*
 * Length of the valid UTF-8 sequence at @p (of @n bytes), or 0; "valid"
 * also excludes surrogates and U+FFFE/U+FFFF, which XML does not allow.
 */
size_t kpgo_utf8_len(const unsigned char *p, size_t n);
/* Appends @s with the bytes that are not valid UTF-8 as the text \xNN (for JSON). */
int kpgo_strbuf_add_utf8(struct strbuf *out, const char *s);
/* Appends @s with bytes outside printable ASCII as \xNN and '\' as \\. */
int kpgo_strbuf_add_printable(struct strbuf *out, const char *s);

#endif
