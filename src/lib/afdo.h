/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_AFDO_H
#define KPGO_AFDO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elfsym.h"
#include "json.h"
#include "sha256.h"
#include "strbuf.h"
#include "util.h"

/*
 * A kpgo profile as an LLVM sample profile (the AutoFDO text format that
 * `llvm-profdata merge --sample` reads), for Clang's -fprofile-sample-use.
 *
 * GCC's own gcov does the arc-to-line arithmetic: each object's .gcda and
 * the instrumented build's .gcno go through `gcov --json-format --stdout`,
 * and this module turns gcov's per-line execution counts into per-function
 * counts by line offset from the function's first line:
 *
 *	name:TOTAL:HEAD
 *	 OFFSET: COUNT
 *
 * HEAD is the function's entry count, TOTAL the sum of its lines' counts.
 * A line belongs to a function when gcov names that function on it and it
 * lies between the function's first and last line, in its file; a line's
 * count is gcov's: every execution of the line in that object, copies of
 * it inlined into other functions of the object included. Lines gcov names
 * no function for (code inlined before instrumentation, whose function has
 * no body of its own in the object) cannot be placed and are left out.
 *
 * Names: the text format, and Clang's sample loader, know a function by
 * its name alone, so two static functions of one name in two files would
 * get one profile. A definition is (name, source file, first line):
 * - copies of one definition in several objects (a static inline function
 *   of a header, given a body in each object that uses it) are merged:
 *   counts added line by line;
 * - of a name with several definitions where exactly one is strong
 *   (global) and all others are weak, the strong one is written: the
 *   linker keeps only it, so a weak one given its counts is dead code
 *   (the kernel's __weak defaults, kernel/sys_ni.c's COND_SYSCALL stubs);
 *   this assumes the definitions meet in one link, as vmlinux's do;
 * - any other name with more than one definition (static functions, or
 *   when the bindings are unknown) is left out altogether, executed or
 *   not, so that no function gets another one's counts.
 * The profile uses plain names: Clang's -funique-internal-linkage-names
 * gives static functions mangled names with a hash (_ZL6helperi.__uniq.N)
 * that gcov does not know, so the optimized build must not use it.
 *
 * Clang, too, matches a profile by name alone: every definition of a
 * written name that it compiles takes the profile, the weak ones the
 * linker drops as well as another function of that name that the profile
 * does not cover (a static function of a file that was not instrumented,
 * or of a module that was not loaded). The definitions table says which
 * definitions are behind each name, for kpgo report --defs to tell them
 * apart by clang's FILE:LINE:
 *
 *	# kpgo afdo defs 1
 *	NAME<TAB>ROLE<TAB>SOURCE<TAB>LINE
 *
 * one line per (name, definition), names in byte order, ROLE one of
 * - profile: the definition whose counts were written under NAME;
 * - weak: a weak definition overridden by the strong one (Clang gives it
 *   the strong one's profile, the linker drops it);
 * - left-out: a definition of a name left out for having several.
 * There is no line for another definition of a written name that never
 * ran: under the rules above a name with a second definition is written
 * only when that one is weak (if it never ran it is still "weak"); one
 * that never ran beside a strong or static one makes the name ambiguous.
 * SOURCE is the file's name as GCC was given it (gcov's "file", not
 * joined to the directory GCC ran in) with "." components and "dir/.."
 * pairs removed; LINE is the line of the function's name. Clang names the
 * file as it was given it too, so the two agree when both builds spell
 * the sources alike: relative ("../kernel/fork.c") with the object tree
 * directly inside the source tree, or by the same absolute path.
 */

/* The first line of a definitions table: its format version. */
#define KPGO_AFDO_DEFS_HEAD "# kpgo afdo defs 1"

struct kpgo_afdo;

