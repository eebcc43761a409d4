/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-text.h — making text from the sandbox or a model safe to show: no
 * terminal escape sequences, no control characters, no bidi overrides. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  RK_TEXT_SANITIZE_DEFAULT     = 0,
  /* A title or a file name: newlines and tabs become spaces too. */
  RK_TEXT_SANITIZE_SINGLE_LINE = 1 << 0,
} RkTextSanitizeFlags;

/* A copy of @text (any bytes; invalid UTF-8 is repaired) that a terminal or
 * a label shows as the plain text it is:
 *  - escape sequences (CSI "ESC [", OSC "ESC ]" up to BEL or ST, DCS, SOS,
 *    PM and APC up to ST, and two-byte ESC sequences) are removed whole;
 *  - other C0 controls and DEL are shown as their control pictures (␇, ␈,
 *    ␡); "\r\n" becomes "\n" and a lone "\r" a newline, so no line can be
 *    overwritten; "\n" and "\t" stay (unless RK_TEXT_SANITIZE_SINGLE_LINE);
 *  - C1 controls (U+0080–U+009F) become U+FFFD;
 *  - the bidi embeddings, overrides and isolates (U+202A–U+202E,
 *    U+2066–U+2069) are removed, so text cannot be shown reordered.
 * NULL gives NULL. */
char       *rk_text_sanitize_for_terminal (const char          *text,
                                           RkTextSanitizeFlags  flags);

/* TRUE if @text would come back from rk_text_sanitize_for_terminal
 * unchanged (with RK_TEXT_SANITIZE_DEFAULT). */
gboolean    rk_text_is_terminal_safe      (const char          *text);

/* The first line of @text, valid UTF-8, blanks trimmed; NULL when it is
 * empty. */
char       *rk_text_first_line            (const char          *text);

G_END_DECLS
