/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-number.c — float cells for people: a statistic such as
 * 15.491933384829668 shows as 15.491933, as pandas and spreadsheets show
 * it; the exact value stays in the table (copy, export, traced numbers). */
#include "config.h"
#include "rk-number.h"

#include <locale.h>
#include <math.h>
#include <string.h>

static char *
with_locale_point (const char *c_text)
{
  const char *point = localeconv ()->decimal_point;
  GString *s = g_string_new (c_text);

  if (point != NULL && strcmp (point, ".") != 0)
    g_string_replace (s, ".", point, 1);
  return g_string_free (s, FALSE);
}

char *
rk_number_format_float (const char *c_text,
                        double      value,
                        gboolean    group,
                        gboolean   *rounded)
{
  const char *dot;
  int decimals = 0, shown;

  if (rounded != NULL)
    *rounded = FALSE;
  if (c_text == NULL)
    return NULL;
  if (!isfinite (value))
    return with_locale_point (c_text);
  if (strpbrk (c_text, "eE") != NULL)
    {
      /* 1.2345678901e-05 keeps six significant digits: 1.23457e-05 */
      const char *point = strchr (c_text, '.');
      int mantissa = point != NULL ? (int) strspn (point + 1, "0123456789") : 0;
      g_autofree char *text = NULL;

      if (mantissa <= RK_NUMBER_DISPLAY_DIGITS - 1)
        return with_locale_point (c_text);
      if (rounded != NULL)
        *rounded = TRUE;
      text = g_strdup_printf ("%.*e", RK_NUMBER_DISPLAY_DIGITS - 1, value);
      return with_locale_point (text);
    }

  dot = strchr (c_text, '.');
  if (dot != NULL)
    decimals = (int) strspn (dot + 1, "0123456789");

  shown = RK_NUMBER_DISPLAY_DIGITS;
  if (value != 0 && fabs (value) < 1)
    {
      /* 0.000012345678 keeps six significant digits: 0.0000123457 */
      int leading_zeros = (int) -floor (log10 (fabs (value))) - 1;

      shown = MIN (leading_zeros + RK_NUMBER_DISPLAY_DIGITS, 20);
    }
  if (decimals > shown)
    {
      decimals = shown;
      if (rounded != NULL)
        *rounded = TRUE;
    }
  return group ? g_strdup_printf ("%'.*f", decimals, value)
               : g_strdup_printf ("%.*f", decimals, value);
}