/*
 * Why gcov names no function for an executed line (kpgo_afdo_place_inlined()):
 * @KPGO_AFDO_INLINED_BODY: in a function that some object's .gcno gives a
 *	body (its own record), inlined by GCC before instrumenting in this one
 * @KPGO_AFDO_INLINED_SOURCE: in a function no .gcno describes (GCC inlined
 *	it everywhere before instrumenting), found in the source text
 * @KPGO_AFDO_MACRO_FUNCTION: in a function that a macro defines
 *	(SYSCALL_DEFINE3(...) { ... }): its name is not in the source
 * @KPGO_AFDO_MACRO: on a #define's lines
 * @KPGO_AFDO_SEVERAL: in more than one function the .gcno files describe
 * @KPGO_AFDO_OUTSIDE: in no function definition of the source text
 * @KPGO_AFDO_NO_SOURCE: the source file cannot be read
 */
enum kpgo_afdo_cause {
	KPGO_AFDO_INLINED_BODY,
	KPGO_AFDO_INLINED_SOURCE,
	KPGO_AFDO_MACRO_FUNCTION,
	KPGO_AFDO_MACRO,
	KPGO_AFDO_SEVERAL,
	KPGO_AFDO_OUTSIDE,
	KPGO_AFDO_NO_SOURCE,
	KPGO_AFDO_CAUSES
};

/* The cause's name in the summary: "inlined_body", ... */
const char *kpgo_afdo_cause_name(enum kpgo_afdo_cause c);

/*
 * @lines: source lines (file and line; one object's or several's counts
 * added up), @samples: their counts, @header_samples: those in files that
 * are not .c or .S files (headers)
 */
struct kpgo_afdo_cause_stat {
	size_t lines;
	uint64_t samples;
	uint64_t header_samples;
};

/**
 * struct kpgo_afdo_stats - what a conversion wrote and left out
 * @objects: gcov documents added (one per object)
 * @functions, @lines, @samples: written: functions, their lines, and the
 *	sum of their TOTALs
 * @unexecuted: functions without a single count, left out
 * @ambiguous_names, @ambiguous_defs, @ambiguous_samples: names with more
 *	than one definition, left out; their definitions and line counts
 * @weak_names, @weak_defs: names whose weak definitions were overridden
 *	by a strong one (written), and those weak definitions
 * @merged_defs, @merged_copies: definitions with copies in several
 *	objects, and the copies beyond the first (merged)
 * @unplaced_lines, @unplaced_samples: lines that gcov names no function
 *	for, left out, and their counts
 * @far_lines: lines 65536 or more past their function's first line (LLVM
 *	keeps 16 bits of an offset), left out
 * @negative_counts: counts below zero in gcov's output (inconsistent
 *	counters of an SMP kernel), taken as zero
 * @causes: the unplaced lines by cause (after kpgo_afdo_place_inlined();
 *	all zero before), counted before any was recovered
 * @recovered_lines, @recovered_samples: unplaced lines (one object's
 *	each) written into the inlined function's own record, and their
 *	counts; no longer in @unplaced_lines and @unplaced_samples
 * @added_functions, @added_records, @added_samples: functions of another
 *	sample profile written after the gcov profile's (--add), their body
 *	and inlined-callsite lines and the sum of their TOTALs
 * @added_known: that profile's functions whose name the gcov profile
 *	knows (gcov's counts kept); @added_no_place: its functions without
 *	a place in the places table, left out
 */
struct kpgo_afdo_stats {
	size_t objects;
	size_t functions;
	size_t lines;
	uint64_t samples;
	size_t unexecuted;
	size_t ambiguous_names;
	size_t ambiguous_defs;
	uint64_t ambiguous_samples;
	size_t weak_names;
	size_t weak_defs;
	size_t merged_defs;
	size_t merged_copies;
	size_t unplaced_lines;
	uint64_t unplaced_samples;
	size_t far_lines;
	size_t negative_counts;
	struct kpgo_afdo_cause_stat causes[KPGO_AFDO_CAUSES];
	size_t recovered_lines;
	uint64_t recovered_samples;
	size_t added_functions;
	size_t added_records;
	uint64_t added_samples;
	size_t added_known;
	size_t added_no_place;
};

