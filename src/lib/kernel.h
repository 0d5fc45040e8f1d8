/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_KERNEL_H
#define KPGO_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"
#include "util.h"

/*
 * The kernel kpgo collects from: its identity (release, architecture, GNU
 * build id), its gcov debugfs directory (probed, mounted if need be,
 * reset) and the collection window, and whether an installed kernel's
 * config makes it instrumented.
 */

#define KPGO_DEBUGFS_DEFAULT "/sys/kernel/debug"
#define KPGO_GCOV_DIR_DEFAULT KPGO_DEBUGFS_DEFAULT "/gcov"
#define KPGO_KERNEL_NOTES "/sys/kernel/notes"
#define KPGO_STATE_DIR_DEFAULT "/var/lib/kpgo"

/* The running kernel's release and machine (uname(2)); "" when unknown. */
void kpgo_kernel_release(char *buf, size_t len);
void kpgo_machine_arch(char *buf, size_t len);

/**
 * kpgo_build_id_parse() - the GNU build id of an ELF notes section
 * @data, @len: the notes, as /sys/kernel/notes gives them (untrusted)
 * @buf: the id in lower-case hex, at most 64 bytes of it, when @len allows
 *
 * Returns 0, or -ENOENT when there is no NT_GNU_BUILD_ID note (or it does
 * not fit @buf); a malformed note ends the search.
 */
int kpgo_build_id_parse(const void *data, size_t len, char *buf, size_t buflen);
/* The same, of the file at @path (at most 1 MiB): -errno when it cannot be read. */
int kpgo_build_id_read(const char *path, char *buf, size_t buflen);

/*
 * The file that holds when the counters were last reset (seconds since
 * the epoch): $KPGO_STATE_DIR/last-reset, by default
 * /var/lib/kpgo/last-reset.
 */
int kpgo_last_reset_path(struct strbuf *out);

/*
 * When the running kernel's counters started counting: the later of its
 * boot (/proc/stat's btime) and the last recorded reset; 0 when neither
 * is known.
 */
int64_t kpgo_window_start(void);

/**
 * kpgo_gcov_probe() - is there gcov data below @debugfs?
 * @may_mount: mount debugfs at @debugfs when it is not there yet
 * @mounted: set when this call mounted it and the caller must unmount it
 *	(only when the data is there)
 * @why: when there is none, why ("no '/sys/kernel/debug/gcov': the kernel
 *	is not instrumented (CONFIG_GCOV_KERNEL)")
 *
 * Returns 1 yes, 0 no, or -ENOMEM.
 */
int kpgo_gcov_probe(const char *debugfs, bool may_mount, bool *mounted, char *why, size_t len);

/**
 * kpgo_gcov_reset() - zero the counters of the gcov directory @gcov_dir
 * @live: @gcov_dir is the running kernel's
 * @unrecorded: set when the counters were reset but their time could not
 *	be recorded
 *
 * Writes to @gcov_dir/reset, which must exist (no other directory has
 * one). For the running kernel's counters, or wherever $KPGO_STATE_DIR is
 * set, the time then goes to kpgo_last_reset_path(), atomically, for the
 * next collection's window. Returns 0, or a negative errno with "cannot
 * reset counters: ..." in @err.
 */
int kpgo_gcov_reset(const char *gcov_dir, bool live, bool *unrecorded, struct kpgo_error *err);

/* A kernel release as packages name it ([A-Za-z0-9._+~-], 1-200, not starting with '.'). */
bool kpgo_kernel_release_ok(const char *release);

/**
 * kpgo_kernel_config_gcov() - is the installed kernel @release instrumented?
 * @config: its config file, or NULL to look for it: /boot/config-R,
 *	config-R beside @image (when not NULL), /lib/modules/R/config and
 *	/usr/lib/modules/R/config, the first that exists
 * @path: the config read (or the last one tried)
 *
 * 1 when the config sets CONFIG_GCOV_KERNEL=y, 0 when it does not,
 * -ENOENT when there is none, or another negative errno when it cannot be
 * read.
 */
int kpgo_kernel_config_gcov(const char *release, const char *image, const char *config,
			    struct strbuf *path);

#endif
