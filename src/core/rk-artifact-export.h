/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-artifact-export.h — artifacts saved in forms a user opens: tables as
 * CSV or XLSX, charts as PNG, SVG or PDF, figures and files as they are; and
 * "Save all" into a folder or a zip with a provenance file. */
#pragma once

#include <gio/gio.h>

#include "rk-export.h"
#include "rk-transcript.h"

G_BEGIN_DECLS

/* Saves the artifact @rel_path (of @kind: RK_ENTRY_TABLE, _CHART, _FIGURE or
 * _FILE) beneath @workspace to @dest_path; the format follows the extension
 * of @dest_path (.csv/.xlsx for a table, .png/.svg/.pdf for a chart; other
 * artifacts are copied). Blocking. */
gboolean  rk_artifact_save           (RkWorkspace         *workspace,
                                      RkEntryKind          kind,
                                      const char          *rel_path,
                                      const char          *dest_path,
                                      GCancellable        *cancellable,
                                      GError             **error);

/* The name a saved artifact gets in "Save all": its title (or file name),
 * sanitised, with the extension of its saved form (tables .csv, charts .svg). */
char     *rk_artifact_save_name      (RkEntryKind          kind,
                                      const char          *rel_path,
                                      const char          *title);

/* "Save all": every artifact of @records (RkProvenance, from
 * rk_provenance_collect, hashed or not) in its saved form, plus
 * "provenance.json" (rk_provenance_to_json), into the folder or zip @dest
 * (rk_export_all: names made unique, nothing left behind on failure).
 * Artifacts that cannot be read are left out and named in @skipped. Blocking. */
gboolean  rk_artifact_save_all       (RkWorkspace         *workspace,
                                      GPtrArray           *records,
                                      RkExportFormat       format,
                                      const char          *dest,
                                      GStrv               *skipped,
                                      GCancellable        *cancellable,
                                      GError             **error);
/* Collects the provenance of @transcript (on the calling thread), then hashes
 * the inputs and saves everything in a worker. @input_names as for
 * rk_provenance_collect(). */
void      rk_artifact_save_all_async (RkTranscript        *transcript,
                                      const char * const  *input_names,
                                      RkWorkspace         *workspace,
                                      RkExportFormat       format,
                                      const char          *dest,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data);
/* Returns the skipped list (possibly empty) on success. */
GStrv     rk_artifact_save_all_finish (GAsyncResult       *result,
                                       GError            **error);

G_END_DECLS
