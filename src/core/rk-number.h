/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-number.h — how a computed float is shown to people in a table cell:
 * rounded to what can be read at a glance, in the locale's notation. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Most decimals a float cell shows, for |value| >= 1; smaller values keep
 * this many significant digits instead. */
#define RK_NUMBER_DISPLAY_DIGITS 6

/* @c_text is the value as the kernel wrote it (C locale, shortest form that
 * reads back exactly, e.g. "68.08906523809524" or "1e-07"); @value the same
 * number. Returns the text to show: at most RK_NUMBER_DISPLAY_DIGITS
 * decimals (or significant digits, below 1), never more decimals than
 * @c_text has, never fewer integer digits; the locale's decimal point, and
 * its thousands separator when @group. Exponent forms keep six significant
 * digits; infinities and NaN their C text, with the locale's decimal
 * point. Sets *@rounded (if
 * not NULL) when the text shows less than @c_text says. */
char *rk_number_format_float (const char *c_text,
                              double      value,
                              gboolean    group,
                              gboolean   *rounded);

G_END_DECLS
