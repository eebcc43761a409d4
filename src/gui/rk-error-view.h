/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-error-view.h — an error of a cell (message first, traceback folded; a
 * sandbox limit named in plain words with what to do next) or a note of the
 * conversation (a model error with Retry; a status line). */
#pragma once

#include <gtk/gtk.h>

#include "rk-transcript-entry.h"

G_BEGIN_DECLS

#define RK_TYPE_ERROR_VIEW (rk_error_view_get_type ())
G_DECLARE_FINAL_TYPE (RkErrorView, rk_error_view, RK, ERROR_VIEW, GtkWidget)

GtkWidget  *rk_error_view_new          (void);
/* An RK_ENTRY_ERROR or RK_ENTRY_NOTE entry. */
void        rk_error_view_set_entry    (RkErrorView       *self,
                                        RkTranscriptEntry *entry);
/* The sentence shown first. */
const char *rk_error_view_get_message  (RkErrorView       *self);
/* The limit hit, or RK_SANDBOX_LIMIT_NONE. */
RkSandboxLimit rk_error_view_get_limit (RkErrorView       *self);
/* The label of the button that raises the limit and runs the cell again
 * ("Raise the memory limit to 4.0 GiB and run again"), or NULL when none
 * is offered. */
const char *rk_error_view_get_raise_label (RkErrorView    *self);

/* Retry on a failed request activates chat.retry. The button that raises
 * the limit a cell hit changes the setting, then activates chat.run-again
 * ("(sb)": the cell id, and whether to run it in a fresh kernel, as for the
 * memory and disk limits). */

G_END_DECLS
