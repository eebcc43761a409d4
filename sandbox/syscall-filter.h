/* syscall-filter.h — the system call filter reckon-sandbox loads just before exec. */
#pragma once

/* Builds and loads the filter (native x86-64 plus i386 and x32, so
 * `int 0x80` and x32 calls meet the same rules); dies on failure. */
void load_seccomp_filter (void);