/*
 * A new, empty conversion. @gcov_version (a stamp such as 'B22*', 0 for
 * none) is the profile's: every document must come from a gcov of that
 * GCC release (its "gcc_version").
 */
int kpgo_afdo_new(struct kpgo_afdo **ap, uint32_t gcov_version);
void kpgo_afdo_free(struct kpgo_afdo *a);

/**
 * kpgo_afdo_add_gcov() - add one object's gcov --json-format document
 * @doc: the parsed document
 * @object: the object's name, for messages
 *
 * Checks the document's shape (kpgo_afdo_gcov_check()) and gcc_version.
 * Returns 0, -EINVAL with "malformed gcov
 * output for 'OBJECT': ..." or a version message in @err, or -ENOMEM.
 * Nothing is added on failure.
 */
int kpgo_afdo_add_gcov(struct kpgo_afdo *a, const struct kpgo_json *doc, const char *object,
		       struct kpgo_error *err);

/*
 * How the object @object (as given to kpgo_afdo_add_gcov()) defines the
 * function @name; KPGO_ELF_UNKNOWN when it cannot tell.
 */
typedef enum kpgo_elf_binding (*kpgo_afdo_binding_fn)(void *ctx, const char *object,
						      const char *name);

/**
 * kpgo_afdo_place_inlined() - why gcov names no function for some lines
 * @recover: write the lines of inlined functions into their own records
 * @examples: when not NULL, the most executed lines of each cause, as
 *	"CAUSE SOURCE:LINE FUNCTION COUNT" (FUNCTION "-" when none), appended
 *
 * gcov counts a line wherever its code went: a function GCC inlined before
 * instrumenting (early inlining: always_inline and small static inline
 * functions) has no function record in the object, and its lines, in
 * the callee's file, are counted but named for no function. Each such
 * line (all objects' counts of it added up) is looked up among the
 * functions every added document describes (name, file, first and last
 * line), then in the source file itself (kpgo_afdo_src_scan(); read from
 * the file's name joined to the directory GCC ran in) and given a
 * &enum kpgo_afdo_cause. With @recover, the lines of
 * %KPGO_AFDO_INLINED_BODY and %KPGO_AFDO_INLINED_SOURCE go into that
 * function's definition as if its own: written under its name, at their
 * offset from its first line, with no entry count of their own (a function
 * without a body has a HEAD of 0). The sample profile stays flat: the
 * counts are the callee's over all its callers, without call-site context,
 * which gcov's per-line counts do not give. Call once, before
 * kpgo_afdo_write(). Returns 0 or -ENOMEM.
 */
int kpgo_afdo_place_inlined(struct kpgo_afdo *a, bool recover, struct kpgo_strlist *examples);

/**
 * kpgo_afdo_write() - the sample profile of everything added
 * @binding, @ctx: tells weak from strong definitions of a name defined
 *	more than once (NULL: every such name is left out)
 * @out: the text is appended here, functions in byte order of their names,
 *	each function's lines by offset
 * @defs: when not NULL, the definitions table is appended here, its
 *	first line included
 * @st: filled in
 * @ambiguous: when not NULL, the names left out for having several
 *	definitions, each as "NAME (FILE:LINE, FILE:LINE...)"
 *
 * Returns 0 or -ENOMEM.
 */
int kpgo_afdo_write(struct kpgo_afdo *a, kpgo_afdo_binding_fn binding, void *ctx, struct strbuf *out,
		    struct strbuf *defs, struct kpgo_afdo_stats *st, struct kpgo_strlist *ambiguous);

/* --- where source text defines functions (afdo-src.c) ------------------- */

/**
 * struct kpgo_afdo_src_fn - a function definition found in source text
 * @name: the word before its parameter list
 * @line: the line of @name (as GCC's and Clang's first line of a function)
 * @end_line: the line of its closing brace
 * @macro: @name is the first word of the definition, a macro's that
 *	defines a function under another name (SYSCALL_DEFINE3(read, ...) {),
 *	not the function's own
 */
