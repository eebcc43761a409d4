/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-diff.c — Myers' O(ND) diff in linear space (divide and conquer on the
 * middle snake), on lines hashed to integers first, GNU-diff compatible. */
#define G_LOG_DOMAIN "rk-diff"
#include "config.h"

#include <string.h>

#include "rk-diff.h"

typedef struct
{
  const char *ptr;
  gsize       len;
  gboolean    nl;
} Line;

struct _RkDiff
{
  gatomicrefcount ref_count;
  char           *old_buf;
  char           *new_buf;
  Line           *old_lines;
  Line           *new_lines;
  guint           n_old;
  guint           n_new;
  guint8         *old_changed_base;
  guint8         *new_changed_base;
  guint8         *old_changed;  /* base + 1: [-1] and [n] are 0 sentinels */
  guint8         *new_changed;
  GArray         *edits;
  guint           n_deleted;
  guint           n_inserted;
};

/* Past this many edit steps in one middle-snake search the search settles for
 * the furthest-reaching diagonal (as GNU diff does): the diff may then be a
 * little longer than minimal, but time stays O(N * bound) on huge inputs. */
#define MIN_TOO_EXPENSIVE 4096

static guint
split_lines (const char *buf,
             gsize       len,
             Line      **out)
{
  guint n = 0, cap = 0;
  Line *lines = NULL;
  gsize pos = 0;

  while (pos < len)
    {
      const char *nl = memchr (buf + pos, '\n', len - pos);
      gsize end = nl ? (gsize) (nl - buf) : len;

      if (n == cap)
        {
          cap = cap ? cap * 2 : 64;
          lines = g_renew (Line, lines, cap);
        }
      lines[n].ptr = buf + pos;
      lines[n].len = end - pos;
      lines[n].nl = nl != NULL;
      n++;
      pos = nl ? end + 1 : len;
      if (n == G_MAXINT / 4)
        {
          /* Absurd line counts: the rest becomes one last line. */
          lines[n - 1].len = len - (gsize) (lines[n - 1].ptr - buf);
          lines[n - 1].nl = FALSE;
          break;
        }
    }
  *out = lines;
  return n;
}

static guint64
hash_line (const Line *l)
{
  /* FNV-1a over 8-byte words: fast on long lines, fine for equality buckets. */
  guint64 h = 0xcbf29ce484222325ull ^ l->len ^ ((guint64) l->nl << 63);
  gsize i = 0;

  for (; i + 8 <= l->len; i += 8)
    {
      guint64 w;
      memcpy (&w, l->ptr + i, 8);
      h = (h ^ w) * 0x100000001b3ull;
      h ^= h >> 29;
    }
  for (; i < l->len; i++)
    h = (h ^ (guchar) l->ptr[i]) * 0x100000001b3ull;
  return h ^ (h >> 32);
}

static inline gboolean
line_equal (const Line *a,
            const Line *b)
{
  return a->len == b->len && a->nl == b->nl && memcmp (a->ptr, b->ptr, a->len) == 0;
}

typedef struct
{
  guint64     hash;
  const Line *line;
  gint        id;
} Slot;

/* Gives every distinct line an integer id, so the diff compares ints. */
static gint
intern_lines (const Line *a, guint na, gint *ida,
              const Line *b, guint nb, gint *idb)
{
  gsize size = 16;
  Slot *table;
  gint next = 0;

  while (size < 2 * ((gsize) na + nb))
    size *= 2;
  table = g_new0 (Slot, size);

  for (guint side = 0; side < 2; side++)
    {
      const Line *lines = side ? b : a;
      gint *ids = side ? idb : ida;
      guint n = side ? nb : na;

      for (guint i = 0; i < n; i++)
        {
          guint64 h = hash_line (&lines[i]);
          gsize pos = h & (size - 1);

          for (;;)
            {
              Slot *s = &table[pos];
              if (s->line == NULL)
                {
                  s->hash = h;
                  s->line = &lines[i];
                  s->id = next++;
                  ids[i] = s->id;
                  break;
                }
              if (s->hash == h && line_equal (s->line, &lines[i]))
                {
                  ids[i] = s->id;
                  break;
                }
              pos = (pos + 1) & (size - 1);
            }
        }
    }
  g_free (table);
  return next;
}

