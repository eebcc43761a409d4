/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-trace.c — finds the numbers in a model's answer (text from a model:
 * untrusted, bounded) and looks each up among the values of the cell outputs
 * (a sorted array searched by interval), per docs/traceable-numbers.md. */
#define G_LOG_DOMAIN "rk-trace"
#include "config.h"

#include "rk-trace.h"

#include <errno.h>
#include <glib/gi18n-lib.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------ tokenizer */

static gboolean
is_digit (char c)
{
  return c >= '0' && c <= '9';
}

static gboolean
is_word_char (gunichar c)
{
  return c == '_' || g_unichar_isalnum (c);
}

static gunichar
char_before (const char *text,
             gsize       pos)
{
  const char *p;

  if (pos == 0)
    return 0;
  p = g_utf8_find_prev_char (text, text + pos);
  return p != NULL ? g_utf8_get_char_validated (p, text + pos - p) : 0;
}

static gunichar
char_at (const char *text,
         gsize       pos,
         gsize       len)
{
  gunichar c;

  if (pos >= len)
    return 0;
  c = g_utf8_get_char_validated (text + pos, len - pos);
  return c == (gunichar) -1 || c == (gunichar) -2 ? 0xFFFD : c;
}

static gsize
char_len (const char *text,
          gsize       pos,
          gsize       len)
{
  gsize n = 1;

  /* invalid bytes count one each */
  if ((guchar) text[pos] >= 0xC0)
    {
      gunichar c = g_utf8_get_char_validated (text + pos, len - pos);

      if (c != (gunichar) -1 && c != (gunichar) -2)
        n = g_utf8_skip[(guchar) text[pos]];
    }
  return MIN (n, len - pos);
}

/* "−" (U+2212), as typography and tick labels write minus */
static gboolean
is_minus_sign (const char *text,
               gsize       pos,
               gsize       len)
{
  return pos + 3 <= len && memcmp (text + pos, "\xe2\x88\x92", 3) == 0;
}

static gboolean
word_at (const char *text,
         gsize       pos,
         gsize       len,
         const char *word,
         gsize      *after)
{
  gsize n = strlen (word);

  if (pos + n > len || g_ascii_strncasecmp (text + pos, word, n) != 0)
    return FALSE;
  if (is_word_char (char_at (text, pos + n, len)))
    return FALSE;
  *after = pos + n;
  return TRUE;
}

/* Past the run of digits, letters and number punctuation at @pos: a token
 * that is not a number (a version, a word with digits, a date). */
static gsize
skip_token (const char *text,
            gsize       pos,
            gsize       len)
{
  while (pos < len)
    {
      gunichar c = char_at (text, pos, len);

      if (!(is_word_char (c) || c == '.' || c == ',' || c == '-' || c == '/' || c == ':'))
        break;
      /* punctuation ends the token unless a digit or letter follows */
      if ((c == '.' || c == ',' || c == '-' || c == '/' || c == ':') &&
          !is_word_char (char_at (text, pos + 1, len)))
        break;
      pos += char_len (text, pos, len);
    }
  return pos;
}

