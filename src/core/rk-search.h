/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-search.h — finding words in a transcript, case-insensitively: which
 * entries hold them, the next one either way, and where in a text. */
#pragma once

#include <gio/gio.h>

#include "rk-transcript-entry.h"

G_BEGIN_DECLS

/* What is searched for, case-folded; NULL for NULL or "". */
char     *rk_search_fold          (const char        *text);
/* Whether @entry's text, title or name holds @needle (case-folded). */
gboolean  rk_search_entry_matches (RkTranscriptEntry *entry,
                                   const char        *needle);
/* The first entry of @entries (RkTranscriptEntry) from @from, going by
 * @step (1 or -1) and around the end, that holds @needle; G_MAXUINT when
 * none does or @needle is NULL. */
guint     rk_search_next          (GListModel        *entries,
                                   const char        *needle,
                                   guint              from,
                                   int                step);
/* How many entries hold @needle; @index: which of them, from 1, is
 * @current (0 when @current is G_MAXUINT). */
guint     rk_search_count         (GListModel        *entries,
                                   const char        *needle,
                                   guint              current,
                                   guint             *index);
/* Where @needle first stands in @text, in characters [*start, *end).
 * Case folding keeps the number of characters of most text; where it does
 * not, the whole text is given (*end -1) rather than the wrong words. */
gboolean  rk_search_in_text       (const char        *text,
                                   const char        *needle,
                                   int               *start,
                                   int               *end);

G_END_DECLS
