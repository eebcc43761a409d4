/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-output-view.h — a cell's stdout or stderr (monospace, stderr tinted,
 * long output capped behind "Show more"), and while the cell runs, its
 * elapsed time and a Stop button. */
#pragma once

#include <gtk/gtk.h>

#include "rk-transcript-entry.h"

G_BEGIN_DECLS

#define RK_TYPE_OUTPUT_VIEW (rk_output_view_get_type ())
G_DECLARE_FINAL_TYPE (RkOutputView, rk_output_view, RK, OUTPUT_VIEW, GtkWidget)

/* Output shown before "Show more": this many lines or bytes. */
#define RK_OUTPUT_VIEW_CAP_LINES  20
#define RK_OUTPUT_VIEW_CAP_BYTES  (8 * 1024)
/* Shown at most after "Show more". */
#define RK_OUTPUT_VIEW_MAX_BYTES  (256 * 1024)

GtkWidget *rk_output_view_new          (void);
/* Follows a STREAM or RESULT entry's text (notify::text). */
void       rk_output_view_set_entry    (RkOutputView      *self,
                                        RkTranscriptEntry *entry);
void       rk_output_view_set_text     (RkOutputView      *self,
                                        const char        *text,
                                        gboolean           is_stderr);
/* Running: the spinner, the time since @started_us (monotonic, as
 * g_get_monotonic_time) and Stop. FALSE hides them. */
void       rk_output_view_set_running  (RkOutputView      *self,
                                        gboolean           running,
                                        gint64             started_us);
gboolean   rk_output_view_get_capped   (RkOutputView      *self);
/* The text shown now. */
const char *rk_output_view_get_shown   (RkOutputView      *self);

/* Stop activates chat.stop. */

G_END_DECLS
