/* SPDX-License-Identifier: GPL-3.0-or-later */
/* landlock.h — a Landlock domain over the sandbox's own root: even inside its
 * mount namespace the program reaches only the paths listed in landlock.c. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* The Landlock ABI this kernel offers, 0 if none. */
int sandbox_landlock_abi (void);
/* Restricts the calling process and its future children, using what the
 * running kernel's ABI supports; @workspace is read-write, @ro_paths are extra read-only paths (the
 * --ro-bind destinations). Dies if a domain the kernel offers cannot be
 * made. Needs no_new_privs. With @tcp (--net loopback) TCP bind and connect
 * are left to the network namespace, which holds nothing but lo. */
void sandbox_landlock_apply (const char *workspace, const char *const *ro_paths, size_t n_ro_paths,
                             bool tcp);
/* One line saying what the domain covers, for --debug. */
void sandbox_landlock_describe (char *buf, size_t size);