struct kpgo_afdo_src_fn {
	char *name;
	uint32_t line, end_line;
	bool macro;
};

/**
 * struct kpgo_afdo_src - the definitions of one source file
 * @fns, @n_fns: function definitions at the top level, in file order
 * @macros, @n_macros: the lines of each #define (first and last)
 */
struct kpgo_afdo_src {
	struct kpgo_afdo_src_fn *fns;
	size_t n_fns;
	struct {
		uint32_t line, end_line;
	} * macros;
	size_t n_macros;
};

/*
 * Scans C source text (untrusted: any bytes) for its function definitions
 * and macros: comments, strings and preprocessor directives skipped,
 * braces and parentheses counted. A scanner, not a parser: code that
 * #if makes unbalanced can mislead it. Returns 0 or -ENOMEM.
 */
int kpgo_afdo_src_scan(const char *text, size_t len, struct kpgo_afdo_src *s);
void kpgo_afdo_src_release(struct kpgo_afdo_src *s);
/* The function whose definition spans @line, or NULL. */
const struct kpgo_afdo_src_fn *kpgo_afdo_src_function_at(const struct kpgo_afdo_src *s,
							 uint32_t line);
/* True when @line is one of a #define's lines. */
bool kpgo_afdo_src_in_macro(const struct kpgo_afdo_src *s, uint32_t line);

/* --- gcov's documents and their names (afdo-shape.c) --------------------- */

/**
 * kpgo_afdo_gcov_check() - check a gcov --json-format document's shape
 * @object: the object's name, for messages
 * @version: the profile's gcov version stamp (0: any GCC)
 *
 * The members kpgo_afdo_add_gcov() uses must be there, of the right
 * types: function names without blanks or control characters, file names
 * without control characters, first lines from 1 to 2^32-1. Returns 0 or
 * -EINVAL with "malformed gcov output for 'OBJECT': ..." or a version
 * message in @err.
 */
int kpgo_afdo_gcov_check(const struct kpgo_json *doc, const char *object, uint32_t version,
			 struct kpgo_error *err);

/*
 * True when @version ("12.2.0", gcov's "gcc_version" or --version) is of
 * the GCC release whose gcov stamp is @stamp (major and minor agree).
 */
bool kpgo_afdo_version_matches(const char *version, uint32_t stamp);

/*
 * A source file name as one key: @file joined to @cwd when relative, "."
 * components and "dir/.." pairs removed. Appended to @out.
 */
int kpgo_afdo_source_key(const char *cwd, const char *file, struct strbuf *out);

/* --- running gcov over a profile archive (afdo-gcov.c) ------------------ */

/**
 * struct kpgo_afdo_opts - where the conversion finds what it needs
 * @gcno_dir: where OBJ.gcno lies for the archive's OBJ.gcda: the
 *	instrumented build's object tree, or a copy of its .gcno files laid
 *	out the same way (NULL: the profile's BUILD_ROOT); OBJ.o there, when
 *	present, tells weak definitions from strong ones
 * @gcov: the gcov program (found in PATH); must be of the profile's GCC
 *	(NULL: gcov-MAJOR for the profile's GCC when in PATH, else gcov)
 * @tmpdir: where the private work directory goes (NULL: $TMPDIR or /tmp)
 * @batch: objects per gcov run (0: a default)
 * @inlined: write the lines of functions GCC inlined before instrumenting
 *	into those functions' own records (kpgo_afdo_place_inlined())
 * @add, @add_places: another sample profile and its places table, for
 *	kpgo_afdo_add_profile() (NULL: none)
 */
struct kpgo_afdo_opts {
	const char *gcno_dir;
	const char *gcov;
	const char *tmpdir;
	size_t batch;
	bool inlined;
	const char *add;
	const char *add_places;
};

/* Does the gcov profile know a function of @name (written, weak, left out or never run)? */
bool kpgo_afdo_knows(const struct kpgo_afdo *a, const char *name);

