// SPDX-License-Identifier: GPL-2.0-or-later
#include "cmd/cmd.h"

int cmd_flags(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return error("not yet");
}
