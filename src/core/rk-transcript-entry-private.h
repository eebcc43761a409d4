/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-transcript-entry-private.h — the fields of an entry, for RkTranscript. */
#pragma once

#include "rk-transcript-entry.h"

G_BEGIN_DECLS

struct _RkTranscriptEntry
{
  GObject      parent_instance;

  guint        id;
  RkEntryKind  kind;
  gint64       timestamp;
  char        *cell_id;
  char        *text;
  char        *name;
  char        *detail;
  RkSandboxLimit limit;
  gint64       limit_value;
  char       **attachments;
  guint        revises;
  char        *previous_code;
  RkDecision   decision;
  RkStream     stream;
  gboolean     truncated;
  char        *path;
  char        *mime_type;
  char        *title;
  gint64       width;
  gint64       height;
  gint64       rows;
  gint64       columns;

  /* Growth of @text in place while it streams: its length and allocated
   * size, valid while text == text_grown (anything that replaces text
   * makes them stale, and the next append measures again). */
  const char  *text_grown;
  gsize        text_len;
  gsize        text_alloc;
};

RkTranscriptEntry *_rk_transcript_entry_new         (RkEntryKind        kind);
/* Appends @delta (valid UTF-8 already) to the text, cutting the whole at
 * @max bytes on a character boundary (then sets truncated); amortized
 * O(len(delta)). Notifies "text". Returns FALSE if nothing was added. */
gboolean           _rk_transcript_entry_append_text (RkTranscriptEntry *self,
                                                     const char        *delta,
                                                     gsize              max);
/* Replaces the name (an attachment's file, when the workspace gave it
 * another name than foreseen). */
void               _rk_transcript_entry_set_name    (RkTranscriptEntry *self,
                                                     const char        *name);
/* Replaces the detail (e.g. an attachment's profile) and notifies "detail". */
void               _rk_transcript_entry_set_detail  (RkTranscriptEntry *self,
                                                     char              *detail);

G_END_DECLS