/**
 * kpgo_afdo_add_profile() - another sample profile's functions, for the
 * names gcov has no function of
 * @path: a sample profile in the text format (untrusted: checked whole
 *	with kpgo_afdo_text_parse() first), e.g. llvm-profgen's of an
 *	uninstrumented kernel (tests/bench/blockprof.c): the code gcov cannot
 *	see, `noinstr` functions and files built with GCOV_PROFILE := n
 * @places_path: a definitions table (KPGO_AFDO_DEFS_HEAD) whose "profile"
 *	lines give each function's source file and line; NULL: none, only
 *	when no definitions table is written (@defs NULL)
 *
 * Every function of @path whose name kpgo_afdo_knows() not, and that has
 * a place when @places_path is given, is appended to @text as it is
 * (with its inlined callsites), and its place to @defs as a "profile"
 * line, in byte order of the names. @st's added_* fields are set.
 * Returns 0, or a negative errno with @err set ("'PATH' is not a sample
 * profile kpgo can add: line N: ..."); @text may then hold part of the
 * functions and is the caller's to drop.
 */
int kpgo_afdo_add_profile(const struct kpgo_afdo *a, const char *path, const char *places_path,
			  struct strbuf *text, struct strbuf *defs, struct kpgo_afdo_stats *st,
			  struct kpgo_error *err);

/**
 * struct kpgo_afdo_summary - what a conversion wrote and left out: kpgo
 * afdo's summary lines and its JSON (--json, --summary), which kpgo report
 * --afdo-summary reads back
 * @output: the sample profile written, and @output_sha256 its sha256
 * @defs: its definitions table, or NULL
 * @st: the conversion's statistics
 * @profile_objects: objects in the archive
 * @no_gcno: objects without a .gcno, left out
 * @other_build: objects whose .gcno is of another compilation (another
 *	stamp than their .gcda's) with none of their functions' checksums,
 *	left out
 * @rebuilt: objects whose .gcno is of another compilation (another stamp)
 *	with some of their functions: ident and control flow checksum equal
 * @changed_functions: functions of @rebuilt that the .gcno has not so
 *	(changed since, or gone), left out
 * @moved_functions: functions of @rebuilt whose source place changed
 *	(the source checksum), kept with the .gcno's lines
 * @ambiguous: names left out for having several definitions
 * @unplaced_examples: the most executed lines in no function, by cause
 * @added_from: the sample profile kpgo_afdo_add_profile() added, or NULL
 *	(kpgo_afdo_place_inlined()'s @examples)
 * @inlined: the inlined functions' lines were recovered (--inlined)
 * @gcov_messages, @gcov_first_message: lines gcov printed on standard
 *	error without failing, and the first of them
 */
struct kpgo_afdo_summary {
	char *output;
	char output_sha256[KPGO_SHA256_HEX];
	char *defs;
	struct kpgo_afdo_stats st;
	size_t profile_objects;
	struct kpgo_strlist no_gcno;
	struct kpgo_strlist other_build;
	struct kpgo_strlist rebuilt;
	size_t changed_functions;
	size_t moved_functions;
	struct kpgo_strlist ambiguous;
	struct kpgo_strlist unplaced_examples;
	bool inlined;
	char *added_from;
	size_t gcov_messages;
	struct strbuf gcov_first_message;
};

/**
 * struct kpgo_afdo_result - a conversion's output and findings
 * @text: the AutoFDO text profile
 * @defs: its definitions table
 * @sum: the summary (its @output and @defs are the caller's to set, with
 *	kpgo_afdo_summary_set_files())
 */
struct kpgo_afdo_result {
	struct strbuf text;
	struct strbuf defs;
	struct kpgo_afdo_summary sum;
};

void kpgo_afdo_result_init(struct kpgo_afdo_result *r);
void kpgo_afdo_result_release(struct kpgo_afdo_result *r);

