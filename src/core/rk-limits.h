/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-limits.h — the limits a user can change (memory, disk, time of a cell):
 * their bounds, sizes as people type them ("512M", "4G"), and the raised
 * value offered when a cell hits one. One home for the window and the CLI. */
#pragma once

#include <glib-object.h>

#include "rk-workspace.h"

G_BEGIN_DECLS

#define RK_LIMITS_ERROR (rk_limits_error_quark ())

typedef enum
{
  RK_LIMITS_ERROR_INVALID,    /* not a size or a number of seconds */
  RK_LIMITS_ERROR_RANGE,      /* outside the limit's bounds */
} RkLimitsError;

GQuark rk_limits_error_quark (void);

/* A limit of the sandbox, as the sandbox's status line, its stderr and the
 * kernel protocol name it ("memory", "disk", "time", "cpu", "timeout",
 * "files", "file-size", "processes"). The only place those names are
 * written on the host: everything else carries this enum. */
typedef enum
{
  RK_SANDBOX_LIMIT_NONE,        /* no limit was hit */
  RK_SANDBOX_LIMIT_MEMORY,      /* setting memory-limit, --memory (MiB) */
  RK_SANDBOX_LIMIT_DISK,        /* setting disk-limit, --disk (MiB) */
  RK_SANDBOX_LIMIT_TIME,        /* a cell's wall-clock time: cell-time-limit, --timeout (s) */
  RK_SANDBOX_LIMIT_CPU,         /* CPU seconds (RLIMIT_CPU) */
  RK_SANDBOX_LIMIT_TIMEOUT,     /* the sandbox's own --timeout for the whole run */
  RK_SANDBOX_LIMIT_FILES,       /* number of files in the workspace */
  RK_SANDBOX_LIMIT_FILE_SIZE,   /* one file's size (RLIMIT_FSIZE) */
  RK_SANDBOX_LIMIT_PROCESSES,   /* processes and threads */
  RK_SANDBOX_LIMIT_UNKNOWN,     /* named, but not a name Reckon knows */
} RkSandboxLimit;

#define RK_TYPE_SANDBOX_LIMIT (rk_sandbox_limit_get_type ())
GType           rk_sandbox_limit_get_type      (void) G_GNUC_CONST;

/* The limit @name stands for: NONE for NULL or "", UNKNOWN for a name
 * that is not one of the sandbox's. */
RkSandboxLimit  rk_sandbox_limit_from_name     (const char     *name);
/* The name as the sandbox and saved transcripts write it; NULL for NONE. */
const char     *rk_sandbox_limit_to_name       (RkSandboxLimit  limit);
/* The limit an error stands for when nothing named it: a MemoryError, a
 * TimeLimitExceeded, or a "SandboxLimit" error of a transcript saved
 * before errors carried their limit (the agent put the name in @detail).
 * Never reads a message: it is translated. */
RkSandboxLimit  rk_sandbox_limit_from_error    (const char     *error_name,
                                                const char     *detail);
/* TRUE for the limits a user sets (memory, disk, time). */
gboolean        rk_sandbox_limit_is_settable   (RkSandboxLimit  limit);
/* The GSettings key of a settable limit ("memory-limit", "disk-limit",
 * "cell-time-limit"), the reckon-cli option ("--memory", "--disk",
 * "--timeout"); NULL for the others. */
const char     *rk_sandbox_limit_settings_key  (RkSandboxLimit  limit);
const char     *rk_sandbox_limit_cli_option    (RkSandboxLimit  limit);
/* A value of its setting (MiB for memory and disk, seconds for time) in
 * the unit of the sandbox (bytes, seconds). */
guint64         rk_sandbox_limit_setting_value (RkSandboxLimit  limit,
                                                guint64         setting);
/* @value (bytes, or seconds for time) as people read it: "4.0 GiB",
 * "4 minutes", "90 seconds". */
char           *rk_sandbox_limit_format_value  (RkSandboxLimit  limit,
                                                guint64         value);
/* Why a kernel was stopped, in one sentence ("The cell was stopped because
 * it used more memory than the sandbox allows."). */
char           *rk_sandbox_limit_describe      (RkSandboxLimit  limit);
/* For an error view: what happened, with the value in force (@value, in
 * the sandbox's unit; 0 when not known), and what to do; @raise_offered:
 * a button raises it, so @todo names only the other way out. @what is
 * NULL for a limit Reckon does not know. */
void            rk_sandbox_limit_explain       (RkSandboxLimit  limit,
                                                guint64         value,
                                                gboolean        raise_offered,
                                                char          **what,
                                                char          **todo);
/* The offer to raise a settable @limit from @current (in its setting's
 * unit) and run the cell again: the raised setting in @raised and the
 * button's label ("Raise the memory limit to 4.0 GiB and run again").
 * FALSE when it cannot go higher. */
gboolean        rk_sandbox_limit_propose_raise (RkSandboxLimit  limit,
                                                guint64         current,
                                                guint64        *raised,
                                                char          **label);
/* The same offer for a terminal: "the cell reached the sandbox's “memory”
 * limit (2.0 GiB); run again with --memory 4G to raise it." @current in
 * the setting's unit. NULL for a limit no option raises. */
char           *rk_sandbox_limit_cli_sentence  (RkSandboxLimit  limit,
                                                guint64         current);

#define RK_LIMITS_MEMORY_MIN_MIB     256
#define RK_LIMITS_MEMORY_MAX_MIB     65536
#define RK_LIMITS_MEMORY_DEFAULT_MIB 2048
#define RK_LIMITS_DISK_MIN_MIB       64
#define RK_LIMITS_DISK_MAX_MIB       1048576
#define RK_LIMITS_DISK_DEFAULT_MIB   1024
#define RK_LIMITS_TIME_MIN_S         5
#define RK_LIMITS_TIME_MAX_S         86400
#define RK_LIMITS_TIME_DEFAULT_S     120

/* "512M", "4G", "1.5G", "2048K", "1073741824" (bytes), with an optional
 * "iB" or "B" after the unit; units are powers of 1024. Fails with one
 * sentence naming @option (e.g. "--memory") and the bounds of @kind (RK_SANDBOX_LIMIT_MEMORY or _DISK). */
gboolean     rk_limits_parse_size       (RkSandboxLimit kind,
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
gboolean     rk_limits_raised           (RkSandboxLimit kind,
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