typedef struct
{
  const gint *xv;
  const gint *yv;
  gssize     *fd;  /* forward diagonals, indexed -(m+1) .. n+1 */
  gssize     *bd;  /* backward diagonals */
  gssize      too_expensive;
  guint8     *xchanged;
  guint8     *ychanged;
} Ctx;

/* Finds where to split x[xoff,xlim) / y[yoff,ylim) (both non-empty, with no
 * common prefix or suffix): the middle of a shortest edit path, or, past the
 * cost bound, the best point reached so far. */
static void
find_split (Ctx    *c,
            gssize  xoff,
            gssize  xlim,
            gssize  yoff,
            gssize  ylim,
            gssize *xmid,
            gssize *ymid)
{
  const gint *xv = c->xv, *yv = c->yv;
  gssize *fd = c->fd, *bd = c->bd;
  gssize dmin = xoff - ylim, dmax = xlim - yoff;
  gssize fmid = xoff - yoff, bmid = xlim - ylim;
  gssize fmin = fmid, fmax = fmid, bmin = bmid, bmax = bmid;
  gboolean odd = (fmid - bmid) & 1;

  fd[fmid] = xoff;
  bd[bmid] = xlim;

  for (gssize cost = 1;; cost++)
    {
      if (fmin > dmin)
        fd[--fmin - 1] = -1;
      else
        ++fmin;
      if (fmax < dmax)
        fd[++fmax + 1] = -1;
      else
        --fmax;
      for (gssize d = fmax; d >= fmin; d -= 2)
        {
          gssize tlo = fd[d - 1], thi = fd[d + 1];
          gssize x = tlo >= thi ? tlo + 1 : thi;
          gssize y = x - d;

          while (x < xlim && y < ylim && xv[x] == yv[y])
            x++, y++;
          fd[d] = x;
          if (odd && bmin <= d && d <= bmax && bd[d] <= x)
            {
              *xmid = x;
              *ymid = y;
              return;
            }
        }

      if (bmin > dmin)
        bd[--bmin - 1] = G_MAXSSIZE;
      else
        ++bmin;
      if (bmax < dmax)
        bd[++bmax + 1] = G_MAXSSIZE;
      else
        --bmax;
      for (gssize d = bmax; d >= bmin; d -= 2)
        {
          gssize tlo = bd[d - 1], thi = bd[d + 1];
          gssize x = tlo < thi ? tlo : thi - 1;
          gssize y = x - d;

          while (x > xoff && y > yoff && xv[x - 1] == yv[y - 1])
            x--, y--;
          bd[d] = x;
          if (!odd && fmin <= d && d <= fmax && x <= fd[d])
            {
              *xmid = x;
              *ymid = y;
              return;
            }
        }

      if (cost >= c->too_expensive)
        {
          gssize fxybest = -1, fxbest = xoff, bxybest = G_MAXSSIZE, bxbest = xlim;

          for (gssize d = fmax; d >= fmin; d -= 2)
            {
              gssize x = MIN (fd[d], xlim), y = x - d;
              if (ylim < y)
                x = ylim + d, y = ylim;
              if (fxybest < x + y)
                fxybest = x + y, fxbest = x;
            }
          for (gssize d = bmax; d >= bmin; d -= 2)
            {
              gssize x = MAX (xoff, bd[d]), y = x - d;
              if (y < yoff)
                x = yoff + d, y = yoff;
              if (x + y < bxybest)
                bxybest = x + y, bxbest = x;
            }
          if ((xlim + ylim) - bxybest < fxybest - (xoff + yoff))
            {
              *xmid = fxbest;
              *ymid = fxybest - fxbest;
            }
          else
            {
              *xmid = bxbest;
              *ymid = bxybest - bxbest;
            }
          return;
        }
    }
}

typedef struct
{
  gssize xoff, xlim, yoff, ylim;
} Range;