static void
scan (const char *text,
      gboolean    all,
      GArray     *out)
{
  gsize len;
  gsize i = 0;
  gsize code_run = 0;   /* length of the backtick run that opened code, 0 outside */

  if (text == NULL)
    return;
  len = strnlen (text, RK_TRACE_MAX_TEXT);

  while (i < len)
    {
      gsize start = i, p = i, q, int_start, int_digits = 0, dec_digits = 0, end;
      gboolean negative = FALSE, grouped = FALSE;
      RkTraceFlags flags = 0;
      double multiplier = 1, exponent = 0, value;
      g_autoptr(GString) number = NULL;
      gunichar before, next;
      RkTraceSpan span;

      if (text[i] == '`')
        {
          gsize run = 0;

          while (i + run < len && text[i + run] == '`')
            run++;
          if (code_run == 0)
            code_run = run;
          else if (run == code_run)
            code_run = 0;
          i += run;
          continue;
        }
      if (code_run != 0 && !all)
        {
          i++;
          continue;
        }

      if ((text[p] == '-' || text[p] == '+') && p + 1 < len && is_digit (text[p + 1]))
        {
          negative = text[p] == '-';
          p++;
        }
      else if (is_minus_sign (text, p, len) && p + 3 < len && is_digit (text[p + 3]))
        {
          negative = TRUE;
          p += 3;
        }
      if (!is_digit (text[p]) && !(text[p] == '.' && p + 1 < len && is_digit (text[p + 1])))
        {
          i += char_len (text, i, len);
          continue;
        }

      before = char_before (text, start);
      if (p != start && (is_digit ((char) before) || is_word_char (before)))
        {
          /* "3-4", "x-1": the sign is a hyphen; read the digits alone */
          negative = FALSE;
          start = p;
          before = char_before (text, start);
        }
      /* "v1.2", "x2", "A1"; "2024-01-03", "12:30", "1/2" continued */
      if (is_word_char (before) || before == '.' ||
          ((before == '-' || before == '/' || before == ':') && start >= 2 &&
           is_digit (text[start - 2])))
        {
          i = skip_token (text, start, len);
          if (i == start)
            i += char_len (text, start, len);
          continue;
        }

      number = g_string_new (negative ? "-" : NULL);
      q = p;
      int_start = q;
      while (q < len && is_digit (text[q]))
        g_string_append_c (number, text[q++]);
      int_digits = q - int_start;
      /* thousands separators: groups of exactly three digits after "," */
      if (int_digits > 0 && int_digits <= 3)
        while (q + 3 < len && text[q] == ',' &&
               is_digit (text[q + 1]) && is_digit (text[q + 2]) && is_digit (text[q + 3]) &&
               (q + 4 >= len || !is_digit (text[q + 4])))
          {
            g_string_append_len (number, text + q + 1, 3);
            int_digits += 3;
            grouped = TRUE;
            q += 4;
          }
      if (q + 1 < len && text[q] == '.' && is_digit (text[q + 1]))
        {
          g_string_append_c (number, '.');
          q++;
          while (q < len && is_digit (text[q]))
            {
              g_string_append_c (number, text[q++]);
              dec_digits++;
            }
        }
      if (q < len && (text[q] == 'e' || text[q] == 'E'))
        {
          gsize e = q + 1;
          gboolean eneg = FALSE;
          double ev = 0;

          if (e < len && (text[e] == '+' || text[e] == '-'))
            eneg = text[e++] == '-';
          if (e < len && is_digit (text[e]))
            {
              gsize digits = 0;

              while (e < len && is_digit (text[e]) && digits < 4)
                {
                  ev = ev * 10 + (text[e++] - '0');
                  digits++;
                }
              if (e >= len || !is_digit (text[e]))
                {
                  exponent = eneg ? -ev : ev;
                  flags |= RK_TRACE_FLAG_EXPONENT;
                  q = e;
                }
            }
        }
      end = q;

      /* what follows decides what it was */
      next = char_at (text, end, len);
      if ((next == '-' || next == '/' || next == ':' || next == '.') && end + 1 < len &&
          is_digit (text[end + 1]))
        {
          /* a date, time, range or version: none of it is checked */
          i = skip_token (text, start, len);
          if (i <= end)
            i = end + 1;
          continue;
        }
      {
        gsize after = end, s = end;

        if (s < len && (text[s] == ' ' || (s + 2 <= len && memcmp (text + s, "\xc2\xa0", 2) == 0)))
          s += text[s] == ' ' ? 1 : 2;
        if (s < len && text[s] == '%')
          {
            flags |= RK_TRACE_FLAG_PERCENT;
            end = s + 1;
          }
        else if (word_at (text, s, len, "percent", &after) && s > end)
          {
            flags |= RK_TRACE_FLAG_PERCENT;
            end = after;
          }
        else if (s > end && word_at (text, s, len, "thousand", &after))
          multiplier = 1e3, end = after;
        else if (s > end && word_at (text, s, len, "million", &after))
          multiplier = 1e6, end = after;
        else if (s > end && word_at (text, s, len, "billion", &after))
          multiplier = 1e9, end = after;
        else if (s > end && word_at (text, s, len, "trillion", &after))
          multiplier = 1e12, end = after;
        else if (word_at (text, end, len, "k", &after) || word_at (text, end, len, "K", &after))
          multiplier = 1e3, end = after;
        else if (word_at (text, end, len, "bn", &after))
          multiplier = 1e9, end = after;
        else if (end < len && text[end] == 'M' && !is_word_char (char_at (text, end + 1, len)))
          multiplier = 1e6, end = end + 1;
        else if (is_word_char (next))
          {
            /* "3rd", "10px", "2x", "4GB": a word, not a quantity */
            i = skip_token (text, start, len);
            if (i <= start)
              i = start + 1;
            continue;
          }
        if (multiplier != 1)
          flags |= RK_TRACE_FLAG_MULTIPLIER;
      }

      i = end;
      if (!all)
        {
          value = g_ascii_strtod (number->str, NULL);
          if (int_digits + dec_digits < 2 && dec_digits == 0 && flags == 0)
            continue;
          if (dec_digits == 0 && !grouped && flags == 0 && int_digits == 4 && !negative &&
              value >= 1900 && value <= 2100)
            continue;
        }
      value = g_ascii_strtod (number->str, NULL) * pow (10, exponent) * multiplier;
      if (!isfinite (value))
        continue;

      memset (&span, 0, sizeof span);
      span.start = start;
      span.end = end;
      span.value = value;
      span.tolerance = 0.5 * pow (10, exponent - (double) dec_digits) * multiplier;
      span.flags = flags;
      span.status = RK_TRACE_NOT_COMPUTED;
      span.row = -1;
      span.column = -1;
      g_array_append_val (out, span);
    }
}

