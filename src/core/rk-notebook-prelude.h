/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-notebook-prelude.h — the first cell of an exported notebook: a stand-in
 * for Reckon's `reckon` module that reads each file as Reckon read it. */
#pragma once

#include <gio/gio.h>

#include "rk-transcript-entry.h"
#include "rk-workspace.h"

G_BEGIN_DECLS

/* Python source: "try: import reckon", else a stand-in whose reckon.load
 * replays each file's recorded reading (the record beside the file in
 * @workspace, or, when there is none, the one in the file's attachment
 * entry) as the pandas arguments Reckon used, and guesses only for files
 * with no record. @entries is the transcript, a list of RkTranscriptEntry.
 * @workspace may be NULL. */
char *rk_notebook_prelude (GListModel  *entries,
                           RkWorkspace *workspace);

G_END_DECLS