static void
compare_seq (Ctx    *c,
             gssize  xoff,
             gssize  xlim,
             gssize  yoff,
             gssize  ylim)
{
  g_autoptr(GArray) stack = g_array_new (FALSE, FALSE, sizeof (Range));
  Range r = { xoff, xlim, yoff, ylim };

  g_array_append_val (stack, r);
  while (stack->len > 0)
    {
      r = g_array_index (stack, Range, stack->len - 1);
      g_array_set_size (stack, stack->len - 1);

      while (r.xoff < r.xlim && r.yoff < r.ylim && c->xv[r.xoff] == c->yv[r.yoff])
        r.xoff++, r.yoff++;
      while (r.xlim > r.xoff && r.ylim > r.yoff && c->xv[r.xlim - 1] == c->yv[r.ylim - 1])
        r.xlim--, r.ylim--;

      if (r.xoff == r.xlim)
        {
          for (gssize i = r.yoff; i < r.ylim; i++)
            c->ychanged[i] = 1;
        }
      else if (r.yoff == r.ylim)
        {
          for (gssize i = r.xoff; i < r.xlim; i++)
            c->xchanged[i] = 1;
        }
      else
        {
          gssize xmid, ymid;
          Range lo, hi;

          find_split (c, r.xoff, r.xlim, r.yoff, r.ylim, &xmid, &ymid);
          lo = (Range) { r.xoff, xmid, r.yoff, ymid };
          hi = (Range) { xmid, r.xlim, ymid, r.ylim };
          g_array_append_val (stack, hi);
          g_array_append_val (stack, lo);
        }
    }
}

/* GNU diff's shift_boundaries: slides each run of changed lines down as far
 * as equal lines allow, then back up to line up with a change in the other
 * file, so that ambiguous diffs come out as GNU diff prints them. @changed
 * and @other_changed have a zero sentinel at index -1 and at their end. */
static void
shift_boundaries (const gint *ids,
                  guint8     *changed,
                  gssize      i_end,
                  guint8     *other_changed)
{
  gssize i = 0, j = 0;

  for (;;)
    {
      gssize runlength, start, corresponding;

      while (i < i_end && !changed[i])
        {
          while (other_changed[j++])
            continue;
          i++;
        }
      if (i == i_end)
        break;

      start = i;
      while (changed[++i])
        continue;
      while (other_changed[j])
        j++;

      do
        {
          runlength = i - start;

          /* Back, while the previous unchanged line equals the last changed
           * one; this merges with previous changed runs. */
          while (start && ids[start - 1] == ids[i - 1])
            {
              changed[--start] = 1;
              changed[--i] = 0;
              while (changed[start - 1])
                start--;
              while (other_changed[--j])
                continue;
            }

          /* The end of the run at the last point where it lines up with a
           * changed run in the other file; i_end if there is none. */
          corresponding = other_changed[j - 1] ? i : i_end;

          /* Forward, while the first changed line equals the next unchanged
           * one; this merges with following changed runs. */
          while (i != i_end && ids[start] == ids[i])
            {
              changed[start++] = 0;
              changed[i++] = 1;
              while (changed[i])
                i++;
              while (other_changed[++j])
                corresponding = i;
            }
        }
      while (runlength != i - start);

      while (corresponding < i)
        {
          changed[--start] = 1;
          changed[--i] = 0;
          while (other_changed[--j])
            continue;
        }
    }
}

static void
build_script (RkDiff *self)
{
  guint i = 0, j = 0;

  self->edits = g_array_new (FALSE, FALSE, sizeof (RkDiffEdit));
  while (i < self->n_old || j < self->n_new)
    {
      RkDiffEdit e;

      e = (RkDiffEdit) { RK_DIFF_EQUAL, i, j, 0 };
      while (i < self->n_old && j < self->n_new && !self->old_changed[i] && !self->new_changed[j])
        i++, j++, e.len++;
      if (e.len)
        g_array_append_val (self->edits, e);

      e = (RkDiffEdit) { RK_DIFF_DELETE, i, j, 0 };
      while (i < self->n_old && (self->old_changed[i] || j == self->n_new))
        self->old_changed[i++] = 1, e.len++;
      if (e.len)
        {
          g_array_append_val (self->edits, e);
          self->n_deleted += e.len;
        }

      e = (RkDiffEdit) { RK_DIFF_INSERT, i, j, 0 };
      while (j < self->n_new && (self->new_changed[j] || i == self->n_old))
        self->new_changed[j++] = 1, e.len++;
      if (e.len)
        {
          g_array_append_val (self->edits, e);
          self->n_inserted += e.len;
        }
    }
}

