/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-transcript-entry.h — one entry of the conversation (a message, code,
 * an approval, an output, an artifact, an error, a note). Read-only outside
 * RkTranscript, which creates them. */
#pragma once

#include <glib-object.h>

#include "rk-limits.h"

G_BEGIN_DECLS

typedef enum
{
  RK_ENTRY_USER,        /* text; attachments (file names) */
  RK_ENTRY_ASSISTANT,   /* text: prose of the model */
  RK_ENTRY_REASONING,   /* text: the model's thinking */
  RK_ENTRY_CODE,        /* cell_id; text: code; revises, previous_code */
  RK_ENTRY_APPROVAL,    /* cell_id; decision; text: the edited code (EDITED) */
  RK_ENTRY_STREAM,      /* cell_id; stream; text; truncated */
  RK_ENTRY_RESULT,      /* cell_id; text: repr of the last expression; truncated */
  RK_ENTRY_TABLE,       /* cell_id; path, mime_type, title, rows, columns */
  RK_ENTRY_FIGURE,      /* cell_id; path, mime_type, title, width, height */
  RK_ENTRY_CHART,       /* cell_id; path (the chart spec), title */
  RK_ENTRY_FILE,        /* cell_id; path, mime_type, title */
  RK_ENTRY_ERROR,       /* cell_id (may be NULL); name: type; text: message; detail: traceback
                         * (for name "SandboxLimit" in a transcript of an older version: the
                         * limit's name); limit: the sandbox limit the error stands for, or NONE;
                         * limit_value: its value then (bytes or seconds), or 0 */
  RK_ENTRY_ANSWER,      /* text: the final answer */
  RK_ENTRY_NOTE,        /* name: what kind, e.g. "session-expired"; text */
  RK_ENTRY_ATTACHMENT,  /* a file the user added: name: its name in the workspace;
                         * title: its original base name; detail: its profile
                         * (the profiler's JSON for it) once known, or NULL */
} RkEntryKind;

typedef enum
{
  RK_DECISION_NONE,
  RK_DECISION_APPROVED,
  RK_DECISION_EDITED,
  RK_DECISION_SKIPPED,
  RK_DECISION_AUTO,
} RkDecision;

typedef enum
{
  RK_STREAM_STDOUT,
  RK_STREAM_STDERR,
} RkStream;

#define RK_TYPE_TRANSCRIPT_ENTRY (rk_transcript_entry_get_type ())
G_DECLARE_FINAL_TYPE (RkTranscriptEntry, rk_transcript_entry, RK, TRANSCRIPT_ENTRY, GObject)

/* Properties (read-only, notified when they change after the entry was added):
 *   "text"   (string) grows while a reply or a cell's output streams in;
 *            bind a row to it instead of waiting for items-changed.
 *   "detail" (string) an attachment's profile JSON once known. */

guint               rk_transcript_entry_get_id            (RkTranscriptEntry *self);
RkEntryKind         rk_transcript_entry_get_kind          (RkTranscriptEntry *self);
/* Microseconds since the Unix epoch. */
gint64              rk_transcript_entry_get_timestamp     (RkTranscriptEntry *self);
const char         *rk_transcript_entry_get_cell_id       (RkTranscriptEntry *self);
const char         *rk_transcript_entry_get_text          (RkTranscriptEntry *self);
const char         *rk_transcript_entry_get_name          (RkTranscriptEntry *self);
const char         *rk_transcript_entry_get_detail        (RkTranscriptEntry *self);
/* An error's limit, as the kernel named it or its exception's name says
 * (rk_sandbox_limit_from_error): never from a translated sentence. */
RkSandboxLimit      rk_transcript_entry_get_limit         (RkTranscriptEntry *self);
/* The limit's value when it was hit: bytes (memory, disk) or seconds
 * (time); 0 when not known. */
gint64              rk_transcript_entry_get_limit_value   (RkTranscriptEntry *self);
const char * const *rk_transcript_entry_get_attachments   (RkTranscriptEntry *self);
guint               rk_transcript_entry_get_revises       (RkTranscriptEntry *self);
const char         *rk_transcript_entry_get_previous_code (RkTranscriptEntry *self);
RkDecision          rk_transcript_entry_get_decision      (RkTranscriptEntry *self);
RkStream            rk_transcript_entry_get_stream        (RkTranscriptEntry *self);
gboolean            rk_transcript_entry_get_truncated     (RkTranscriptEntry *self);
/* Artifacts: a path relative to the session's workspace. */
const char         *rk_transcript_entry_get_path          (RkTranscriptEntry *self);
const char         *rk_transcript_entry_get_mime_type     (RkTranscriptEntry *self);
const char         *rk_transcript_entry_get_title         (RkTranscriptEntry *self);
gint64              rk_transcript_entry_get_width         (RkTranscriptEntry *self);
gint64              rk_transcript_entry_get_height        (RkTranscriptEntry *self);
gint64              rk_transcript_entry_get_rows          (RkTranscriptEntry *self);
gint64              rk_transcript_entry_get_columns       (RkTranscriptEntry *self);

const char         *rk_entry_kind_to_string               (RkEntryKind kind);
gboolean            rk_entry_kind_from_string             (const char  *str,
                                                           RkEntryKind *kind);
const char         *rk_decision_to_string                 (RkDecision  decision);
gboolean            rk_decision_from_string               (const char *str,
                                                           RkDecision *decision);

G_END_DECLS
