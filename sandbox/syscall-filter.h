/* SPDX-License-Identifier: GPL-3.0-or-later */
/* syscall-filter.h — the system call filter reckon-sandbox loads just before
 * exec, written with libseccomp and compiled to BPF at build time. */
#pragma once

#include <linux/filter.h>
#include <stdbool.h>

/* Compiles the filter (native x86-64 plus i386 and x32, so `int 0x80` and
 * x32 calls meet the same rules); dies on failure. With @inet (--net
 * loopback) sockets of AF_INET and AF_INET6 are allowed too, natively. */
struct sock_fprog *build_seccomp_filter (bool inet);
/* The second, stacked filter: refuses the TIOCSTI and TIOCLINUX ioctls. */
struct sock_fprog *build_ioctl_filter (void);
/* PID-1's own, much shorter allowlist, for once the program runs. */
struct sock_fprog *build_pid1_filter (void);
int seccomp_pid1_allowed_count (void);
/* How many system calls build_seccomp_filter() allowed (some only with
 * certain arguments). */
int seccomp_filter_allowed_count (void);
/* Whether @name is a system call this libseccomp knows, or one of the few
 * it does not that the filter names on purpose. */
bool seccomp_filter_check_name (const char *name);