static void
compute (RkDiff *self)
{
  guint n = self->n_old, m = self->n_new;
  guint pre = 0, suf = 0;
  g_autofree gint *ida = g_new (gint, MAX (n, 1));
  g_autofree gint *idb = g_new (gint, MAX (m, 1));
  g_autofree gint *xv = NULL, *yv = NULL;
  g_autofree guint *xmap = NULL, *ymap = NULL;
  g_autofree guint8 *xch = NULL, *ych = NULL;
  g_autofree gboolean *in_a = NULL, *in_b = NULL;
  g_autofree gssize *diag = NULL;
  guint nx = 0, ny = 0;
  gint n_ids;
  Ctx c;

  self->old_changed_base = g_new0 (guint8, (gsize) n + 2);
  self->new_changed_base = g_new0 (guint8, (gsize) m + 2);
  self->old_changed = self->old_changed_base + 1;
  self->new_changed = self->new_changed_base + 1;

  n_ids = intern_lines (self->old_lines, n, ida, self->new_lines, m, idb);

  while (pre < n && pre < m && ida[pre] == idb[pre])
    pre++;
  while (suf < n - pre && suf < m - pre && ida[n - 1 - suf] == idb[m - 1 - suf])
    suf++;

  /* A line that never occurs in the other file cannot be matched: mark it
   * changed now and leave it out of the search (this keeps the diff minimal
   * and makes a full rewrite cost O(N)). */
  in_a = g_new0 (gboolean, n_ids + 1);
  in_b = g_new0 (gboolean, n_ids + 1);
  for (guint i = pre; i < n - suf; i++)
    in_a[ida[i]] = TRUE;
  for (guint i = pre; i < m - suf; i++)
    in_b[idb[i]] = TRUE;

  xv = g_new (gint, n - pre - suf + 1);
  yv = g_new (gint, m - pre - suf + 1);
  xmap = g_new (guint, n - pre - suf + 1);
  ymap = g_new (guint, m - pre - suf + 1);
  for (guint i = pre; i < n - suf; i++)
    {
      if (in_b[ida[i]])
        xmap[nx] = i, xv[nx++] = ida[i];
      else
        self->old_changed[i] = 1;
    }
  for (guint i = pre; i < m - suf; i++)
    {
      if (in_a[idb[i]])
        ymap[ny] = i, yv[ny++] = idb[i];
      else
        self->new_changed[i] = 1;
    }

  if (nx > 0 || ny > 0)
    {
      gssize diags = (gssize) nx + ny + 3;

      xch = g_new0 (guint8, nx + 1);
      ych = g_new0 (guint8, ny + 1);
      diag = g_new (gssize, 2 * diags);
      c.xv = xv;
      c.yv = yv;
      c.fd = diag + ny + 1;
      c.bd = diag + diags + ny + 1;
      c.xchanged = xch;
      c.ychanged = ych;
      c.too_expensive = 1;
      for (gssize d = diags; d != 0; d >>= 2)
        c.too_expensive <<= 1;
      c.too_expensive = MAX (MIN_TOO_EXPENSIVE, c.too_expensive);

      compare_seq (&c, 0, nx, 0, ny);

      for (guint i = 0; i < nx; i++)
        if (xch[i])
          self->old_changed[xmap[i]] = 1;
      for (guint i = 0; i < ny; i++)
        if (ych[i])
          self->new_changed[ymap[i]] = 1;
    }

  shift_boundaries (ida, self->old_changed, n, self->new_changed);
  shift_boundaries (idb, self->new_changed, m, self->old_changed);
  build_script (self);
}

