/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_CONFIG_H
#define KPGO_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"
#include "util.h"

/*
 * The machine's collection settings: /etc/default/kpgo (Debian) or
 * /etc/sysconfig/kpgo (RPM), KEY=VALUE lines in the shell's assignment
 * syntax, read here as data and never run by a shell. What is accepted is
 * the subset of sh(1) whose meaning is plain: 'single' and "double" quotes,
 * backslash escapes, comments after whitespace, an optional "export ".
 * Anything the shell would expand or execute ($, `, ~ at the start, ;, |,
 * &, <, >, (, ), a line continuation) is an error rather than a value that
 * means something else to us than to a shell. Every known key's value is
 * validated; a key set twice is an error; an unknown key is a warning (a
 * typo must not stop collection at shutdown, but must be visible).
 */
#define KPGO_CONFIG_DEBIAN "/etc/default/kpgo"
#define KPGO_CONFIG_RPM "/etc/sysconfig/kpgo"
#define KPGO_SPOOL_DEFAULT "/var/lib/kpgo/profiles"
#define KPGO_CONFIG_FILE_MAX 65536
#define KPGO_UPLOAD_WORDS_MAX 64

struct kpgo_config {
	char *path;			 /* the file read; NULL for the built-in defaults */
	char *workload;			 /* KPGO_WORKLOAD */
	char *spool_dir;		 /* KPGO_SPOOL_DIR, absolute, no trailing '/' */
	uint64_t snapshot_interval;	 /* KPGO_SNAPSHOT_INTERVAL, seconds, 0 = off */
	uint64_t collect_timeout;	 /* KPGO_COLLECT_TIMEOUT, seconds */
	uint64_t keep_count;		 /* KPGO_KEEP_COUNT: profiles kept in sent/ */
	uint64_t keep_age;		 /* KPGO_KEEP_AGE: seconds, 0 = no limit */
	uint64_t spool_max;		 /* KPGO_SPOOL_MAX: unsent profiles, 0 = no limit */
	char *upload_command;		 /* KPGO_UPLOAD_COMMAND as written, "" = none */
	struct kpgo_strlist upload_argv; /* the same, split into words */
	char *upload_user;		 /* KPGO_UPLOAD_USER, "" = kpgo's own */
	uint64_t upload_timeout;	 /* KPGO_UPLOAD_TIMEOUT, seconds */
	uint64_t retry_max;		 /* KPGO_UPLOAD_RETRY_MAX, seconds */
	struct kpgo_strlist warnings;	 /* "FILE:LINE: unknown key 'X' ignored" */
};

/* The built-in defaults (what the shipped, all-commented file means). */
int kpgo_config_init(struct kpgo_config *c);
void kpgo_config_release(struct kpgo_config *c);

/**
 * kpgo_config_parse() - apply the settings in @text to @c
 * @name: the file's name, for messages ("/etc/default/kpgo:7: ...")
 *
 * @c must hold defaults (kpgo_config_init). On error @c is unchanged in
 * no guaranteed way and must only be released.
 */
int kpgo_config_parse(struct kpgo_config *c, const char *name, const char *text, size_t len,
		      struct kpgo_error *err);

/**
 * kpgo_config_load() - defaults, then the file @path
 *
 * A missing file is not an error when @must_exist is false: the defaults
 * apply. The file must be a regular file, at most KPGO_CONFIG_FILE_MAX
 * bytes, owned by root or the caller and not writable by group or others:
 * its upload command runs with the collector's privileges.
 */
int kpgo_config_load(struct kpgo_config *c, const char *path, bool must_exist,
		     struct kpgo_error *err);

/* @opt, else $KPGO_SETTINGS, else the first of the Debian and RPM files that exists. */
const char *kpgo_config_default_path(const char *opt);

/* The effective settings as KEY=VALUE lines, each value single-quoted. */
int kpgo_config_format(const struct kpgo_config *c, struct strbuf *out);

/*
 * "90", "90s", "15m", "6h", "30d" (whole numbers, one unit) into seconds.
 * -EINVAL when malformed, -ERANGE past ten years.
 */
int kpgo_duration_parse(const char *s, uint64_t *secs);
/* The largest unit that divides @secs exactly: "6h", "90s", "0". */
void kpgo_duration_format(uint64_t secs, char out[32]);

/*
 * Splits @s into words with the same quoting rules as values (quotes,
 * backslashes; no expansions, no operators), appending them to @words.
 */
int kpgo_split_words(const char *s, struct kpgo_strlist *words, struct kpgo_error *err);

/* A workload label: [A-Za-z0-9._-], 1 to 64 characters. */
bool kpgo_label_ok(const char *s);
/* A user name as useradd(8) takes it: [a-z_][a-z0-9_-]*, 1 to 32 bytes. */
bool kpgo_user_name_ok(const char *s);

#endif
