/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-profile-progress.h — the profiler's progress lines on its stderr
 * ("reckon-progress INDEX DONE TOTAL"), parsed strictly: outside bytes. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Longest progress line accepted (without its newline); longer lines are
 * kept as ordinary stderr. */
#define RK_PROFILE_PROGRESS_MAX_LINE 80
/* Largest byte count accepted: 15 decimal digits. */
#define RK_PROFILE_PROGRESS_MAX_BYTES G_GUINT64_CONSTANT (999999999999999)

/* Parses one line (@len bytes, no newline): exactly "reckon-progress",
 * then three numbers each after one space, decimal digits only (no sign,
 * no leading zero, at most 15 digits), INDEX < @n_files, 0 < TOTAL and
 * DONE <= TOTAL. Nothing else on the line. FALSE for anything else. */
gboolean rk_profile_progress_parse (const char *line,
                                    gsize       len,
                                    guint       n_files,
                                    guint      *index,
                                    guint64    *done,
                                    guint64    *total);

typedef void (*RkProfileProgressLineFunc) (guint    index,
                                           guint64  done,
                                           guint64  total,
                                           gpointer user_data);

/* Splits a stream of stderr bytes into lines: progress lines go to @func,
 * every other byte to @rest (at most @rest_cap bytes are kept). */
typedef struct
{
  char                      line[RK_PROFILE_PROGRESS_MAX_LINE + 1];
  gsize                     len;
  gboolean                  overlong;  /* the current line is not a progress line */
  guint                     n_files;
  GByteArray               *rest;
  gsize                     rest_cap;
  RkProfileProgressLineFunc func;
  gpointer                  user_data;
} RkProfileProgressReader;

void rk_profile_progress_reader_init   (RkProfileProgressReader   *reader,
                                        guint                      n_files,
                                        GByteArray                *rest,
                                        gsize                      rest_cap,
                                        RkProfileProgressLineFunc  func,
                                        gpointer                   user_data);
void rk_profile_progress_reader_feed   (RkProfileProgressReader   *reader,
                                        const guint8              *data,
                                        gsize                      len);
/* At the end of the stream: a last line without a newline is kept as
 * ordinary stderr (a progress line always ends with one). */
void rk_profile_progress_reader_finish (RkProfileProgressReader   *reader);

G_END_DECLS
