/* workspace-usage.h — how much of the disk and how many inodes the sandboxed
 * program uses in its workspace, measured from outside by the monitor. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct workspace_usage
{
  uint64_t bytes;    /* allocated blocks (st_blocks * 512), links not followed */
  uint64_t entries;  /* files, folders and links beneath the workspace */
  bool too_deep;     /* folders nested deeper than the walker goes */
};

struct workspace_usage_walker;

/* @dirfd stays owned by the caller. The walk stops counting entries once it
 * has seen more than @max_entries. With @repair_modes, a folder the program
 * made unreadable to its owner gets u+rwx back so it can still be counted. */
struct workspace_usage_walker *workspace_usage_walker_new (int dirfd, uint64_t max_entries,
                                                           bool repair_modes);
void workspace_usage_walk (struct workspace_usage_walker *self, struct workspace_usage *out);
