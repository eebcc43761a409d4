/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-file-card.h — a file added to the conversation, with its profile:
 * kind, sheets, rows × columns, column names and types, the first rows
 * (a button to the whole table), notes; a spinner and Cancel while it is
 * profiled; one sentence when it cannot be read. */
#pragma once

#include <gtk/gtk.h>

#include "rk-conversation-file.h"

G_BEGIN_DECLS

#define RK_TYPE_FILE_CARD (rk_file_card_get_type ())
G_DECLARE_FINAL_TYPE (RkFileCard, rk_file_card, RK, FILE_CARD, GtkWidget)

/* Columns listed before "and N more". */
#define RK_FILE_CARD_MAX_COLUMNS 12

GtkWidget  *rk_file_card_new          (void);
/* @name: the file's name in the workspace; @title: its original name. */
void        rk_file_card_set_file     (RkFileCard          *self,
                                       const char          *name,
                                       const char          *title);
/* When the file was added (µs since the Unix epoch, as an entry's
 * timestamp): while it is read, the card counts the seconds since. */
void        rk_file_card_set_started  (RkFileCard          *self,
                                       gint64               real_time_us);
/* The file's size, shown while it is read (0: unknown). */
void        rk_file_card_set_size     (RkFileCard          *self,
                                       guint64              size);
/* How much of the file the profiler has read, 0 to 1 (-1: not known): the
 * bar and the percentage while it is read. */
void        rk_file_card_set_progress (RkFileCard          *self,
                                       double               fraction);
double      rk_file_card_get_progress (RkFileCard          *self);
/* NULL: still being profiled (spinner, elapsed time and Cancel). */
void        rk_file_card_set_profile  (RkFileCard          *self,
                                       const RkFileProfile *profile);
gboolean    rk_file_card_get_profiling (RkFileCard         *self);
/* While profiling: a big CSV's profile from its sample (rows estimated),
 * shown with the progress and Cancel until rk_file_card_set_profile(). */
void        rk_file_card_set_estimate (RkFileCard          *self,
                                       const RkFileProfile *estimate);
/* The estimated summary shown, or NULL. */
const char *rk_file_card_get_estimate (RkFileCard          *self);
/* Follows @file: its profile, estimate and progress (the setters above,
 * as they change) and its name. */
void        rk_file_card_bind         (RkFileCard          *self,
                                       RkConversationFile  *file);
/* The one-line summary shown, e.g. "CSV · 1,204 rows × 7 columns". */
const char *rk_file_card_get_summary  (RkFileCard          *self);
const char *rk_file_card_get_name     (RkFileCard          *self);

/* Cancel activates the chat view's chat.cancel-profile (s: the file name);
 * a one-click analysis, chat.run-code (s: its code, shown for approval). */

G_END_DECLS