RkDiff *
rk_diff_new (const char *old_text,
             gssize      old_len,
             const char *new_text,
             gssize      new_len)
{
  RkDiff *self = g_new0 (RkDiff, 1);

  if (old_text == NULL)
    old_text = "", old_len = 0;
  if (new_text == NULL)
    new_text = "", new_len = 0;
  if (old_len < 0)
    old_len = strlen (old_text);
  if (new_len < 0)
    new_len = strlen (new_text);

  g_atomic_ref_count_init (&self->ref_count);
  /* Copies with a NUL after them; the inputs need not have one. */
  self->old_buf = g_malloc (old_len + 1);
  memcpy (self->old_buf, old_text, old_len);
  self->old_buf[old_len] = '\0';
  self->new_buf = g_malloc (new_len + 1);
  memcpy (self->new_buf, new_text, new_len);
  self->new_buf[new_len] = '\0';
  self->n_old = split_lines (self->old_buf, old_len, &self->old_lines);
  self->n_new = split_lines (self->new_buf, new_len, &self->new_lines);
  compute (self);
  return self;
}

RkDiff *
rk_diff_ref (RkDiff *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
rk_diff_unref (RkDiff *self)
{
  g_return_if_fail (self != NULL);
  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  g_free (self->old_buf);
  g_free (self->new_buf);
  g_free (self->old_lines);
  g_free (self->new_lines);
  g_free (self->old_changed_base);
  g_free (self->new_changed_base);
  g_clear_pointer (&self->edits, g_array_unref);
  g_free (self);
}

const RkDiffEdit *
rk_diff_get_edits (RkDiff *self,
                   guint  *n_edits)
{
  g_return_val_if_fail (self != NULL, NULL);
  if (n_edits)
    *n_edits = self->edits->len;
  return (const RkDiffEdit *) (gpointer) self->edits->data;
}

guint
rk_diff_get_n_old_lines (RkDiff *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->n_old;
}

guint
rk_diff_get_n_new_lines (RkDiff *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->n_new;
}

static const char *
get_line (const Line *lines,
          guint       n,
          guint       index,
          gsize      *len,
          gboolean   *has_newline)
{
  g_return_val_if_fail (index < n, NULL);
  if (len)
    *len = lines[index].len;
  if (has_newline)
    *has_newline = lines[index].nl;
  return lines[index].ptr;
}

const char *
rk_diff_get_old_line (RkDiff   *self,
                      guint     index,
                      gsize    *len,
                      gboolean *has_newline)
{
  g_return_val_if_fail (self != NULL, NULL);
  return get_line (self->old_lines, self->n_old, index, len, has_newline);
}

const char *
rk_diff_get_new_line (RkDiff   *self,
                      guint     index,
                      gsize    *len,
                      gboolean *has_newline)
{
  g_return_val_if_fail (self != NULL, NULL);
  return get_line (self->new_lines, self->n_new, index, len, has_newline);
}

gboolean
rk_diff_is_identical (RkDiff *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return self->n_deleted == 0 && self->n_inserted == 0;
}

guint
rk_diff_get_n_deleted (RkDiff *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->n_deleted;
}

guint
rk_diff_get_n_inserted (RkDiff *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->n_inserted;
}

GArray *
rk_diff_get_hunks (RkDiff *self,
                   guint   context)
{
  GArray *hunks;
  guint k = 0;
  const RkDiffEdit *edits;
  guint n_edits;

  g_return_val_if_fail (self != NULL, NULL);

  hunks = g_array_new (FALSE, FALSE, sizeof (RkDiffHunk));
  edits = rk_diff_get_edits (self, &n_edits);
  context = MIN (context, G_MAXINT / 4);

  while (k < n_edits)
    {
      guint first, last, old_lo, old_hi, new_lo, new_hi;
      RkDiffHunk h;

      while (k < n_edits && edits[k].op == RK_DIFF_EQUAL)
        k++;
      if (k == n_edits)
        break;
      first = k;
      /* Extend over changes separated by at most 2 * context equal lines. */
      last = k;
      for (;;)
        {
          while (last + 1 < n_edits && edits[last + 1].op != RK_DIFF_EQUAL)
            last++;
          if (last + 2 < n_edits && edits[last + 1].len <= 2 * context)
            last += 2;
          else
            break;
        }

      old_lo = edits[first].old_start - MIN (edits[first].old_start, context);
      new_lo = edits[first].new_start - (edits[first].old_start - old_lo);
      {
        guint old_end = edits[last].op == RK_DIFF_DELETE ? edits[last].old_start + edits[last].len : edits[last].old_start;
        guint new_end = edits[last].op == RK_DIFF_INSERT ? edits[last].new_start + edits[last].len : edits[last].new_start;
        old_hi = MIN ((guint64) self->n_old, (guint64) old_end + context);
        new_hi = new_end + (old_hi - old_end);
      }

      h.old_start = old_lo;
      h.old_len = old_hi - old_lo;
      h.new_start = new_lo;
      h.new_len = new_hi - new_lo;
      h.first_edit = (first > 0 && old_lo < edits[first].old_start) ? first - 1 : first;
      h.n_edits = ((last + 1 < n_edits && old_hi > edits[last + 1].old_start) ? last + 2 : last + 1) - h.first_edit;
      g_array_append_val (hunks, h);
      k = last + 1;
    }
  return hunks;
}

static void
append_line (GString    *out,
             char        prefix,
             const Line *l)
{
  g_string_append_c (out, prefix);
  g_string_append_len (out, l->ptr, l->len);
  g_string_append_c (out, '\n');
  if (!l->nl)
    g_string_append (out, "\\ No newline at end of file\n");
}

static void
append_range (GString *out,
              guint    start,
              guint    len)
{
  /* GNU: an empty range names the line before it; a one-line range has no count. */
  if (len == 0)
    g_string_append_printf (out, "%u,0", start);
  else if (len == 1)
    g_string_append_printf (out, "%u", start + 1);
  else
    g_string_append_printf (out, "%u,%u", start + 1, len);
}

GString *
rk_diff_format_unified (RkDiff     *self,
                        const char *old_label,
                        const char *new_label,
                        guint       context)
{
  g_autoptr(GArray) hunks = NULL;
  GString *out;

  g_return_val_if_fail (self != NULL, NULL);

  out = g_string_new (NULL);
  if (rk_diff_is_identical (self))
    return out;

  g_string_append_printf (out, "--- %s\n+++ %s\n", old_label ? old_label : "a", new_label ? new_label : "b");
  hunks = rk_diff_get_hunks (self, context);
  for (guint k = 0; k < hunks->len; k++)
    {
      const RkDiffHunk *h = &g_array_index (hunks, RkDiffHunk, k);
      guint i = h->old_start, j = h->new_start;
      guint i_end = h->old_start + h->old_len, j_end = h->new_start + h->new_len;

      g_string_append (out, "@@ -");
      append_range (out, h->old_start, h->old_len);
      g_string_append (out, " +");
      append_range (out, h->new_start, h->new_len);
      g_string_append (out, " @@\n");

      while (i < i_end || j < j_end)
        {
          if (i < i_end && j < j_end && !self->old_changed[i] && !self->new_changed[j])
            {
              append_line (out, ' ', &self->old_lines[i]);
              i++, j++;
              continue;
            }
          while (i < i_end && self->old_changed[i])
            append_line (out, '-', &self->old_lines[i++]);
          while (j < j_end && self->new_changed[j])
            append_line (out, '+', &self->new_lines[j++]);
        }
    }
  return out;
}

char *
rk_diff_unified (const char *old_text,
                 const char *new_text,
                 const char *old_label,
                 const char *new_label,
                 guint       context)
{
  g_autoptr(RkDiff) diff = rk_diff_new (old_text, -1, new_text, -1);

  return g_string_free (rk_diff_format_unified (diff, old_label, new_label, context), FALSE);
}
