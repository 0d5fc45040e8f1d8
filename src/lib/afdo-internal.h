/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_AFDO_INTERNAL_H
#define KPGO_AFDO_INTERNAL_H
/*
 * The conversion's tables, shared by afdo.c (gcov's documents in, the
 * text out) and afdo-inline.c (the lines gcov names no function for).
 */
#include <stdint.h>

#include "afdo.h"

/* LLVM keeps the low 16 bits of a line offset (FunctionSamples::getOffset). */
#define AFDO_OFFSET_MAX 0xffffu

struct afdo_line {
	uint32_t off;
	uint64_t count;
};

struct afdo_def {
	char *file;
	char *source;	    /* the file's name as GCC was given it (of the first copy) */
	char *object;	    /* of the first copy */
	int64_t start, end; /* end: of the first copy */
	uint64_t head;
	size_t copies;
	size_t n, alloc;
	struct afdo_line *lines;
	struct afdo_def *next;
};

struct afdo_name {
	char *name;
	struct afdo_def *defs;
	size_t ndefs;
};

/* A source file of one object, with lines gcov names no function for. */
struct afdo_file {
	char *key;    /* joined to the directory GCC ran in, as afdo_def's file */
	char *source; /* as GCC was given it */
	char *object;
};

/* An executed line that gcov names no function for. */
struct afdo_unplaced {
	size_t file; /* in kpgo_afdo's files */
	uint32_t line;
	uint64_t count;
	size_t copies; /* objects whose counts were added up in it */
};

struct kpgo_afdo {
	uint32_t version;
	size_t objects;
	size_t unplaced_lines;
	uint64_t unplaced_samples;
	size_t far_lines;
	size_t negative_counts;
	/* lines in no function, for kpgo_afdo_place_inlined() */
	struct afdo_file *files;
	size_t n_files, files_alloc;
	struct afdo_unplaced *unplaced;
	size_t n_unplaced, unplaced_alloc;
	struct kpgo_afdo_cause_stat causes[KPGO_AFDO_CAUSES];
	size_t recovered_lines;
	uint64_t recovered_samples;
	struct afdo_name **slots;
	size_t cap, used;
};

/*
 * The definition (@name, @file, @start), made when new (first met in
 * @object, its file named @source there, ending on line @end).
 */
int afdo_find_def(struct kpgo_afdo *a, const char *name, const char *file, const char *source,
		  int64_t start, int64_t end, const char *object, struct afdo_def **out);
int afdo_def_add_line(struct afdo_def *d, uint32_t off, uint64_t count);

#endif
