// SPDX-License-Identifier: GPL-2.0
/*
 * kpgo_hello: the smallest out-of-tree module, built against the installed
 * linux-headers of a kpgo kernel (tests/kernel/packages.bats) and by DKMS
 * in the end-to-end guest (tests/e2e/e2e.sh).
 */
#include <linux/init.h>
#include <linux/module.h>
#include <linux/printk.h>

static int __init kpgo_hello_init(void)
{
	pr_info("kpgo_hello: loaded into %s\n", THIS_MODULE->name);
	return 0;
}

static void __exit kpgo_hello_exit(void)
{
	pr_info("kpgo_hello: unloaded\n");
}

module_init(kpgo_hello_init);
module_exit(kpgo_hello_exit);
MODULE_DESCRIPTION("kpgo test module built against the packaged headers");
MODULE_LICENSE("GPL");
