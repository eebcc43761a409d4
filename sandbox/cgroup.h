/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cgroup.h — one memory and process budget for the whole run, where the
 * machine gives us a cgroup (docs/sandbox.md, "What is enforced where"). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Puts @pid (and so everything it starts) under a total of @memory bytes and
 * @max_tasks tasks: a fresh cgroup v1 memory+pids group where we may make
 * one (root), or the caller's cgroup v2 limits if it set any. Writes one
 * line saying which into @describe. Returns false when nothing bounds the
 * total (then only the per-process rlimits do). */
bool sandbox_cgroup_attach (pid_t pid, uint64_t memory, uint64_t max_tasks,
                            char *describe, size_t size);
/* True if the kernel's OOM killer acted in our group during the run. */
bool sandbox_cgroup_oom_killed (void);
/* Removes the groups we made (every process in them is gone). */
void sandbox_cgroup_remove (void);
