/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-entry-row.h — one row of the chat list: the widget for one transcript
 * entry, chosen by its kind (user bubble, prose, code with its approval bar
 * and diff, output, table, chart, figure, file, error, note, file card). */
#pragma once

#include <gtk/gtk.h>

#include "rk-conversation-file.h"
#include "rk-transcript.h"
#include "rk-transcript-entry.h"
#include "rk-profile.h"

G_BEGIN_DECLS

#define RK_TYPE_ENTRY_ROW (rk_entry_row_get_type ())
G_DECLARE_FINAL_TYPE (RkEntryRow, rk_entry_row, RK, ENTRY_ROW, GtkWidget)

GtkWidget         *rk_entry_row_new             (void);
/* @workspace: the session's folder, for artifacts (NULL once it expired). */
void               rk_entry_row_bind            (RkEntryRow        *self,
                                                 RkTranscriptEntry *entry,
                                                 RkWorkspace       *workspace);
void               rk_entry_row_unbind          (RkEntryRow        *self);
RkTranscriptEntry *rk_entry_row_get_entry       (RkEntryRow        *self);
/* The conversation's state: the cell waiting for approval, the running cell
 * and when it started (monotonic µs). */
void               rk_entry_row_set_state       (RkEntryRow        *self,
                                                 const char        *pending_cell,
                                                 const char        *running_cell,
                                                 gint64             cell_started);
/* Attachment rows: the conversation's file, whose card follows its
 * properties; NULL: the file is gone (the profile saved in the entry, if
 * any, stays shown). */
void               rk_entry_row_set_file        (RkEntryRow         *self,
                                                 RkConversationFile *file);
/* Prose rows: mark the numbers of the prose against the outputs before
 * the answer entry @answer_id (the row's own entry, or the ANSWER entry
 * repeating it), computed off the GUI thread. */
void               rk_entry_row_trace_answer    (RkEntryRow        *self,
                                                 RkTranscript      *transcript,
                                                 guint              answer_id);
/* The widget built for the entry, and for code rows their approval bar
 * (NULL otherwise). */
GtkWidget         *rk_entry_row_get_content     (RkEntryRow        *self);
GtkWidget         *rk_entry_row_get_approval_bar (RkEntryRow       *self);

/* The row's controls activate the chat view's actions (rk-chat-view.h). */

G_END_DECLS
