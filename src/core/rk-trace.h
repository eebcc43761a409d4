/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-trace.h — traceable numbers: each number in a final answer is linked to
 * a cell output that holds it (a table cell, a printed value, a chart point)
 * or marked "not computed". The rules are in docs/traceable-numbers.md. */
#pragma once

#include <gio/gio.h>

#include "rk-chart.h"
#include "rk-table.h"
#include "rk-transcript.h"
#include "rk-workspace.h"

G_BEGIN_DECLS

/* Text longer than this is not scanned (beyond it nothing is marked). */
#define RK_TRACE_MAX_TEXT    (1u << 20)
/* Values kept from all outputs together; the rest are not indexed. */
#define RK_TRACE_MAX_VALUES  (4u << 20)

typedef enum
{
  RK_TRACE_COMPUTED,      /* found in an output: entry_id (row, column) */
  RK_TRACE_NOT_COMPUTED,  /* in no output */
  RK_TRACE_GIVEN,         /* not in an output, but in the user's own words */
} RkTraceStatus;

typedef enum
{
  RK_TRACE_FLAG_PERCENT    = 1 << 0,
  RK_TRACE_FLAG_MULTIPLIER = 1 << 1,   /* "thousand", "million", "k", "M", "bn" */
  RK_TRACE_FLAG_EXPONENT   = 1 << 2,
} RkTraceFlags;

typedef struct
{
  gsize         start;      /* byte offsets into the text */
  gsize         end;
  double        value;      /* as written, multiplier applied, percent not divided */
  double        tolerance;  /* half a unit of the last digit written */
  RkTraceFlags  flags;
  RkTraceStatus status;
  guint         entry_id;   /* the output entry (COMPUTED) or user entry (GIVEN), else 0 */
  gint64        row;        /* table row (physical) or chart point, or -1 */
  int           column;     /* table column or chart series, or -1 */
} RkTraceSpan;

/* The numbers in @text that an answer is checked for (docs/traceable-numbers.md:
 * at least two digits, a decimal point, a percent sign or a multiplier; not
 * in `code`; not years; not parts of dates, times, versions or words).
 * Returns: (element-type RkTraceSpan), status RK_TRACE_NOT_COMPUTED. */
GArray       *rk_trace_find_numbers      (const char   *text);

/* Every number in @text, as outputs are read (any number of digits, years
 * and code included). Returns: (element-type RkTraceSpan) */
GArray       *rk_trace_find_all_numbers  (const char   *text);

typedef struct _RkTraceIndex RkTraceIndex;

RkTraceIndex *rk_trace_index_new         (void);
void          rk_trace_index_free        (RkTraceIndex *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RkTraceIndex, rk_trace_index_free)

/* Sources. Text: printed output or a result's repr (@status
 * RK_TRACE_COMPUTED), or the user's own words (RK_TRACE_GIVEN). */
void          rk_trace_index_add_text    (RkTraceIndex  *self,
                                          guint          entry_id,
                                          const char    *text,
                                          RkTraceStatus  status);
void          rk_trace_index_add_value   (RkTraceIndex *self,
                                          guint         entry_id,
                                          double        value,
                                          gint64        row,
                                          int           column);
/* Every number cell (int, float, bool excluded) of @table. */
void          rk_trace_index_add_table   (RkTraceIndex *self,
                                          guint         entry_id,
                                          RkTable      *table);
/* Every y value (bars, points, bin counts, box statistics) of @chart. */
void          rk_trace_index_add_chart   (RkTraceIndex *self,
                                          guint         entry_id,
                                          RkChart      *chart);
guint         rk_trace_index_get_n_values (RkTraceIndex *self);

/* The numbers of @text (rk_trace_find_numbers) with their status against
 * the index. Also for rendered text: render can call it on each paragraph's
 * plain text with the same index. Returns: (element-type RkTraceSpan) */
GArray       *rk_trace_index_match       (RkTraceIndex *self,
                                          const char   *text);

/* @markup (Pango markup of rendered prose, e.g. a GtkLabel's) with its
 * numbers marked: a computed one becomes a link
 * <a href="reckon-trace:ENTRY:ROW:COLUMN" title="…">…</a> (activate-link:
 * scroll to ENTRY), one not computed a link to "reckon-trace:not-computed"
 * with a wavy underline and the title "Not computed…"; given ones stay as
 * they are. Text inside <tt> and <a> is left alone. Counts go to
 * @n_computed / @n_not_computed when not NULL. */
char         *rk_trace_mark_markup       (RkTraceIndex *self,
                                          const char   *markup,
                                          guint        *n_computed,
                                          guint        *n_not_computed);

/* The index of every output before the entry @before_entry_id (0: all) of
 * @transcript: printed text and results from the entries, tables and charts
 * read beneath @workspace (NULL or gone: text only), and the user's words.
 * Text is taken on the calling thread, files read in a worker. */
void          rk_trace_index_build_async (RkTranscript       *transcript,
                                          guint               before_entry_id,
                                          RkWorkspace        *workspace,
                                          GCancellable       *cancellable,
                                          GAsyncReadyCallback callback,
                                          gpointer            user_data);
RkTraceIndex *rk_trace_index_build_finish (GAsyncResult      *result,
                                           GError           **error);

G_END_DECLS