GArray *
rk_trace_find_numbers (const char *text)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (RkTraceSpan));

  scan (text, FALSE, out);
  return out;
}

GArray *
rk_trace_find_all_numbers (const char *text)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (RkTraceSpan));

  scan (text, TRUE, out);
  return out;
}

/* ---------------------------------------------------------------- index */

typedef struct
{
  double   value;
  guint    entry_id;
  gboolean given;
  gint64   row;
  int      column;
} Value;

struct _RkTraceIndex
{
  GArray   *values;
  gboolean  sorted;
};

RkTraceIndex *
rk_trace_index_new (void)
{
  RkTraceIndex *self = g_new0 (RkTraceIndex, 1);

  self->values = g_array_new (FALSE, FALSE, sizeof (Value));
  return self;
}

void
rk_trace_index_free (RkTraceIndex *self)
{
  if (self == NULL)
    return;
  g_array_unref (self->values);
  g_free (self);
}

static void
add (RkTraceIndex *self,
     guint         entry_id,
     gboolean      given,
     double        value,
     gint64        row,
     int           column)
{
  Value v = { value, entry_id, given, row, column };

  if (!isfinite (value) || self->values->len >= RK_TRACE_MAX_VALUES)
    return;
  g_array_append_val (self->values, v);
  self->sorted = FALSE;
}

void
rk_trace_index_add_value (RkTraceIndex *self,
                          guint         entry_id,
                          double        value,
                          gint64        row,
                          int           column)
{
  g_return_if_fail (self != NULL);
  add (self, entry_id, FALSE, value, row, column);
}

void
rk_trace_index_add_text (RkTraceIndex  *self,
                         guint          entry_id,
                         const char    *text,
                         RkTraceStatus  status)
{
  g_autoptr(GArray) numbers = NULL;

  g_return_if_fail (self != NULL);
  g_return_if_fail (status == RK_TRACE_COMPUTED || status == RK_TRACE_GIVEN);

  numbers = rk_trace_find_all_numbers (text);
  for (guint i = 0; i < numbers->len; i++)
    {
      const RkTraceSpan *s = &g_array_index (numbers, RkTraceSpan, i);

      add (self, entry_id, status == RK_TRACE_GIVEN, s->value, -1, -1);
    }
}

