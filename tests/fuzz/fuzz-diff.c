/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz-diff.c — rk-diff on two halves of the input: the edit script must
 * rebuild the new text, and the unified output must patch old into new. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rk-diff.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

typedef struct
{
  const char *ptr;
  gsize       len;
  gboolean    nl;
} Line;

static void
check (gboolean ok)
{
  if (!ok)
    abort ();
}

static GArray *
split (const char *p, gsize n)
{
  GArray *lines = g_array_new (FALSE, FALSE, sizeof (Line));
  gsize pos = 0;

  while (pos < n)
    {
      const char *nl = memchr (p + pos, '\n', n - pos);
      Line l = { p + pos, (nl ? (gsize) (nl - p) : n) - pos, nl != NULL };
      g_array_append_val (lines, l);
      pos += l.len + (nl ? 1 : 0);
    }
  return lines;
}

/* A strict applier of unified output, independent of rk-diff's own splitting. */
static GString *
apply_unified (const char *old, gsize old_len, const char *u, gsize u_len)
{
  g_autoptr(GArray) ol = split (old, old_len);
  g_autoptr(GArray) ul = split (u, u_len);
  GString *out = g_string_new (NULL);
  guint oi = 0;
  char last = 0;

  for (guint k = 2; k < ul->len; k++)
    {
      Line *l = &g_array_index (ul, Line, k);

      check (l->nl && l->len > 0);
      if (l->ptr[0] == '@')
        {
          g_autofree char *hdr = g_strndup (l->ptr, l->len);
          unsigned a = 0, b = 1, c = 0, d = 1, start;

          if (sscanf (hdr, "@@ -%u,%u +%u,%u @@", &a, &b, &c, &d) != 4 &&
              sscanf (hdr, "@@ -%u +%u,%u @@", &a, &c, &d) != 3 &&
              sscanf (hdr, "@@ -%u,%u +%u @@", &a, &b, &c) != 3 &&
              sscanf (hdr, "@@ -%u +%u @@", &a, &c) != 2)
            abort ();
          start = b == 0 ? a : a - 1;
          check (start >= oi && start <= ol->len);
          for (; oi < start; oi++)
            {
              Line *o = &g_array_index (ol, Line, oi);
              g_string_append_len (out, o->ptr, o->len);
              if (o->nl)
                g_string_append_c (out, '\n');
            }
          last = 0;
        }
      else if (l->ptr[0] == '\\')
        {
          check (last != 0);
          if (last == '+')
            {
              check (out->len > 0 && out->str[out->len - 1] == '\n');
              g_string_truncate (out, out->len - 1);
            }
          else
            check (!g_array_index (ol, Line, oi - 1).nl);
        }
      else if (l->ptr[0] == ' ' || l->ptr[0] == '-')
        {
          Line *o;

          check (oi < ol->len);
          o = &g_array_index (ol, Line, oi++);
          check (o->len == l->len - 1 && memcmp (o->ptr, l->ptr + 1, o->len) == 0);
          if (l->ptr[0] == ' ')
            {
              g_string_append_len (out, o->ptr, o->len);
              if (o->nl)
                g_string_append_c (out, '\n');
            }
          last = l->ptr[0];
        }
      else
        {
          check (l->ptr[0] == '+');
          g_string_append_len (out, l->ptr + 1, l->len - 1);
          g_string_append_c (out, '\n');
          last = '+';
        }
    }
  for (; oi < ol->len; oi++)
    {
      Line *o = &g_array_index (ol, Line, oi);
      g_string_append_len (out, o->ptr, o->len);
      if (o->nl)
        g_string_append_c (out, '\n');
    }
  return out;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *a, *b;
  gsize alen, blen;
  g_autoptr(RkDiff) diff = NULL;
  g_autoptr(GString) rebuilt = g_string_new (NULL);
  g_autoptr(GString) u = NULL;
  g_autoptr(GString) patched = NULL;
  g_autoptr(GArray) hunks = NULL;
  const RkDiffEdit *e;
  guint n, oi = 0, ni = 0;
  guint context;

  /* Large inputs are the unit tests' job (5,000 lines, 1 MB lines); here
   * many small ones. */
  if (size < 1 || size > (1 << 14))
    return 0;
  /* First byte: context; the rest is split at a 0xff byte if any, else in half. */
  context = data[0] % 6;
  data++, size--;
  {
    const uint8_t *sep = memchr (data, 0xff, size);
    gsize cut = sep ? (gsize) (sep - data) : size / 2;
    a = (const char *) data;
    alen = cut;
    b = (const char *) data + cut + (sep ? 1 : 0);
    blen = size - cut - (sep ? 1 : 0);
  }

  diff = rk_diff_new (a, alen, b, blen);
  e = rk_diff_get_edits (diff, &n);
  for (guint k = 0; k < n; k++)
    {
      check (e[k].len > 0 && e[k].old_start == oi && e[k].new_start == ni);
      check (k == 0 || e[k].op != e[k - 1].op);
      for (guint l = 0; l < e[k].len && e[k].op != RK_DIFF_DELETE; l++)
        {
          gsize len;
          gboolean nl;
          const char *line = rk_diff_get_new_line (diff, ni + l, &len, &nl);
          g_string_append_len (rebuilt, line, len);
          if (nl)
            g_string_append_c (rebuilt, '\n');
        }
      if (e[k].op != RK_DIFF_INSERT)
        oi += e[k].len;
      if (e[k].op != RK_DIFF_DELETE)
        ni += e[k].len;
    }
  check (oi == rk_diff_get_n_old_lines (diff) && ni == rk_diff_get_n_new_lines (diff));
  check (rebuilt->len == blen && memcmp (rebuilt->str, b, blen) == 0);

  hunks = rk_diff_get_hunks (diff, context);
  for (guint k = 0; k < hunks->len; k++)
    {
      RkDiffHunk *h = &g_array_index (hunks, RkDiffHunk, k);
      check (h->first_edit + h->n_edits <= n && h->n_edits > 0);
      check (h->old_start + h->old_len <= rk_diff_get_n_old_lines (diff));
      check (h->new_start + h->new_len <= rk_diff_get_n_new_lines (diff));
    }

  u = rk_diff_format_unified (diff, "a", "b", context);
  check ((u->len == 0) == rk_diff_is_identical (diff));
  patched = apply_unified (a, alen, u->str, u->len);
  check (patched->len == blen && memcmp (patched->str, b, blen) == 0);
  return 0;
}
