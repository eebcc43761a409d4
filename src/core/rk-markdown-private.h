/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-markdown-private.h — what rk-markdown.c shares with
 * rk-markdown-tool-calls.c and the transcript's HTML export. */
#pragma once

#include <glib.h>

#ifdef RK_HAVE_CMARK_GFM
#include <cmark-gfm.h>
#endif

G_BEGIN_DECLS

/* @len bytes of @p as valid UTF-8 without NUL bytes, for everything
 * handed out. */
char     *_rk_markdown_clean_text    (const char *p,
                                      gsize       len);
/* TRUE when @s holds only whitespace (as Python counts it). */
gboolean  _rk_markdown_is_only_blank (const char *s);

#ifdef RK_HAVE_CMARK_GFM
/* A cmark-gfm parser with the GitHub extensions Reckon renders (tables,
 * strikethrough, autolinks, task lists); free with cmark_parser_free(). */
cmark_parser *_rk_markdown_parser_new (void);
#endif

G_END_DECLS
