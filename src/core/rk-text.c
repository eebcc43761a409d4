/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-text.c — one sanitiser for text that came from the sandbox or a model,
 * used by the CLI before printing and by the window for titles and names. */
#define G_LOG_DOMAIN "rk-text"
#include "config.h"
#include "rk-text.h"

#include <string.h>

#define ESC 0x1b
#define BEL 0x07

/* @p points at ESC: returns the first byte after the whole sequence. A
 * string sequence with no terminator runs to the end, as it would in a
 * terminal. */
static const char *
skip_escape (const char *p)
{
  const char *q = p + 1;

  switch (*q)
    {
    case '\0':
      return q;

    case '[':   /* CSI: parameters, intermediates, one final byte */
      q++;
      while (*q >= 0x30 && *q <= 0x3f)
        q++;
      while (*q >= 0x20 && *q <= 0x2f)
        q++;
      if (*q >= 0x40 && *q <= 0x7e)
        q++;
      return q;

    case ']':   /* OSC: up to BEL or ST */
    case 'P':   /* DCS, SOS, PM, APC: up to ST */
    case 'X':
    case '^':
    case '_':
      {
        gboolean osc = *q == ']';

        for (q++; *q != '\0'; q++)
          {
            if (osc && *q == BEL)
              return q + 1;
            if (*q == ESC && q[1] == '\\')
              return q + 2;
          }
        return q;
      }

    default:    /* ESC, intermediates, one final byte ("ESC ( B", "ESC c") */
      while (*q >= 0x20 && *q <= 0x2f)
        q++;
      if (*q >= 0x30 && *q <= 0x7e)
        q++;
      return q;
    }
}

static gboolean
is_bidi_control (gunichar u)
{
  return (u >= 0x202a && u <= 0x202e) || (u >= 0x2066 && u <= 0x2069);
}

char *
rk_text_sanitize_for_terminal (const char          *text,
                               RkTextSanitizeFlags  flags)
{
  gboolean single_line = (flags & RK_TEXT_SANITIZE_SINGLE_LINE) != 0;
  g_autofree char *valid = NULL;
  GString *out;
  const char *p;

  if (text == NULL)
    return NULL;
  valid = g_utf8_make_valid (text, -1);
  out = g_string_sized_new (strlen (valid));
  p = valid;
  while (*p != '\0')
    {
      guchar c = (guchar) *p;
      gunichar u;
      const char *next;

      if (c == ESC)
        {
          p = skip_escape (p);
          continue;
        }
      if (c == '\r')
        {
          /* "\r\n" is a newline; a lone "\r" must not overwrite the line. */
          if (p[1] != '\n')
            g_string_append_c (out, single_line ? ' ' : '\n');
          p++;
          continue;
        }
      if (c == '\n' || c == '\t')
        {
          g_string_append_c (out, single_line ? ' ' : (char) c);
          p++;
          continue;
        }
      if (c < 0x20)
        {
          g_string_append_unichar (out, 0x2400 + c);   /* ␀ … ␟ */
          p++;
          continue;
        }
      if (c == 0x7f)
        {
          g_string_append_unichar (out, 0x2421);       /* ␡ */
          p++;
          continue;
        }
      if (c < 0x80)
        {
          g_string_append_c (out, (char) c);
          p++;
          continue;
        }
      u = g_utf8_get_char (p);
      next = g_utf8_next_char (p);
      if (u <= 0x9f)
        g_string_append_unichar (out, 0xfffd);
      else if (!is_bidi_control (u))
        g_string_append_len (out, p, next - p);
      p = next;
    }
  return g_string_free (out, FALSE);
}

gboolean
rk_text_is_terminal_safe (const char *text)
{
  /* A scan, not a copy to compare: a markdown view asks it of streaming
   * text at every frame. */
  if (text == NULL)
    return TRUE;
  if (!g_utf8_validate (text, -1, NULL))
    return FALSE;
  for (const guchar *p = (const guchar *) text; *p; p++)
    {
      /* C0 controls (ESC and CR too) but tab and newline, DEL */
      if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f)
        return FALSE;
      /* C1 controls, U+0080–U+009F */
      if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
        return FALSE;
      /* the bidi controls, U+202A–U+202E and U+2066–U+2069 */
      if (p[0] == 0xe2 && ((p[1] == 0x80 && p[2] >= 0xaa && p[2] <= 0xae) ||
                           (p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9)))
        return FALSE;
    }
  return TRUE;
}

char *
rk_text_first_line (const char *text)
{
  g_autofree char *line = NULL;
  g_autofree char *valid = NULL;

  if (text == NULL)
    return NULL;
  line = g_strndup (text, strcspn (text, "\r\n"));
  valid = g_utf8_make_valid (line, -1);
  g_strstrip (valid);
  return *valid != '\0' ? g_steal_pointer (&valid) : NULL;
}