void
rk_trace_index_add_table (RkTraceIndex *self,
                          guint         entry_id,
                          RkTable      *table)
{
  guint n_rows, n_columns;

  g_return_if_fail (self != NULL);
  g_return_if_fail (RK_IS_TABLE (table));

  n_rows = rk_table_get_n_rows (table);
  n_columns = rk_table_get_n_columns (table);
  for (guint c = 0; c < n_columns; c++)
    {
      RkTableColumnType type = rk_table_get_column_type (table, c);

      if (type != RK_TABLE_COLUMN_INT64 && type != RK_TABLE_COLUMN_FLOAT64)
        continue;
      for (guint r = 0; r < n_rows && self->values->len < RK_TRACE_MAX_VALUES; r++)
        {
          double v;

          if (rk_table_get_double (table, r, c, &v))
            add (self, entry_id, FALSE, v, r, (int) c);
        }
    }
}

void
rk_trace_index_add_chart (RkTraceIndex *self,
                          guint         entry_id,
                          RkChart      *chart)
{
  guint n_series;

  g_return_if_fail (self != NULL);
  g_return_if_fail (RK_IS_CHART (chart));

  n_series = rk_chart_get_n_series (chart);
  for (guint k = 0; k < n_series; k++)
    {
      gsize n = rk_chart_get_n_values (chart, k);

      for (gsize i = 0; i < n && self->values->len < RK_TRACE_MAX_VALUES; i++)
        {
          double v;

          if (rk_chart_get_value (chart, k, i, &v))
            add (self, entry_id, FALSE, v, (gint64) i, (int) k);
        }
    }
}

guint
rk_trace_index_get_n_values (RkTraceIndex *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->values->len;
}

static int
compare_values (const void *a,
                const void *b)
{
  const Value *x = a, *y = b;

  return x->value < y->value ? -1 : x->value > y->value ? 1 : 0;
}