/**
 * kpgo_afdo_convert() - a profile archive as an AutoFDO text profile
 * @profile: the .kpgo file (untrusted; read with the archive reader)
 *
 * Checks first that @o->gcov is of the profile's GCC release. Each
 * object's .gcda is written, in the kernel's layout, into a private
 * temporary directory beside a symbolic link to its .gcno; gcov runs there
 * only once the whole archive has been verified, and the directory is
 * removed afterwards. A .gcno of another GCC release than the profile's,
 * gcov failing or printing something that is not gcov's JSON are errors;
 * objects without a .gcno are left out and listed. A .gcno of another
 * compilation (another stamp: GCC stamps each) pairs with the functions
 * whose ident and control flow checksum it has, as GCC's -fprofile-use
 * matches a function (@rebuilt; the others are counted in
 * @changed_functions); with none, the object is left out and listed
 * (@other_build). It is an error when no object is left. Nothing is written
 * outside the temporary directory.
 */
int kpgo_afdo_convert(const char *profile, const struct kpgo_afdo_opts *o,
		      struct kpgo_afdo_result *res, struct kpgo_error *err);

/* --- what the conversion reads of an object tree (afdo-objects.c) ----------- */

/**
 * kpgo_afdo_objects() - the objects kpgo afdo --objtree reads besides the .gcno
 * @objtree: an instrumented build's object tree
 * @out: the objects' paths relative to @objtree, in byte order, appended
 *
 * Of every object OBJ.o beside an OBJ.gcno below @objtree (not below its
 * scripts/ and tools/, nor through symbolic links), the functions other
 * objects see are read from its symbol table (elfsym.h); the objects that
 * define a name which some of them defines weak are listed, the weak
 * definitions' and the strong ones': kpgo afdo reads their symbol tables
 * to keep the strong definition's profile, as the linker keeps its code.
 * A copy of the .gcno files with these objects converts a profile as the
 * object tree does. Returns 0 or a negative errno with @err set.
 */
int kpgo_afdo_objects(const char *objtree, struct kpgo_strlist *out, struct kpgo_error *err);

/* --- the summary (afdo-summary.c) -------------------------------------- */

void kpgo_afdo_summary_init(struct kpgo_afdo_summary *s);
void kpgo_afdo_summary_release(struct kpgo_afdo_summary *s);

/* The files written: @output (with the sha256 of its @text) and @defs (NULL: none). */
int kpgo_afdo_summary_set_files(struct kpgo_afdo_summary *s, const char *output,
				const struct strbuf *text, const char *defs);

/* The summary as a JSON document. */
int kpgo_afdo_summary_json(const struct kpgo_afdo_summary *s, struct strbuf *out);

/*
 * Reads a summary back from its JSON (untrusted: every member checked,
 * text without control characters), at most %KPGO_AFDO_SUMMARY_MAX bytes.
 * -EINVAL with what is wrong in @err; @s is released first.
 */
#define KPGO_AFDO_SUMMARY_MAX (64u << 20)
int kpgo_afdo_summary_parse(struct kpgo_afdo_summary *s, const char *text, size_t len,
			    struct kpgo_error *err);
int kpgo_afdo_summary_read(struct kpgo_afdo_summary *s, const char *path, struct kpgo_error *err);

/*
 * The summary's warning, "gcov printed N messages, the first: ...", into
 * @out (nothing when gcov printed none; control characters as '?').
 */
int kpgo_afdo_summary_warning(const struct kpgo_afdo_summary *s, struct strbuf *out);
/*
 * Its lines, each ending in a newline: "kpgo afdo: wrote N functions ...",
 * and "kpgo afdo: also left out: ..." when there are far lines or negative
 * counts.
 */
int kpgo_afdo_summary_format(const struct kpgo_afdo_summary *s, struct strbuf *out);
/*
 * The lines in no function by cause, each ending in a newline: "kpgo afdo:
 * line counts in no function, by cause: ..." (shares of all line counts),
 * what was recovered, then the examples.
 */
int kpgo_afdo_summary_format_causes(const struct kpgo_afdo_summary *s, struct strbuf *out);

#endif
