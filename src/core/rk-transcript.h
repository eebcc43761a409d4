/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-transcript.h — the conversation as data: an ordered GListModel of
 * RkTranscriptEntry, autosaved as versioned JSON, exported as .ipynb and HTML. */
#pragma once

#include <gio/gio.h>

#include "rk-transcript-entry.h"
#include "rk-workspace.h"

G_BEGIN_DECLS

#define RK_TRANSCRIPT_ERROR (rk_transcript_error_quark ())

typedef enum
{
  RK_TRANSCRIPT_ERROR_CORRUPT,    /* not a transcript, or damaged */
  RK_TRANSCRIPT_ERROR_TOO_LARGE,  /* over the size limits */
  RK_TRANSCRIPT_ERROR_VERSION,    /* written by a newer Reckon */
  RK_TRANSCRIPT_ERROR_IO,         /* could not be read or written */
} RkTranscriptError;

GQuark rk_transcript_error_quark (void);

/* Newest format version of the JSON file (2 added "attachment" entries; a
 * transcript without them is still written as version 1, which older
 * Reckons read). */
#define RK_TRANSCRIPT_VERSION 2

/* Limits: a stream or result entry keeps at most this much text (the rest is
 * cut and the entry marked truncated); any other text is cut at 4 MiB; a
 * transcript holds at most this many entries and loads from at most this
 * many bytes. */
#define RK_TRANSCRIPT_MAX_OUTPUT   (1u << 20)
#define RK_TRANSCRIPT_MAX_TEXT     (4u << 20)
#define RK_TRANSCRIPT_MAX_ENTRIES  100000
#define RK_TRANSCRIPT_MAX_FILE     (64u << 20)

/* An artifact a cell produced, to record: kind is RK_ENTRY_TABLE, _FIGURE,
 * _CHART or _FILE; path is relative to the workspace. */
typedef struct
{
  RkEntryKind  kind;
  const char  *path;
  const char  *mime_type;
  const char  *title;
  gint64       width;
  gint64       height;
  gint64       rows;
  gint64       columns;
} RkTranscriptArtifact;

#define RK_TYPE_TRANSCRIPT (rk_transcript_get_type ())
G_DECLARE_FINAL_TYPE (RkTranscript, rk_transcript, RK, TRANSCRIPT, GObject)

RkTranscript      *rk_transcript_new                (void);

/* Loading: the file is ours but may be damaged. Never crashes; fails with
 * one clear sentence in RK_TRANSCRIPT_ERROR. */
RkTranscript      *rk_transcript_new_from_bytes     (GBytes        *bytes,
                                                     GError       **error);
RkTranscript      *rk_transcript_load               (const char    *path,
                                                     GError       **error);
void               rk_transcript_load_async         (const char          *path,
                                                     GCancellable        *cancellable,
                                                     GAsyncReadyCallback  callback,
                                                     gpointer             user_data);
RkTranscript      *rk_transcript_load_finish        (GAsyncResult  *result,
                                                     GError       **error);
GBytes            *rk_transcript_to_bytes           (RkTranscript  *self);

/* Autosave: after this, every change schedules an atomic write of the whole
 * transcript to @path (coalesced, on the main loop). NULL stops it. Emits
 * "saved" after each write and "autosave-failed" (GError) on failure. A
 * pending write is done synchronously when the transcript is disposed. */
void               rk_transcript_set_autosave_path  (RkTranscript  *self,
                                                     const char    *path);
const char        *rk_transcript_get_autosave_path  (RkTranscript  *self);
/* Writes now (synchronously) if anything is unsaved. */
gboolean           rk_transcript_flush              (RkTranscript  *self,
                                                     GError       **error);
gboolean           rk_transcript_has_unsaved        (RkTranscript  *self);

/* Entries, in order (also through GListModel). */
guint              rk_transcript_get_n_entries      (RkTranscript  *self);
RkTranscriptEntry *rk_transcript_get_entry          (RkTranscript  *self,
                                                     guint          position);
RkTranscriptEntry *rk_transcript_lookup             (RkTranscript  *self,
                                                     guint          id);
void               rk_transcript_clear              (RkTranscript  *self);

/* Each add returns the new entry's id (> 0), or 0 if it was refused (a bad
 * artifact path, the transcript full). Texts that are not valid UTF-8 are
 * repaired. */
guint              rk_transcript_add_user           (RkTranscript       *self,
                                                     const char         *text,
                                                     const char * const *attachments);
guint              rk_transcript_add_assistant      (RkTranscript  *self,
                                                     const char    *text);
guint              rk_transcript_add_reasoning      (RkTranscript  *self,
                                                     const char    *text);
/* @revises: id of the code entry this code revises, or 0. */
guint              rk_transcript_add_code           (RkTranscript  *self,
                                                     const char    *cell_id,
                                                     const char    *code,
                                                     guint          revises);
/* @edited_code: the code as the user edited it (RK_DECISION_EDITED only). */
guint              rk_transcript_add_approval       (RkTranscript  *self,
                                                     const char    *cell_id,
                                                     RkDecision     decision,
                                                     const char    *edited_code);
/* Consecutive output of one stream of one cell goes into one entry: the
 * entry's text grows in place and notifies "text" on the entry; the
 * transcript emits no items-changed for it (autosave still follows). */
guint              rk_transcript_add_stream         (RkTranscript  *self,
                                                     const char    *cell_id,
                                                     RkStream       stream,
                                                     const char    *text);
guint              rk_transcript_add_result         (RkTranscript  *self,
                                                     const char    *cell_id,
                                                     const char    *text);
