/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cgroup.h — one memory and process budget for the whole run, where the
 * machine gives us a cgroup (docs/sandbox.md, "What is enforced where"). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* As root on cgroup v1: makes the run's memory and pids groups (@memory
 * bytes, @max_tasks tasks) and opens them for sandbox_cgroup_join(); dies
 * if it cannot. Elsewhere it does nothing. Call it before PID-1 is made. */
void sandbox_cgroup_prepare (uint64_t memory, uint64_t max_tasks);
/* In PID-1, first thing, while it is one thread and has no child: joins
 * the groups sandbox_cgroup_prepare() made, so that everything the run
 * starts is inside, and makes them the root of its cgroup namespace.
 * False (errno set) if it cannot. */
bool sandbox_cgroup_join (void);
/* Closes what sandbox_cgroup_join() would use (the monitor, once PID-1
 * has its copies). */
void sandbox_cgroup_close (void);
/* Writes one line into @describe saying what bounds the run's total
 * memory: our cgroup v1 group, or the caller's cgroup v2 limits if it set
 * any. Returns false when nothing does (then only the per-process rlimits
 * do). */
bool sandbox_cgroup_describe (uint64_t memory, char *describe, size_t size);
/* True if the kernel's OOM killer acted in our group during the run. */
bool sandbox_cgroup_oom_killed (void);
/* Removes the groups we made (every process in them is gone). */
void sandbox_cgroup_remove (void);
