/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-analysis-button.h — the "Analyse" menu of a file card: one-click
 * analyses (rk-analyses.h) that need no model; picking one emits the code to
 * run through the conversation's usual approval and rendering path. */
#pragma once

#include <gtk/gtk.h>

#include "rk-profile.h"

G_BEGIN_DECLS

#define RK_TYPE_ANALYSIS_BUTTON (rk_analysis_button_get_type ())
G_DECLARE_FINAL_TYPE (RkAnalysisButton, rk_analysis_button, RK, ANALYSIS_BUTTON, GtkWidget)

/* The file (its name in the workspace) and its profile (NULL while it is
 * profiled: the button is insensitive). Tables of a workbook: the first
 * sheet's columns decide; the code loads what reckon.load loads. */
void       rk_analysis_button_set_file (RkAnalysisButton    *self,
                                        const char          *name,
                                        const RkFileProfile *profile);

/* The picked analysis's code goes to the chat view's chat.run-code (s).
 * Action on the widget: "analysis.run" ("summary", "distributions",
 * "category-counts", "correlation", "missing", "group-by": the last asks for
 * the columns). */

G_END_DECLS