guint              rk_transcript_add_artifact       (RkTranscript               *self,
                                                     const char                 *cell_id,
                                                     const RkTranscriptArtifact *artifact);
/* An error of a cell. When it stands for a sandbox limit, @limit and
 * @limit_value are the kernel event's (RkKernelEvent.limit, .limit_value);
 * RK_SANDBOX_LIMIT_NONE and 0 for none (then the error's name may still
 * say it: rk_sandbox_limit_from_error). */
guint              rk_transcript_add_error          (RkTranscript  *self,
                                                     const char    *cell_id,
                                                     const char    *error_name,
                                                     const char    *message,
                                                     const char    *traceback,
                                                     RkSandboxLimit limit,
                                                     guint64        limit_value);
guint              rk_transcript_add_answer         (RkTranscript  *self,
                                                     const char    *text);
/* @note_kind: e.g. "session-expired", "kernel-restarted", "cancelled". */
guint              rk_transcript_add_note           (RkTranscript  *self,
                                                     const char    *note_kind,
                                                     const char    *text);
/* A file the user added to the conversation: @name is its name in the
 * workspace, @original_name the base name it had (shown to the user). */
guint              rk_transcript_add_attachment     (RkTranscript  *self,
                                                     const char    *name,
                                                     const char    *original_name);
/* Stores the profile of attachment entry @id (the profiler's JSON for that
 * file, RkFileProfile.raw_json; at most RK_TRANSCRIPT_MAX_OUTPUT bytes), so
 * a restored conversation can show its card. Notifies "detail" on the
 * entry. FALSE if @id is not an attachment or the JSON is too large. */
gboolean           rk_transcript_set_attachment_profile (RkTranscript *self,
                                                     guint          id,
                                                     const char    *profile_json);
/* Stores what the model was sent for question (user entry) @id: a record
 * of rk_sent_record_add_request(), at most RK_TRANSCRIPT_MAX_OUTPUT bytes,
 * kept as the entry's detail so it survives a reopen. Notifies "detail".
 * FALSE if @id is not a question or the record is too large. */
gboolean           rk_transcript_set_sent_record    (RkTranscript  *self,
                                                     guint          id,
                                                     const char    *record);
/* Takes attachment entry @id out of the transcript (a file removed from
 * the conversation); FALSE if @id is not an attachment. */
gboolean           rk_transcript_remove_attachment  (RkTranscript  *self,
                                                     guint          id);
/* Streaming: appends to the text of an assistant, reasoning or answer
 * entry, in place (amortized O(delta)); notifies "text" on the entry and
 * emits no items-changed. */
gboolean           rk_transcript_append_text        (RkTranscript  *self,
                                                     guint          id,
                                                     const char    *delta);

/* The code that actually ran, in order, for replaying a session after its
 * workspace expired: for each code entry approved (or run automatically) its
 * code, the edited code if edited; skipped code is left out.
 * Returns: (element-type utf8) */
GPtrArray         *rk_transcript_get_run_code       (RkTranscript  *self);
/* The same up to the cell @cell_id: the code that ran before it and
 * succeeded (a cell that failed as it ran is left out), and in @cell_code
 * its own (NULL if it did not run). */
GPtrArray         *rk_transcript_get_run_code_before (RkTranscript *self,
                                                      const char   *cell_id,
                                                      char        **cell_code);

/* The same cells as rk_transcript_get_run_code, each with its number among
 * the cells that ran (1-based, as the provenance counts them) and, when it
 * failed as it ran, the error it gave ("NameError: x"): a restart replays
 * the ones that succeeded and says why it skipped the others. */
typedef struct
{
  char  *cell_id;
  char  *code;
  guint  number;
  char  *failure;   /* NULL when the cell succeeded */
} RkRunCell;

void               rk_run_cell_free                 (RkRunCell     *cell);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RkRunCell, rk_run_cell_free)
/* Returns: (element-type RkRunCell) */
GPtrArray         *rk_transcript_get_run_cells      (RkTranscript  *self);

/* The whole first line of the first question, or NULL before one: the
 * title of an export (a conversation's title is cut for lists). */
char              *rk_transcript_dup_title          (RkTranscript  *self);
/* TRUE when @entry is an answer that repeats, word for word, the prose
 * streamed just before it (the agent records the final answer it has just
 * streamed): shown once, not twice. */
gboolean           rk_transcript_answer_repeats     (RkTranscript      *self,
                                                     RkTranscriptEntry *entry);

/* Exports (rk-transcript-export.c). @workspace is the session's folder, from
 * which tables, figures and charts are embedded (regular files beneath it
 * only, size-capped); NULL embeds none. Each table, figure and chart that
 * could not be embedded adds one line naming it to @not_embedded (a
 * GPtrArray of strings, freed with g_free), when given. The HTML report's
 * @title: NULL takes rk_transcript_dup_title(). */
char              *rk_transcript_to_notebook        (RkTranscript  *self,
                                                     RkWorkspace   *workspace,
                                                     GPtrArray     *not_embedded,
                                                     GError       **error);
char              *rk_transcript_to_html            (RkTranscript  *self,
                                                     RkWorkspace   *workspace,
                                                     const char    *title,
                                                     GPtrArray     *not_embedded,
                                                     GError       **error);

/* Where the files an export of the transcript saved at @transcript_path
 * embeds are kept outside a session (`reckon-cli ask --transcript` writes
 * them with rk_session_keep_results, `reckon-cli export` reads them): the
 * path with ".results" appended, laid out as the workspace was. */
char              *rk_transcript_results_folder     (const char    *transcript_path);

G_END_DECLS
