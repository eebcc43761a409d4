/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-kernel-protocol.h — the one parser of the bytes the sandboxed kernel
 * sends (docs/kernel-protocol.md): typed events, one a line (the lines come
 * from rk-line-splitter). */
#pragma once

#include <glib-object.h>

#include "rk-limits.h"

G_BEGIN_DECLS

/* Longest line the host accepts from the kernel, newline excluded. */
#define RK_KERNEL_MAX_LINE        (4u * 1024 * 1024)
#define RK_KERNEL_MAX_ID          64
#define RK_KERNEL_MAX_PATH        4096
#define RK_KERNEL_MAX_SHORT       1024        /* names, versions, titles */
#define RK_KERNEL_PROTOCOL_VERSION 1

typedef enum
{
  RK_KERNEL_EVENT_READY,
  RK_KERNEL_EVENT_STARTED,
  RK_KERNEL_EVENT_STREAM,
  RK_KERNEL_EVENT_RESULT,
  RK_KERNEL_EVENT_TABLE,
  RK_KERNEL_EVENT_FIGURE,
  RK_KERNEL_EVENT_CHART,
  RK_KERNEL_EVENT_FILE,
  RK_KERNEL_EVENT_ERROR,
  RK_KERNEL_EVENT_DONE,
} RkKernelEventType;

typedef enum
{
  RK_KERNEL_STREAM_STDOUT,
  RK_KERNEL_STREAM_STDERR,
} RkKernelStreamName;

typedef enum
{
  RK_KERNEL_STATUS_OK,
  RK_KERNEL_STATUS_ERROR,
  RK_KERNEL_STATUS_INTERRUPTED,
  /* Never sent by the kernel: the host ends a cell with it when the kernel
   * died (a limit, a crash, a kill) or was restarted under it. */
  RK_KERNEL_STATUS_DIED,
} RkKernelStatus;

typedef enum
{
  RK_KERNEL_FILE_CREATED,
  RK_KERNEL_FILE_MODIFIED,
} RkKernelFileChange;

/* One validated event. Strings are valid UTF-8; every path is relative to
 * the workspace and passed rk_path_is_beneath(). Fields that do not belong
 * to the event's type are NULL / 0. */
typedef struct
{
  /*< private >*/
  grefcount          ref_count;

  /*< public >*/
  RkKernelEventType  type;
  char              *id;              /* cell id; NULL only for READY */
  /* The cell's nonce as the kernel sent it (checked by RkKernel, which
   * drops events whose nonce is not the running cell's), or NULL. */
  char              *nonce;

  /* READY */
  gint64             protocol;
  char              *python;          /* versions, may be NULL */
  char              *pandas;
  char              *matplotlib;

  /* STREAM (stream, text), RESULT (text) */
  RkKernelStreamName stream;
  char              *text;

  /* TABLE, FIGURE, CHART, FILE */
  char              *path;
  char              *name;            /* TABLE, may be NULL */
  gint64             rows;            /* TABLE */
  gint64             columns;         /* TABLE */
  char              *format;          /* FIGURE: "png" or "svg" */
  gint64             width;           /* FIGURE, pixels */
  gint64             height;
  char              *title;           /* CHART, FIGURE; may be NULL */
  gint64             size;            /* FILE, bytes */
  RkKernelFileChange change;          /* FILE */

  /* ERROR (limit, below, may name the sandbox limit the error stands for:
   * memory for a MemoryError under the sandbox's memory limit, cpu, disk or
   * files; RkKernel sets time when it stopped a cell at its time limit) */
  char              *ename;
  char              *evalue;
  char              *traceback;

  /* DONE */
  RkKernelStatus     status;
  gint64             duration_ms;
  gint64             truncated_bytes;
  /* DONE with status DIED, or ERROR at the time limit (set by the host,
   * never parsed): one sentence for the user, and the sandbox limit that was
   * crossed, or RK_SANDBOX_LIMIT_NONE. ERROR: the limit of an error event
   * (parsed). */
  char              *message;
  RkSandboxLimit     limit;
  /* With ->limit, set by the host, never parsed: the limit in force when it
   * was crossed, in bytes (memory, disk) or seconds (time); 0 when
   * not known. */
  guint64            limit_value;
} RkKernelEvent;

#define RK_TYPE_KERNEL_EVENT (rk_kernel_event_get_type ())

GType          rk_kernel_event_get_type   (void) G_GNUC_CONST;
RkKernelEvent *rk_kernel_event_new        (RkKernelEventType  type);
RkKernelEvent *rk_kernel_event_ref        (RkKernelEvent     *self);
void           rk_kernel_event_unref      (RkKernelEvent     *self);

/* Parses one line (without its newline). Everything is checked: size,
 * UTF-8, JSON nesting, the type and range of each field, paths. Errors are
 * RK_PARSE_ERROR. */
RkKernelEvent *rk_kernel_event_parse      (const char        *line,
                                           gsize              len,
                                           GError           **error);

/* The error names whose evalue is a plain sentence for people, shown
 * without the name: "NoNetwork" (code tried the network, which the
 * sandbox does not have). */
#define RK_KERNEL_ENAME_NO_NETWORK "NoNetwork"
gboolean       rk_kernel_error_is_plain       (const char       *ename);
/* The sentence of a plain error, translated (the kernel's is English), or
 * NULL for any other name. */
const char    *rk_kernel_error_plain_sentence (const char       *ename);

const char    *rk_kernel_event_type_to_string (RkKernelEventType type);
const char    *rk_kernel_status_to_string     (RkKernelStatus    status);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RkKernelEvent, rk_kernel_event_unref)


G_END_DECLS
