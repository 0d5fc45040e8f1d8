/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KPGO_BANNED_H
#define KPGO_BANNED_H

/*
 * Functions that make buffer overflows easy (git's banned.h idea). Include
 * after the system headers. Use strbuf, snprintf, memcpy with a checked
 * length, and explicit parsing instead.
 */
#pragma GCC poison strcpy strcat sprintf vsprintf strtok strtok_r gets

#endif
