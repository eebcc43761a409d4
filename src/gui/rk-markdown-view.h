/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-markdown-view.h — markdown prose as native widgets (headings,
 * paragraphs, lists, quotes, code, GFM tables), updated block by block while
 * the text streams in. */
#pragma once

#include <gtk/gtk.h>

#include "rk-trace.h"
#include "rk-transcript-entry.h"

G_BEGIN_DECLS

#define RK_TYPE_MARKDOWN_VIEW (rk_markdown_view_get_type ())
G_DECLARE_FINAL_TYPE (RkMarkdownView, rk_markdown_view, RK, MARKDOWN_VIEW, GtkWidget)

GtkWidget  *rk_markdown_view_new        (void);
/* Renders @text. When it extends the text shown before, the blocks that
 * were already final are kept as they are and only the rest is rendered. */
void        rk_markdown_view_set_text   (RkMarkdownView    *self,
                                         const char        *text);
const char *rk_markdown_view_get_text   (RkMarkdownView    *self);
/* Follows @entry's text (notify::text), at most once a frame while mapped. */
void        rk_markdown_view_set_entry  (RkMarkdownView    *self,
                                         RkTranscriptEntry *entry);
/* Python fences folded into one line (the agent shows that code in a cell
 * of its own, with the approval bar). Default FALSE. */
void        rk_markdown_view_set_fold_python (RkMarkdownView *self,
                                              gboolean        fold);
/* Numbers of the prose marked against @index (rk_trace_mark_markup):
 * computed ones link to their output, others are underlined. Takes
 * @index; NULL unmarks. Signal "trace-activated" (guint entry_id): a
 * computed number was clicked. */
void        rk_markdown_view_set_trace_index (RkMarkdownView *self,
                                              RkTraceIndex   *index);
/* Renders now whatever change is still waiting for the next frame. */
void        rk_markdown_view_flush      (RkMarkdownView    *self);

/* For tests and benchmarks: block widgets built so far (top level and
 * nested), and the top-level blocks that are final. */
guint       rk_markdown_view_get_n_built (RkMarkdownView   *self);
guint       rk_markdown_view_get_n_final (RkMarkdownView   *self);
/* The box holding one widget per top-level block. */
GtkWidget  *rk_markdown_view_get_box     (RkMarkdownView   *self);

G_END_DECLS
