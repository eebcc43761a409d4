/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-diff.h — line diff (Myers, linear space) for code revisions, with the
 * edit script for the GUI and GNU-compatible unified output. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  RK_DIFF_EQUAL,
  RK_DIFF_DELETE,
  RK_DIFF_INSERT,
} RkDiffOp;

/* One run of the edit script. Line indices are 0-based. An EQUAL run covers
 * old[old_start, old_start+len) == new[new_start, new_start+len); a DELETE
 * run removes old[old_start, +len) (new_start is where it happens in new);
 * an INSERT run adds new[new_start, +len) (old_start is where in old). */
typedef struct
{
  RkDiffOp op;
  guint    old_start;
  guint    new_start;
  guint    len;
} RkDiffEdit;

/* A unified-diff hunk: 0-based starts and line counts in each file, and the
 * range of edits (into rk_diff_get_edits()) it shows, context included. */
typedef struct
{
  guint old_start;
  guint old_len;
  guint new_start;
  guint new_len;
  guint first_edit;
  guint n_edits;
} RkDiffHunk;

typedef struct _RkDiff RkDiff;

/* Lines end at '\n'; a last line without one differs from the same line
 * with one, as in GNU diff. Any bytes (CR, NUL, invalid UTF-8) are allowed.
 * A length of -1 means NUL-terminated. Never fails. */
RkDiff            *rk_diff_new               (const char  *old_text,
                                              gssize       old_len,
                                              const char  *new_text,
                                              gssize       new_len);
RkDiff            *rk_diff_ref               (RkDiff      *self);
void               rk_diff_unref             (RkDiff      *self);

/* The edit script: alternating runs, never two adjacent runs of one op,
 * deletions before insertions in each change. */
const RkDiffEdit  *rk_diff_get_edits         (RkDiff      *self,
                                              guint       *n_edits);
/* Hunks with @context lines of context, grouped as GNU diff groups them. */
GArray            *rk_diff_get_hunks         (RkDiff      *self,
                                              guint        context);

guint              rk_diff_get_n_old_lines   (RkDiff      *self);
guint              rk_diff_get_n_new_lines   (RkDiff      *self);
/* The bytes of a line, without its '\n'; @has_newline says whether it had one. */
const char        *rk_diff_get_old_line      (RkDiff      *self,
                                              guint        index,
                                              gsize       *len,
                                              gboolean    *has_newline);
const char        *rk_diff_get_new_line      (RkDiff      *self,
                                              guint        index,
                                              gsize       *len,
                                              gboolean    *has_newline);
gboolean           rk_diff_is_identical      (RkDiff      *self);
guint              rk_diff_get_n_deleted     (RkDiff      *self);
guint              rk_diff_get_n_inserted    (RkDiff      *self);

/* Unified format of @self, as `diff -u --label OLD --label NEW` (with -U
 * @context) prints it; "" when the inputs are identical. */
GString           *rk_diff_format_unified    (RkDiff      *self,
                                              const char  *old_label,
                                              const char  *new_label,
                                              guint        context);

/* Shortcut: diff two NUL-terminated texts and format them. */
char              *rk_diff_unified           (const char  *old_text,
                                              const char  *new_text,
                                              const char  *old_label,
                                              const char  *new_label,
                                              guint        context);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RkDiff, rk_diff_unref)

G_END_DECLS