/* The first value >= @v. */
static guint
lower_bound (GArray *values,
             double  v)
{
  guint lo = 0, hi = values->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (g_array_index (values, Value, mid).value < v)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* The best value within @tol of @target: computed before given, then the
 * closest, then the latest entry. */
static void
consider (GArray       *values,
          double        target,
          double        tol,
          const Value **best,
          double       *best_score)
{
  for (guint j = lower_bound (values, target - tol); j < values->len; j++)
    {
      const Value *v = &g_array_index (values, Value, j);
      double score;

      if (v->value > target + tol)
        break;
      score = fabs (v->value - target) / MAX (tol, 1e-300) + (v->given ? 10 : 0);
      if (*best == NULL || score < *best_score ||
          (score == *best_score && v->entry_id > (*best)->entry_id))
        {
          *best = v;
          *best_score = score;
        }
    }
}

GArray *
rk_trace_index_match (RkTraceIndex *self,
                      const char   *text)
{
  GArray *spans;

  g_return_val_if_fail (self != NULL, NULL);

  /* qsort() of an empty index would get a NULL array (undefined). */
  if (!self->sorted && self->values->len > 0)
    {
      qsort (self->values->data, self->values->len, sizeof (Value), compare_values);
      self->sorted = TRUE;
    }
  spans = rk_trace_find_numbers (text);
  for (guint i = 0; i < spans->len; i++)
    {
      RkTraceSpan *s = &g_array_index (spans, RkTraceSpan, i);
      /* a relative slack for values printed at full precision */
      double tol = s->tolerance + fabs (s->value) * 1e-9;
      const Value *best = NULL;
      double best_score = 0;

      /* the sign is often in the words ("fell by 5%"): either sign counts */
      consider (self->values, s->value, tol, &best, &best_score);
      consider (self->values, -s->value, tol, &best, &best_score);
      if (s->flags & RK_TRACE_FLAG_PERCENT)
        {
          /* 12.5% is 12.5 printed, or 0.125 as a fraction */
          consider (self->values, s->value / 100, tol / 100, &best, &best_score);
          consider (self->values, -s->value / 100, tol / 100, &best, &best_score);
        }
      if (best == NULL)
        continue;
      s->status = best->given ? RK_TRACE_GIVEN : RK_TRACE_COMPUTED;
      s->entry_id = best->entry_id;
      s->row = best->row;
      s->column = best->column;
    }
  return spans;
}

/* --------------------------------------------------------------- markup */

/* Marks the numbers of one run of plain text (no tags, no entities). */
static void
mark_run (RkTraceIndex *self,
          GString      *out,
          const char   *text,
          gsize         len,
          guint        *n_computed,
          guint        *n_not)
{
  g_autofree char *run = g_strndup (text, len);
  g_autoptr(GArray) spans = rk_trace_index_match (self, run);
  gsize at = 0;

  for (guint i = 0; i < spans->len; i++)
    {
      const RkTraceSpan *s = &g_array_index (spans, RkTraceSpan, i);

      g_string_append_len (out, run + at, s->start - at);
      if (s->status == RK_TRACE_COMPUTED)
        {
          g_string_append_printf (out, "<a href=\"reckon-trace:%u:%" G_GINT64_FORMAT ":%d\" title=\"%s\">",
                                  s->entry_id, s->row, s->column, _("Computed: go to the output it comes from"));
          g_string_append_len (out, run + s->start, s->end - s->start);
          g_string_append (out, "</a>");
          (*n_computed)++;
        }
      else if (s->status == RK_TRACE_NOT_COMPUTED)
        {
          g_string_append_printf (out, "<a href=\"reckon-trace:not-computed\" title=\"%s\"><span underline=\"error\">",
                                  _("Not computed: this number is in no output of the analysis"));
          g_string_append_len (out, run + s->start, s->end - s->start);
          g_string_append (out, "</span></a>");
          (*n_not)++;
        }
      else
        g_string_append_len (out, run + s->start, s->end - s->start);
      at = s->end;
    }
  g_string_append (out, run + at);
}

char *
rk_trace_mark_markup (RkTraceIndex *self,
                      const char   *markup,
                      guint        *n_computed,
                      guint        *n_not_computed)
{
  GString *out;
  const char *p, *run;
  guint skip_depth = 0;   /* inside <tt> or <a> */
  guint computed = 0, not_computed = 0;

  g_return_val_if_fail (self != NULL, NULL);

  if (markup == NULL)
    markup = "";
  out = g_string_new (NULL);
  p = run = markup;
  while (*p != '\0')
    {
      if (*p == '<' || *p == '&')
        {
          const char *end = strchr (p, *p == '<' ? '>' : ';');

          if (skip_depth == 0)
            mark_run (self, out, run, p - run, &computed, &not_computed);
          else
            g_string_append_len (out, run, p - run);
          if (end == NULL)
            {
              /* not markup after all: the rest as it is */
              g_string_append (out, p);
              run = p + strlen (p);
              break;
            }
          if (*p == '<')
            {
              gboolean closing = p[1] == '/';
              const char *name = p + (closing ? 2 : 1);

              if (g_str_has_prefix (name, "tt") || (name[0] == 'a' && (name[1] == ' ' || name[1] == '>')))
                skip_depth = closing ? (skip_depth > 0 ? skip_depth - 1 : 0) : skip_depth + 1;
            }
          g_string_append_len (out, p, end + 1 - p);
          p = run = end + 1;
          continue;
        }
      p++;
    }
  if (*run != '\0')
    {
      if (skip_depth == 0)
        mark_run (self, out, run, strlen (run), &computed, &not_computed);
      else
        g_string_append (out, run);
    }
  if (n_computed != NULL)
    *n_computed = computed;
  if (n_not_computed != NULL)
    *n_not_computed = not_computed;
  return g_string_free (out, FALSE);
}

/* ---------------------------------------------------------------- build */

typedef struct
{
  RkEntryKind kind;
  guint       entry_id;
  char       *path;
} FileSource;

typedef struct
{
  RkTraceIndex *index;
  GArray       *files;   /* FileSource */
  RkWorkspace  *workspace;
} BuildData;

static void
file_source_clear (gpointer data)
{
  FileSource *f = data;

  g_free (f->path);
}

static void
build_data_free (gpointer data)
{
  BuildData *d = data;

  g_clear_pointer (&d->index, rk_trace_index_free);
  g_clear_pointer (&d->files, g_array_unref);
  g_clear_object (&d->workspace);
  g_free (d);
}

static void
build_thread (GTask        *task,
              gpointer      source,
              gpointer      task_data,
              GCancellable *cancellable)
{
  BuildData *d = task_data;

  for (guint i = 0; d->workspace != NULL && rk_workspace_exists (d->workspace) && i < d->files->len; i++)
    {
      FileSource *f = &g_array_index (d->files, FileSource, i);
      g_autoptr(GError) error = NULL;

      if (g_cancellable_is_cancelled (cancellable))
        break;
      if (f->kind == RK_ENTRY_TABLE)
        {
          g_autoptr(RkTable) table = NULL;
          int fd = rk_workspace_open_file (d->workspace, f->path, &error);

          if (fd >= 0)
            {
              table = rk_table_open_fd (fd, &error);
              close (fd);
            }
          if (table != NULL)
            rk_trace_index_add_table (d->index, f->entry_id, table);
        }
      else
        {
          g_autoptr(RkChart) chart = rk_chart_new_from_workspace (d->workspace, f->path, &error);

          if (chart != NULL)
            rk_trace_index_add_chart (d->index, f->entry_id, chart);
        }
      if (error != NULL)
        g_debug ("Not indexed: %s: %s", f->path, error->message);
    }
  if (g_task_return_error_if_cancelled (task))
    return;
  /* sort here, off the main thread */
  qsort (d->index->values->data, d->index->values->len, sizeof (Value), compare_values);
  d->index->sorted = TRUE;
  g_task_return_pointer (task, g_steal_pointer (&d->index), (GDestroyNotify) rk_trace_index_free);
}

void
rk_trace_index_build_async (RkTranscript       *transcript,
                            guint               before_entry_id,
                            RkWorkspace        *workspace,
                            GCancellable       *cancellable,
                            GAsyncReadyCallback callback,
                            gpointer            user_data)
{
  g_autoptr(GTask) task = NULL;
  BuildData *d;
  guint n;

  g_return_if_fail (RK_IS_TRANSCRIPT (transcript));

  d = g_new0 (BuildData, 1);
  d->index = rk_trace_index_new ();
  d->files = g_array_new (FALSE, TRUE, sizeof (FileSource));
  g_array_set_clear_func (d->files, file_source_clear);
  d->workspace = workspace ? g_object_ref (workspace) : NULL;

  n = rk_transcript_get_n_entries (transcript);
  for (guint i = 0; i < n; i++)
    {
      RkTranscriptEntry *entry = rk_transcript_get_entry (transcript, i);
      guint id = rk_transcript_entry_get_id (entry);
      RkEntryKind kind = rk_transcript_entry_get_kind (entry);

      if (before_entry_id != 0 && id >= before_entry_id)
        break;
      switch (kind)
        {
        case RK_ENTRY_USER:
          rk_trace_index_add_text (d->index, id, rk_transcript_entry_get_text (entry), RK_TRACE_GIVEN);
          break;
        case RK_ENTRY_STREAM:
          if (rk_transcript_entry_get_stream (entry) == RK_STREAM_STDOUT)
            rk_trace_index_add_text (d->index, id, rk_transcript_entry_get_text (entry), RK_TRACE_COMPUTED);
          break;
        case RK_ENTRY_RESULT:
          rk_trace_index_add_text (d->index, id, rk_transcript_entry_get_text (entry), RK_TRACE_COMPUTED);
          break;
        case RK_ENTRY_TABLE:
        case RK_ENTRY_CHART:
          if (rk_transcript_entry_get_path (entry) != NULL)
            {
              FileSource f = { kind, id, g_strdup (rk_transcript_entry_get_path (entry)) };

              g_array_append_val (d->files, f);
            }
          break;
        case RK_ENTRY_ASSISTANT:
        case RK_ENTRY_REASONING:
        case RK_ENTRY_CODE:
        case RK_ENTRY_APPROVAL:
        case RK_ENTRY_FIGURE:
        case RK_ENTRY_FILE:
        case RK_ENTRY_ERROR:
        case RK_ENTRY_ANSWER:
        case RK_ENTRY_NOTE:
        default:
          break;
        }
    }

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, rk_trace_index_build_async);
  g_task_set_task_data (task, d, build_data_free);
  g_task_run_in_thread (task, build_thread);
}

RkTraceIndex *
rk_trace_index_build_finish (GAsyncResult  *result,
                             GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
