/* SPDX-License-Identifier: GPL-3.0-or-later */
/* workspace-fs.h — the capped workspace (--workspace-fs tmpfs): copies a
 * tree into it and back out beneath descriptors (docs/sandbox.md). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct workspace_copy
{
  uint64_t files;    /* regular files written */
  uint64_t bytes;    /* data bytes written (holes are not) */
  uint64_t kept;     /* files already the same (size and time), not rewritten */
  uint64_t skipped;  /* links, FIFOs, sockets, devices: never copied */
  uint64_t removed;  /* entries of @dst that @src no longer has */
  char error[256];   /* the first error, or "" */
};

/* Makes the tree beneath @dst_dirfd the same as the one beneath
 * @src_dirfd: folders and regular files only, data and holes, modes
 * without set-id or sticky bits (owner read/write, and search on folders,
 * always kept), modification times. Files of @dst with the size and time
 * of their source are left as they are; entries @src does not have (or
 * that are links, FIFOs, sockets or devices there) are removed from @dst
 * first, so @dst never holds the old and the new together.
 * WORKSPACE_INCOMING at the top is left out on both sides.
 * Every name is opened beneath its folder's descriptor with O_NOFOLLOW; a
 * source entry that changes type while it is copied is skipped. At most
 * @budget data bytes are written, at most @max_entries names looked at
 * (a tree that keeps changing ends the copy), and folders at most 256
 * deep. Owner
 * bits a source folder or file lacks are given back to it first (as the
 * monitor does for the workspace after each run). Returns false and fills
 * @out->error on the first failure (the copy goes on for the rest). */
bool workspace_copy_tree (int src_dirfd, int dst_dirfd, uint64_t budget,
                          uint64_t max_entries, struct workspace_copy *out);
/* The first copy into the tmpfs: as workspace_copy_tree(), but each input
 * at the top becomes a link to WORKSPACE_INPUTS instead of a copy. */
bool workspace_copy_in (int host_dirfd, int tmpfs_dirfd, uint64_t budget,
                        uint64_t max_entries, struct workspace_copy *out);
/* The folder, at the top of the host's workspace, where the caller puts a
 * file it adds while the program runs: never copied in or saved, never
 * pruned; workspace_take_incoming() moves what is in it. */
#define WORKSPACE_INCOMING ".reckon-incoming"

/* Inputs (--input NAME): files the user added, at the top of the host's
 * workspace. They never enter the capped workspace: the host's folder is
 * bound read-only at WORKSPACE_INPUTS inside, and the tmpfs holds a link
 * NAME -> WORKSPACE_INPUTS/NAME, so an input costs neither the disk cap
 * nor memory, and nothing inside can write, grow, rename or replace it on
 * the host: copies out never write, prune or link over an input's name. */
#define WORKSPACE_INPUTS "/inputs"
#define WORKSPACE_MAX_INPUTS 1024

/* Adds @name (one path component, not hidden) to the inputs; false when
 * it is not such a name or there are too many. */
bool workspace_add_input (const char *name);
bool workspace_is_input (const char *name);
size_t workspace_n_inputs (void);
const char *workspace_input (size_t i);

/* Moves each regular file of the host's WORKSPACE_INCOMING folder into
 * the workspace: copies it to the top of @tmpfs_dirfd, then renames it to
 * the top of @host_dirfd (never replacing anything). A name the tmpfs has
 * already (the program made it since the last save), or a file that does
 * not fit (at most @budget bytes in all; the tmpfs's own cap), stays where
 * it is and is named in @out->error; the rest are moved. Files under
 * WORKSPACE_INCOMING/.reckon/ (the app's own, such as the profiler's
 * readings) go to the same place under .reckon/, replacing what is there.
 * Names that begin with a dot are left alone: files still being written.
 * Each added file is an input: renamed on the host, linked in the tmpfs
 * (no copy, no budget), and added to the inputs. */
bool workspace_take_incoming (int host_dirfd, int tmpfs_dirfd, uint64_t budget,
                              struct workspace_copy *out);
