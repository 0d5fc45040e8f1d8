// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tree-check.h: a built kernel tree made here by hand (a vmlinux and
 * modules as small ELF images, init/.main.o.cmd, objects and .gcno files,
 * a source tree beside it) checked as each flavour; each failed check says
 * what failed; the reports' lines, byte for byte; the last -O as grep -o
 * finds it.
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tap.h"
#include "tree-check.h"

static char top[] = "/tmp/kpgo-tree-XXXXXX";
static char obj[64], src[64];

static void put(const char *dir, const char *rel, const void *data, size_t len)
{
	char path[256], *p;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	for (p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	f = fopen(path, "w");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f))
		bail_out("cannot write a fixture");
}

static void puts_at(const char *dir, const char *rel, const char *text)
{
	put(dir, rel, text, strlen(text));
}

/*
 * An ELF image with the symbols @names (blank-separated; "." starts a
 * section symbol's name, which nm leaves out) and a .comment of @comment.
 */
static void elf(const char *rel, const char *names, const char *comment)
{
	static const char shstr[] = "\0.symtab\0.strtab\0.comment\0.shstrtab";
	struct strbuf b = STRBUF_INIT, str = STRBUF_INIT, syms = STRBUF_INIT;
	Elf64_Shdr sh[5];
	Elf64_Ehdr eh;
	Elf64_Sym s;
	const char *p = names;
	uint64_t off;

	memset(&s, 0, sizeof(s));
	if (strbuf_addch(&str, '\0') || strbuf_add(&syms, &s, sizeof(s)))
		bail_out("out of memory");
	while (*p) {
		size_t n = strcspn(p, " ");

		memset(&s, 0, sizeof(s));
		s.st_name = (uint32_t)str.len;
		s.st_info = *p == '.' ? ELF64_ST_INFO(STB_LOCAL, STT_SECTION) :
					ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT);
		s.st_shndx = 1;
		if (strbuf_add(&str, p, n) || strbuf_addch(&str, '\0') ||
		    strbuf_add(&syms, &s, sizeof(s)))
			bail_out("out of memory");
		p += n + (p[n] == ' ');
	}
	memset(&eh, 0, sizeof(eh));
	memset(sh, 0, sizeof(sh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = 5;
	eh.e_shstrndx = 4;
	off = sizeof(eh);
	sh[1] = (Elf64_Shdr){ .sh_name = 1,
			      .sh_type = SHT_SYMTAB,
			      .sh_offset = off,
			      .sh_size = syms.len,
			      .sh_link = 2,
			      .sh_entsize = sizeof(s) };
	off += syms.len;
	sh[2] = (Elf64_Shdr){
		.sh_name = 9, .sh_type = SHT_STRTAB, .sh_offset = off, .sh_size = str.len
	};
	off += str.len;
	sh[3] = (Elf64_Shdr){ .sh_name = 17,
			      .sh_type = SHT_PROGBITS,
			      .sh_offset = off,
			      .sh_size = strlen(comment) + 1 };
	off += strlen(comment) + 1;
	sh[4] = (Elf64_Shdr){
		.sh_name = 26, .sh_type = SHT_STRTAB, .sh_offset = off, .sh_size = sizeof(shstr)
	};
	off += sizeof(shstr);
	eh.e_shoff = off;
	if (strbuf_add(&b, &eh, sizeof(eh)) || strbuf_add(&b, syms.buf, syms.len) ||
	    strbuf_add(&b, str.buf, str.len) || strbuf_add(&b, comment, strlen(comment) + 1) ||
	    strbuf_add(&b, shstr, sizeof(shstr)) || strbuf_add(&b, sh, sizeof(sh)))
		bail_out("out of memory");
	put(obj, rel, b.buf, b.len);
	strbuf_release(&b);
	strbuf_release(&str);
	strbuf_release(&syms);
}

static const char gcc_line[] =
	"savedcmd_init/main.o := gcc -Wp,-MMD,init/.main.o.d -nostdinc -O2 -fno-PIE -c -o "
	"init/main.o ../init/main.c\n\nsource_init/main.o := ../init/main.c\n";

static int check(enum kpgo_kflavour fl, bool clang, struct kpgo_tree_facts *f,
		 struct kpgo_error *err)
{
	struct kpgo_tree_check_opts o = { fl, obj, src, clang };

	err->msg[0] = '\0';
	return kpgo_tree_check(&o, f, err);
}

static void test_opt_level(void)
{
	char o[16];

	kpgo_tree_last_opt_level("gcc -O2 -c x.c -O3 -o y", o);
	is_str(o, "-O3", "the last -O between blanks");
	kpgo_tree_last_opt_level("gcc -O2 -O3 -c", o);
	is_str(o, "-O2", "a blank ends one match and cannot begin the next (grep -o)");
	kpgo_tree_last_opt_level("gcc -Os -c\n -Og x -O2x -O", o);
	is_str(o, "-Og", "s and g levels; -O2x is no level; nor one at the end of the text");
	kpgo_tree_last_opt_level("gcc -c x.c", o);
	is_str(o, "", "none: empty");
	kpgo_tree_last_opt_level("gcc -O ", o);
	is_str(o, "-O", "a bare -O");
}

static void test_instr(void)
{
	struct strbuf rep = STRBUF_INIT;
	struct kpgo_tree_report_info ri = { "6.1.0-kpgo-pgo-instr", "85", "relative, x", "", "" };
	struct kpgo_tree_check_opts o = { KPGO_KFLAVOUR_PGO_INSTR, obj, src, false };
	struct kpgo_tree_facts f;
	struct kpgo_error err;
	char want[512];

	elf("vmlinux", "start_kernel __gcov_init __gcov0.start_kernel __gcov0.foo x__gcov0.no",
	    "GCC: (Debian 12.2.0-14) 12.2.0");
	is_int(check(KPGO_KFLAVOUR_PGO_INSTR, false, &f, &err), 0, "pgo-instr: instrumented");
	is_int(f.counters, 2, "  the counters: names that begin with __gcov0.");
	is_int(f.objects, 3, "  objects compiled from C: not scripts/, tools/, *.mod.o, .S");
	is_int(f.gcno, 3, "  the .gcno files, everywhere");
	is_int(kpgo_tree_report(&o, &f, &ri, &rep), 0, "its report");
	snprintf(want, sizeof(want),
		 "kernel release: 6.1.0-kpgo-pgo-instr\nbuild seconds: 85\n"
		 "source file names: relative, x\nobjects compiled from C: 3\n"
		 "objects with gcov (.gcno): 3\n"
		 "functions with counters in vmlinux (__gcov0.*): 2\nvmlinux bytes: %llu\n",
		 (unsigned long long)f.vmlinux_bytes);
	is_str(rep.buf, want, "  pgo-instr-report's lines");
	ok(f.vmlinux_bytes > 64, "  vmlinux's size");

	elf("vmlinux", "start_kernel __gcov_init_x __gcov0.foo", "");
	is_int(check(KPGO_KFLAVOUR_PGO_INSTR, false, &f, &err), -EBADMSG, "no __gcov_init");
	is_str(err.msg, "vmlinux has no __gcov_init: not instrumented", "  said");
	elf("vmlinux", "__gcov_init __gcov0", "");
	is_int(check(KPGO_KFLAVOUR_PGO_INSTR, false, &f, &err), -EBADMSG, "no counters");
	is_str(err.msg, "vmlinux has no gcov counters (__gcov0.*): not instrumented", "  said");
	o.flavour = KPGO_KFLAVOUR_PGO;
	strbuf_reset(&rep);
	is_int(kpgo_tree_report(&o, &f, &ri, &rep), -EINVAL, "pgo has no report here");
	strbuf_release(&rep);
}

static void test_uninstrumented(void)
{
	struct strbuf rep = STRBUF_INIT;
	struct kpgo_tree_report_info ri = { "6.1.0-b", "", "", "gcc (Debian 12.2.0-14) 12.2.0", "" };
	struct kpgo_tree_check_opts o = { KPGO_KFLAVOUR_BASELINE, obj, src, false };
	struct kpgo_tree_facts f;
	struct kpgo_error err;
	char want[512];

	elf("vmlinux", "start_kernel .text", "GCC: (Debian 12.2.0-14) 12.2.0");
	elf("drivers/m.ko", "init_module", "");
	puts_at(obj, "init/.main.o.cmd", gcc_line);
	is_int(check(KPGO_KFLAVOUR_BASELINE, false, &f, &err), 0, "baseline: -O2, no gcov");
	is_str(f.opt_level, "-O2", "  its -O");
	is_int(kpgo_tree_report(&o, &f, &ri, &rep), 0, "its report");
	snprintf(want, sizeof(want),
		 "kernel release: 6.1.0-b\nbuild seconds: \ncompiler: gcc (Debian 12.2.0-14) "
		 "12.2.0\ntoolchain: gcc\noptimisation: -O2 (last -O on the compiler line of "
		 "init/main.o)\nKCFLAGS: (none)\nvmlinux bytes: %llu\n",
		 (unsigned long long)f.vmlinux_bytes);
	is_str(rep.buf, want, "  kbuild-report's lines");
	is_int(check(KPGO_KFLAVOUR_O3, false, &f, &err), -EBADMSG, "o3 compiled -O2");
	snprintf(want, sizeof(want),
		 "init/main.o was compiled with '-O2', not -O3 (see %s/init/.main.o.cmd)", obj);
	is_str(err.msg, want, "  said");
	is_int(check(KPGO_KFLAVOUR_PGO, false, &f, &err), -EBADMSG, "pgo without -fprofile-use");
	is_str(err.msg, "init/main.o was not compiled with -fprofile-use", "  said");

	puts_at(obj, "init/.main.o.cmd", "cmd := gcc -O2 -fprofile-use -O3 -c\n");
	is_int(check(KPGO_KFLAVOUR_PGO, false, &f, &err), 0, "pgo with -fprofile-use");
	is_int(check(KPGO_KFLAVOUR_O3, false, &f, &err), -EBADMSG, "o3 with a profile");
	is_str(err.msg, "init/main.o was compiled with a profile", "  said");

	elf("drivers/sub/n.ko", "init_module my__gcov_merge_add", "");
	is_int(check(KPGO_KFLAVOUR_PGO, false, &f, &err), -EBADMSG, "a module with gcov");
	snprintf(want, sizeof(want),
		 "'%s/drivers/sub/n.ko' has __gcov symbols: the module is "
		 "instrumented",
		 obj);
	is_str(err.msg, want, "  said, by its path");
	puts_at(obj, "drivers/sub/n.ko", "not ELF");
	is_int(check(KPGO_KFLAVOUR_PGO, false, &f, &err), -EINVAL, "a module that is not ELF");
	elf("drivers/sub/n.ko", "", "");
	elf("vmlinux", "start_kernel __gcov_init", "");
	is_int(check(KPGO_KFLAVOUR_BASELINE, false, &f, &err), -EBADMSG, "vmlinux with gcov");
	is_str(err.msg, "vmlinux has __gcov symbols: the baseline kernel is instrumented",
	       "  said, with the flavour");

	/* Clang, ThinLTO */
	elf("vmlinux", "start_kernel", "GCC: (Debian 12.2.0-14) 12.2.0");
	puts_at(obj, "init/.main.o.cmd", "cmd := clang-16 -O2 -flto=thin -c\n");
	is_int(check(KPGO_KFLAVOUR_BASELINE, true, &f, &err), -EBADMSG,
	       "clang: no clang in .comment");
	is_str(err.msg, "vmlinux's .comment does not name clang: not built by Clang", "  said");
	elf("vmlinux", "start_kernel", "Debian clang version 16.0.6 (15~deb12u1)");
	is_int(check(KPGO_KFLAVOUR_BASELINE, true, &f, &err), 0, "clang baseline");
	o.clang = true;
	strbuf_reset(&rep);
	ri.kcflags = "-O3";
	kpgo_tree_report(&o, &f, &ri, &rep);
	ok(strstr(rep.buf, "\ntoolchain: clang (ThinLTO)\n") && strstr(rep.buf, "\nKCFLAGS: -O3\n"),
	   "  its report: the toolchain, the KCFLAGS");
	puts_at(obj, "init/.main.o.cmd", "cmd := clang-16 -O2 -flto -c\n");
	is_int(check(KPGO_KFLAVOUR_BASELINE, true, &f, &err), -EBADMSG, "clang without -flto=thin");
	snprintf(want, sizeof(want),
		 "init/main.o was not compiled with -flto=thin (see %s/init/.main.o.cmd)", obj);
	is_str(err.msg, want, "  said");
	snprintf(want, sizeof(want),
		 "cmd := clang-16 -flto=thin -fprofile-sample-use=%s/kpgo.afdo -c\n", obj);
	puts_at(obj, "init/.main.o.cmd", want);
	is_int(check(KPGO_KFLAVOUR_PGO, true, &f, &err), 0,
	       "clang pgo with the tree's sample profile");
	puts_at(obj, "init/.main.o.cmd",
		"cmd := clang-16 -flto=thin -fprofile-sample-use=/x/kpgo.afdo\n");
	is_int(check(KPGO_KFLAVOUR_PGO, true, &f, &err), -EBADMSG, "  another sample profile");
	is_str(err.msg, "init/main.o was not compiled with -fprofile-sample-use", "  said");
	snprintf(want, sizeof(want), "%s/init/.main.o.cmd", obj);
	remove(want);
	is_int(check(KPGO_KFLAVOUR_BASELINE, false, &f, &err), -ENOENT, "no .main.o.cmd");
	snprintf(want, sizeof(want), "%s/vmlinux", obj);
	remove(want);
	is_int(check(KPGO_KFLAVOUR_BASELINE, false, &f, &err), -ENOENT, "no vmlinux");
	snprintf(want, sizeof(want), "cannot read '%s/vmlinux': No such file or directory", obj);
	is_str(err.msg, want, "  said");
	strbuf_release(&rep);
}

int main(void)
{
	char cmd[128];

	if (!mkdtemp(top))
		bail_out("mkdtemp");
	snprintf(obj, sizeof(obj), "%s/obj", top);
	snprintf(src, sizeof(src), "%s/src", top);
	/* objects from C, from assembly, of host tools, *.mod.o; .gcno files */
	puts_at(src, "init/main.c", "");
	puts_at(src, "kernel/fork.c", "");
	puts_at(src, "arch/x86/entry.S", "");
	puts_at(src, "scripts/mod.c", "");
	puts_at(src, "drivers/m.c", "");
	puts_at(src, "drivers/m.mod.c", "");
	puts_at(obj, "init/main.o", "");
	puts_at(obj, "kernel/fork.o", "");
	puts_at(obj, "drivers/m.o", "");
	puts_at(obj, "drivers/m.mod.o", "");
	puts_at(obj, "arch/x86/entry.o", "");
	puts_at(obj, "scripts/mod.o", "");
	puts_at(obj, "tools/objtool/x.o", "");
	puts_at(obj, "init/main.gcno", "");
	puts_at(obj, "kernel/fork.gcno", "");
	puts_at(obj, "scripts/mod.gcno", "");
	test_opt_level();
	test_instr();
	test_uninstrumented();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	if (system(cmd))
		diag("cannot remove %s", top);
	return done_testing();
}
