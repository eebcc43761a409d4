/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-markdown-private.h — what rk-markdown.c and rk-markdown-tool-calls.c
 * share. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* @len bytes of @p as valid UTF-8 without NUL bytes, for everything
 * handed out. */
char     *_rk_markdown_clean_text    (const char *p,
                                      gsize       len);
/* TRUE when @s holds only whitespace (as Python counts it). */
gboolean  _rk_markdown_is_only_blank (const char *s);

G_END_DECLS
