/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-request-view.h — "What Was Sent to the Model": the requests of one
 * question (the instructions, what the model was told about the files, the
 * messages), in a window of their own. */
#pragma once

#include <adwaita.h>

#include "rk-transcript-entry.h"

G_BEGIN_DECLS

#define RK_TYPE_REQUEST_VIEW (rk_request_view_get_type ())
G_DECLARE_FINAL_TYPE (RkRequestView, rk_request_view, RK, REQUEST_VIEW, AdwWindow)

/* @question: a user entry; what was sent is its detail (a sent record),
 * followed while the question is being answered. */
GtkWidget  *rk_request_view_new      (GtkWindow         *parent,
                                      RkTranscriptEntry *question);

G_END_DECLS
