/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-number.c — float cells as people see them. */
#include "config.h"

#include <locale.h>
#include <math.h>
#include <stdlib.h>

#include "rk-number.h"

static void
check (const char *c_text,
       gboolean    group,
       const char *want,
       gboolean    want_rounded)
{
  gboolean rounded = !want_rounded;
  g_autofree char *got = rk_number_format_float (c_text, g_ascii_strtod (c_text, NULL), group, &rounded);

  g_assert_cmpstr (got, ==, want);
  g_assert_cmpint (rounded, ==, want_rounded);
}

static void
test_c_locale (void)
{
  setlocale (LC_ALL, "C");
  check ("15.491933384829668", FALSE, "15.491933", TRUE);
  check ("68.08906523809524", FALSE, "68.089065", TRUE);
  check ("391.0", FALSE, "391.0", FALSE);
  check ("2.5", FALSE, "2.5", FALSE);
  check ("-7.25", FALSE, "-7.25", FALSE);
  check ("1234567.891", FALSE, "1234567.891", FALSE);        /* integer digits are never cut */
  check ("0.10019782930012", FALSE, "0.100198", TRUE);
  check ("0.000012345678901", FALSE, "0.0000123457", TRUE);   /* six significant digits */
  check ("-0.000012345678901", FALSE, "-0.0000123457", TRUE);
  check ("0.0", FALSE, "0.0", FALSE);
  check ("1e-07", FALSE, "1e-07", FALSE);
  check ("1.2345678901e-05", FALSE, "1.23457e-05", TRUE);
  check ("-9.87654321e+25", FALSE, "-9.87654e+25", TRUE);
  check ("1.5e+20", FALSE, "1.5e+20", FALSE);
  check ("inf", FALSE, "inf", FALSE);
  check ("nan", FALSE, "nan", FALSE);
  check ("3", FALSE, "3", FALSE);
  /* a denormal: never more than 20 decimals */
  check ("0.00000000000000000000000001234", FALSE, "0.00000000000000000000", TRUE);
}

static void
test_locales (void)
{
  if (setlocale (LC_ALL, "de_DE.UTF-8") == NULL)
    {
      g_test_skip ("the de_DE.UTF-8 locale is not installed");
      return;
    }
  check ("1234567.891234", TRUE, "1.234.567,891234", FALSE);
  check ("15.491933384829668", TRUE, "15,491933", TRUE);
  check ("1.5e+20", TRUE, "1,5e+20", FALSE);
  check ("1.2345678901e-05", TRUE, "1,23457e-05", TRUE);
  setlocale (LC_ALL, "C");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rk/number/c-locale", test_c_locale);
  g_test_add_func ("/rk/number/locales", test_locales);
  return g_test_run ();
}
