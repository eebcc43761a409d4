/* syscall-filter.h — the system call filter reckon-sandbox loads just before
 * exec, written with libseccomp and compiled to BPF at build time. */
#pragma once

#include <linux/filter.h>

/* Compiles the filter (native x86-64 plus i386 and x32, so `int 0x80` and
 * x32 calls meet the same rules); dies on failure. */
struct sock_fprog *build_seccomp_filter (void);
