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
};

RkTranscriptEntry *_rk_transcript_entry_new (RkEntryKind kind);

G_END_DECLS
