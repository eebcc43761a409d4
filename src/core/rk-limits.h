/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-limits.h — the limits a user can change (memory, disk, time of a cell):
 * their bounds, sizes as people type them ("512M", "4G"), and the raised
 * value offered when a cell hits one. One home for the window and the CLI. */
#pragma once

#include <glib.h>

#include "rk-workspace.h"

G_BEGIN_DECLS

#define RK_LIMITS_ERROR (rk_limits_error_quark ())

typedef enum
{
  RK_LIMITS_ERROR_INVALID,    /* not a size or a number of seconds */
  RK_LIMITS_ERROR_RANGE,      /* outside the limit's bounds */
} RkLimitsError;

GQuark rk_limits_error_quark (void);

/* The limits a user sets; the same bounds as the GSettings keys
 * memory-limit and disk-limit (MiB) and cell-time-limit (s). */
typedef enum
{
  RK_LIMIT_MEMORY,
  RK_LIMIT_DISK,
  RK_LIMIT_TIME,
} RkLimitKind;

#define RK_LIMITS_MEMORY_MIN_MIB     256
#define RK_LIMITS_MEMORY_MAX_MIB     65536
#define RK_LIMITS_MEMORY_DEFAULT_MIB 2048
#define RK_LIMITS_DISK_MIN_MIB       64
#define RK_LIMITS_DISK_MAX_MIB       1048576
#define RK_LIMITS_DISK_DEFAULT_MIB   1024
#define RK_LIMITS_TIME_MIN_S         5
#define RK_LIMITS_TIME_MAX_S         86400
#define RK_LIMITS_TIME_DEFAULT_S     120

/* The limit a kernel event or transcript entry names ("memory", "disk",
 * "time"); FALSE for the others (cpu, files, …), which no setting raises. */
gboolean     rk_limit_kind_from_name    (const char   *name,
                                         RkLimitKind  *kind);
/* The settings key of @kind ("memory-limit", "disk-limit", "cell-time-limit"). */
const char  *rk_limit_kind_settings_key (RkLimitKind   kind);

/* "512M", "4G", "1.5G", "2048K", "1073741824" (bytes), with an optional
 * "iB" or "B" after the unit; units are powers of 1024. Fails with one
 * sentence naming @option (e.g. "--memory") and the bounds of @kind. */
gboolean     rk_limits_parse_size       (RkLimitKind   kind,
                                         const char   *option,
                                         const char   *text,
                                         guint64      *bytes,
                                         GError      **error);
/* A whole number of seconds from 1 to the time limit's maximum. */
gboolean     rk_limits_parse_seconds    (const char   *option,
                                         const char   *text,
                                         guint64      *seconds,
                                         GError      **error);
/* @bytes as the CLI takes it back: "4G" when whole GiB, else "1536M". */
char        *rk_limits_format_flag_size (guint64       bytes);

/* The physical memory of this computer in bytes (0: not known). */
guint64      rk_limits_machine_memory   (void);
/* The value offered when a cell hit @kind at @current (MiB for memory and
 * disk, seconds for time): twice it, capped at the key's maximum and, for
 * memory, at the computer's RAM. Returns FALSE when it cannot go higher. */
gboolean     rk_limits_raised           (RkLimitKind   kind,
                                         guint64       current,
                                         guint64      *raised);

/* What fills a workspace: the bytes of its regular files (symbolic links
 * are not followed) and its largest files, relative paths, biggest first.
 * Walks at most @max_entries entries. Blocking: call it from a thread. */
typedef struct
{
  guint64  total;
  char    *largest[3];
  guint64  largest_size[3];
  gboolean partial;      /* stopped at @max_entries */
} RkWorkspaceUsage;

/* What the files of @workspace take, but the inputs (@inputs,
 * NULL-terminated or NULL: files at the top that the user added, which the
 * sandbox never counts against its disk limit). */
void         rk_workspace_usage_measure (RkWorkspace        *workspace,
                                         const char * const *inputs,
                                         guint               max_entries,
                                         RkWorkspaceUsage   *usage);
void         rk_workspace_usage_clear   (RkWorkspaceUsage *usage);
/* One sentence for a kernel that cannot start because its workspace is
 * over @disk_limit bytes: what fills it, and how far to raise the limit. */
char        *rk_workspace_usage_over_disk_message (const RkWorkspaceUsage *usage,
                                                   guint64                 disk_limit);
/* The disk limit to suggest for @usage: its total and a quarter more, in
 * whole GiB, within the bounds (0: it cannot be raised enough). */
guint64      rk_workspace_usage_suggested_disk    (const RkWorkspaceUsage *usage);

G_END_DECLS
