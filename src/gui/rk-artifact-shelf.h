/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-artifact-shelf.h — the sidebar's list of everything the session's cells
 * made, newest first, each with its provenance; Save one, Save all. */
#pragma once

#include <gtk/gtk.h>

#include "rk-session.h"
#include "rk-transcript.h"

G_BEGIN_DECLS

#define RK_TYPE_ARTIFACT_SHELF (rk_artifact_shelf_get_type ())
G_DECLARE_FINAL_TYPE (RkArtifactShelf, rk_artifact_shelf, RK, ARTIFACT_SHELF, GtkWidget)

GtkWidget *rk_artifact_shelf_new          (void);
/* The conversation to show: its transcript (the artifacts, their cells) and
 * its session (the workspace files are saved from; NULL or expired: the list
 * stays, saving is off). Either may be NULL. */
void       rk_artifact_shelf_set_session  (RkArtifactShelf *self,
                                           RkTranscript    *transcript,
                                           RkSession       *session);
guint      rk_artifact_shelf_get_n_items  (RkArtifactShelf *self);

/* Actions on the widget: "shelf.save-all" ("folder" or "zip") asks where,
 * then saves every artifact with provenance.json (rk_artifact_save_all_async).
 *
 * Signal "activate-entry" (guint entry_id): the user picked an artifact;
 * scroll the chat to that transcript entry. */

G_END_DECLS
