/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-profile-private.h — reading the profiler's stdout (rk-profile-output.c):
 * a big CSV's partial profile lines (with --partial), then the final
 * document; outside bytes. */
#pragma once

#include "rk-line-splitter.h"
#include "rk-profile.h"

G_BEGIN_DECLS

/* A partial line begins exactly with this, then INDEX (1 to 6 digits, no
 * leading zero) and ", " — anything else is the final document. */
#define RK_PROFILE_PARTIAL_PREFIX "{\"version\": 1, \"partial\": true, \"index\": "

/* @profile (transfer full): file @index's profile from its sample. */
typedef void (*RkProfilePartialLineFunc) (guint          index,
                                          RkFileProfile *profile,
                                          gpointer       user_data);

/* Splits stdout into lines. A partial line is parsed with
 * rk_profile_parse() and handed to @func when it holds exactly one file
 * profile without an error, its INDEX is below @n_files and it is the
 * first partial line for that file (only one is ever parsed, so a hostile
 * profiler cannot make the host parse more than @n_files of them);
 * otherwise it is ignored (one g_debug). The first
 * other line is the final document, kept in @final; every line after it
 * is ignored. Each line is at most @cap bytes; a CR before its LF is
 * dropped (the line splitter's framing). */
typedef struct
{
  RkLineSplitter           *lines;
  GByteArray               *final;
  guint                     n_files;
  guint8                   *seen;       /* one partial per file */
  gboolean                  have_final;
  RkProfilePartialLineFunc  func;
  gpointer                  user_data;
} RkProfileOutputReader;

void     _rk_profile_output_reader_init   (RkProfileOutputReader    *reader,
                                           guint                     n_files,
                                           GByteArray               *final,
                                           gsize                     cap,
                                           RkProfilePartialLineFunc  func,
                                           gpointer                  user_data);
/* FALSE when a line went over the cap (the caller stops reading). */
gboolean _rk_profile_output_reader_feed   (RkProfileOutputReader    *reader,
                                           const guint8             *data,
                                           gsize                     len);
/* At the end of the stream: a last line without a newline counts too. */
void     _rk_profile_output_reader_finish (RkProfileOutputReader    *reader);
void     _rk_profile_output_reader_clear  (RkProfileOutputReader    *reader);

G_END_DECLS
