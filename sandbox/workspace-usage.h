/* SPDX-License-Identifier: GPL-3.0-or-later */
/* workspace-usage.h — how much of the disk and how many inodes the sandboxed
 * program uses in its workspace, measured from outside by the monitor; and
 * the walks that keep the workspace safe for the host (set-id bits, modes). */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct workspace_usage
{
  uint64_t bytes;    /* allocated blocks (st_blocks * 512), links not followed,
                      * plus files unlinked but still open inside */
  uint64_t entries;  /* files, folders and links beneath the workspace */
  bool too_deep;     /* folders nested deeper than the walker goes */
  bool blind;        /* something could not be measured (a breach) */
};

struct workspace_usage_walker;

/* @dirfd stays owned by the caller. The walk stops counting entries once it
 * has seen more than @max_entries. A folder or file the program made
 * unreadable to its owner gets its owner's bits back so it can be counted;
 * what still cannot be read sets `blind`. Every walk also clears set-id bits. */
struct workspace_usage_walker *workspace_usage_walker_new (int dirfd, uint64_t max_entries);
/* Takes the inputs named so far (workspace_add_input()) as they are now:
 * from then on each counts only for what it grows by. With @capped (the
 * host's folder of a capped workspace) a file at the top with no write bit
 * counts for nothing: an input added while the program runs. */
void workspace_usage_set_inputs (struct workspace_usage_walker *self, bool capped);
/* More processes than @max_procs (and a few of the sandbox's own) under
 * PID-1 make a walk report `blind` at once. */
void workspace_usage_set_max_procs (struct workspace_usage_walker *self, uint64_t max_procs);
/* Counts the workspace; with @pid1 > 0 also the files that the processes
 * under @pid1 (host PID) hold open after unlinking them (O_TMPFILE too). */
void workspace_usage_walk (struct workspace_usage_walker *self, pid_t pid1,
                           struct workspace_usage *out);
/* After a run: no set-id bit anywhere, folders u+rwx, files u+rw, and (as
 * root) no file capabilities. Whole tree, no entry limit. */
void workspace_restore (struct workspace_usage_walker *self);
/* Before a run as root: every entry owned by uid or gid 0 is given to
 * @uid/@gid, so nothing the sandbox writes or keeps is root's. */
void workspace_hand_over (struct workspace_usage_walker *self, uid_t uid, gid_t gid);
