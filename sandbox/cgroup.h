/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cgroup.h — one memory and process budget for the whole run, where the
 * machine gives us a cgroup (docs/sandbox.md, "What is enforced where"). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* As root on cgroup v1: starts making the run's memory and pids groups
 * (@memory bytes, @max_tasks tasks) in a helper process, so that the cost
 * of the first move into them overlaps the namespace set-up. Call it
 * early; sandbox_cgroup_attach() finishes it. Elsewhere it does nothing. */
void sandbox_cgroup_prepare (uint64_t memory, uint64_t max_tasks);
/* True while sandbox_cgroup_prepare() made groups that sandbox_cgroup_attach()
 * has to fill. */
bool sandbox_cgroup_pending (void);
/* Puts @pids (PID-1 and the program, before the program runs, so
 * everything it starts) under the total of @memory bytes and the task
 * limit given to sandbox_cgroup_prepare(): the fresh cgroup v1 memory+pids
 * group made there (root), or the caller's cgroup v2 limits if it set any.
 * Dies if groups were made but cannot be filled. Writes one line saying
 * which into @describe. Returns false when nothing bounds the total (then
 * only the per-process rlimits do). */
bool sandbox_cgroup_attach (const pid_t *pids, size_t n_pids, uint64_t memory,
                            char *describe, size_t size);
/* True if the kernel's OOM killer acted in our group during the run. */
bool sandbox_cgroup_oom_killed (void);
/* Removes the groups we made (every process in them is gone). */
void sandbox_cgroup_remove (void);
