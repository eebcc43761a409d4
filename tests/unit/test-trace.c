/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-trace.c — traceable numbers: the tokenizer on answers as models write
 * them (separators, percentages, multipliers, dates, code, hostile bytes),
 * matching with rounding, and a scripted conversation with one computed and
 * one invented number. */
#define G_LOG_DOMAIN "test-trace"
#include "config.h"

#include <math.h>
#include <string.h>

#include "rk-trace.h"

#include <glib/gstdio.h>

/* The numbers of @text as "start-end=value" lines, to compare in one go. */
static char *
numbers (const char *text)
{
  g_autoptr(GArray) spans = rk_trace_find_numbers (text);
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < spans->len; i++)
    {
      RkTraceSpan *s = &g_array_index (spans, RkTraceSpan, i);
      g_string_append_printf (out, "%s%.*s=%.10g", i ? " | " : "", (int) (s->end - s->start), text + s->start, s->value);
    }
  return g_string_free (out, FALSE);
}

static void
test_tokens (void)
{
  static const struct { const char *text, *expect; } cases[] = {
    { "Revenue was 1,234,567.89 in total.", "1,234,567.89=1234567.89" },
    { "It grew 12.5% (from 80 to 90).", "12.5%=12.5 | 80=80 | 90=90" },
    { "Margin: 12.5 % or 4 percent", "12.5 %=12.5 | 4 percent=4" },
    { "About $1.2 million, or 3.4k units, 2bn overall, 5M rows",
      "1.2 million=1200000 | 3.4k=3400 | 2bn=2000000000 | 5M=5000000" },
    { "a change of −3.5 and -12 and +40", "−3.5=-3.5 | -12=-12 | +40=40" },
    /* single digits, years, dates, times, versions, words with digits: not checked */
    { "In 2023 the 3 regions on 2024-01-03 at 12:30 with pandas 1.5.3 and x2, 3rd, 10px, A1",
      "" },
    { "1,2 is not grouped: 1,2345 neither", "2345=2345" },
    { "inline `df.head(10)` and ```\nprint(12345)\n``` are code; 77 is not", "77=77" },
    { "scientific 1.5e+03 and 2E-2", "1.5e+03=1500 | 2E-2=0.02" },
    { "0.5 and .75 and 10.", "0.5=0.5 | .75=0.75 | 10=10" },
    { "", "" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *got = numbers (cases[i].text);
      g_assert_cmpstr (got, ==, cases[i].expect);
    }
}

static void
test_hostile (void)
{
  g_autoptr(GString) big = g_string_new (NULL);
  static const char *odd[] = {
    "\xff\xfe 12 \xc3", "99\xe2\x88", "\xe2\x88\x92", "-", "1e", "1e+", "1e99999", "9,",
    "99,99,999", "1.", "%", "12%%", "1" "\0" "2", "`12` `", "``` 12", "1,000,000,000,000,000,000,000",
    "123456789012345678901234567890123456789012345678901234567890e300",
  };

  for (guint i = 0; i < G_N_ELEMENTS (odd); i++)
    {
      g_autoptr(GArray) a = rk_trace_find_numbers (odd[i]);
      g_autoptr(GArray) b = rk_trace_find_all_numbers (odd[i]);

      for (guint k = 0; k < a->len; k++)
        {
          RkTraceSpan *s = &g_array_index (a, RkTraceSpan, k);
          g_assert_cmpuint (s->end, <=, strlen (odd[i]));
          g_assert_cmpuint (s->start, <, s->end);
          g_assert_true (isfinite (s->value));
        }
      g_assert_cmpuint (b->len, >=, a->len);
    }
  /* long input is cut, not scanned without end */
  for (guint i = 0; i < RK_TRACE_MAX_TEXT / 4 + 10; i++)
    g_string_append (big, "12, ");
  {
    g_autoptr(GArray) a = rk_trace_find_numbers (big->str);
    g_assert_cmpuint (a->len, <=, RK_TRACE_MAX_TEXT / 4 + 1);
  }
}

static RkTraceSpan *
span_for (GArray     *spans,
          const char *text,
          const char *needle)
{
  gsize at = strstr (text, needle) - text;

  for (guint i = 0; i < spans->len; i++)
    {
      RkTraceSpan *s = &g_array_index (spans, RkTraceSpan, i);
      if (s->start == at)
        return s;
    }
  g_assert_not_reached ();
  return NULL;
}

static void
test_match_rules (void)
{
  g_autoptr(RkTraceIndex) index = rk_trace_index_new ();
  const char *answer =
    "Total 1,234.57; rounded 1,235; mean 0.33; share 12.5%; drop 4.2%; "
    "about 1.2 million; exactly 1,200,000.5; invented 987.65; asked 250; tiny 3.14159";
  g_autoptr(GArray) spans = NULL;

  rk_trace_index_add_value (index, 10, 1234.5678, 4, 2);   /* a table cell */
  rk_trace_index_add_text (index, 11, "mean    0.333333\nshare 0.125\n", RK_TRACE_COMPUTED);
  rk_trace_index_add_value (index, 12, -4.2, 0, 0);         /* a chart point */
  rk_trace_index_add_value (index, 12, 1234567.0, 1, 0);
  rk_trace_index_add_text (index, 13, "3.141592653589793", RK_TRACE_COMPUTED);
  rk_trace_index_add_text (index, 1, "show the top 250 rows", RK_TRACE_GIVEN);
  g_assert_cmpuint (rk_trace_index_get_n_values (index), ==, 7);

  spans = rk_trace_index_match (index, answer);
  /* rounding to the digits written */
  g_assert_cmpint (span_for (spans, answer, "1,234.57")->status, ==, RK_TRACE_COMPUTED);
  g_assert_cmpuint (span_for (spans, answer, "1,234.57")->entry_id, ==, 10);
  g_assert_cmpint (span_for (spans, answer, "1,234.57")->row, ==, 4);
  g_assert_cmpint (span_for (spans, answer, "1,234.57")->column, ==, 2);
  g_assert_cmpint (span_for (spans, answer, "1,235")->status, ==, RK_TRACE_COMPUTED);
  g_assert_cmpuint (span_for (spans, answer, "0.33")->entry_id, ==, 11);
  /* a percentage matches the fraction printed */
  g_assert_cmpint (span_for (spans, answer, "12.5%")->status, ==, RK_TRACE_COMPUTED);
  g_assert_cmpuint (span_for (spans, answer, "12.5%")->entry_id, ==, 11);
  /* the sign may be in the words */
  g_assert_cmpuint (span_for (spans, answer, "4.2%")->entry_id, ==, 12);
  /* a multiplier keeps the precision written: 1.2 million is 1,150,000 to 1,250,000 */
  g_assert_cmpint (span_for (spans, answer, "1.2 million")->status, ==, RK_TRACE_COMPUTED);
  g_assert_cmpint (span_for (spans, answer, "1,200,000.5")->status, ==, RK_TRACE_NOT_COMPUTED);
  g_assert_cmpint (span_for (spans, answer, "987.65")->status, ==, RK_TRACE_NOT_COMPUTED);
  g_assert_cmpuint (span_for (spans, answer, "987.65")->entry_id, ==, 0);
  g_assert_cmpint (span_for (spans, answer, "250")->status, ==, RK_TRACE_GIVEN);
  g_assert_cmpint (span_for (spans, answer, "3.14159")->status, ==, RK_TRACE_COMPUTED);
}

/* Acceptance (issue 8, provenance): a scripted conversation with a printed
 * result and a chart; the answer has one computed and one invented number. */
static void
build_done_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  RkTraceIndex **out = user_data;
  g_autoptr(GError) error = NULL;

  *out = rk_trace_index_build_finish (result, &error);
  g_assert_no_error (error);
}

static void
test_conversation (void)
{
  g_autoptr(RkTranscript) t = rk_transcript_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *ws = g_dir_make_tmp ("rk-trace-XXXXXX", &error);
  g_autofree char *charts = g_build_filename (ws, "charts", NULL);
  g_autoptr(RkWorkspace) handle = NULL;
  g_autofree char *spec = g_build_filename (charts, "c1.json", NULL);
  RkTranscriptArtifact chart = { RK_ENTRY_CHART, "charts/c1.json", NULL, "Sales", 0, 0, 0, 0 };
  g_autoptr(RkTraceIndex) index = NULL;
  g_autoptr(GArray) spans = NULL;
  const char *answer = "North sold **48,213** units, about 37.2% of the total of 129,600.";
  guint out_id, chart_id, answer_id;

  g_assert_no_error (error);
  g_assert_cmpint (g_mkdir_with_parents (charts, 0700), ==, 0);
  g_assert_true (g_file_set_contents (spec,
    "{\"version\":1,\"kind\":\"bar\",\"x\":{\"type\":\"category\"},\"categories\":[\"North\",\"South\"],"
    "\"series\":[{\"name\":\"units\",\"y\":[48213,81387]}]}", -1, NULL));

  rk_transcript_add_user (t, "How many units did North sell?", NULL);
  rk_transcript_add_code (t, "c1", "df.groupby('region').units.sum()", 0);
  rk_transcript_add_approval (t, "c1", RK_DECISION_APPROVED, NULL);
  out_id = rk_transcript_add_stream (t, "c1", RK_STREAM_STDOUT, "region\nNorth    48213\nSouth    81387\n");
  chart_id = rk_transcript_add_artifact (t, "c1", &chart);
  answer_id = rk_transcript_add_answer (t, answer);

  handle = rk_workspace_open (ws, NULL);
  rk_trace_index_build_async (t, answer_id, handle, NULL, build_done_cb, &index);
  while (index == NULL)
    g_main_context_iteration (NULL, TRUE);
  spans = rk_trace_index_match (index, answer);
  g_assert_cmpuint (spans->len, ==, 3);
  /* computed: printed by the cell (and drawn in the chart; printed came first
   * in value and the later entry wins ties) */
  g_assert_cmpint (span_for (spans, answer, "48,213")->status, ==, RK_TRACE_COMPUTED);
  g_assert_true (span_for (spans, answer, "48,213")->entry_id == out_id ||
                 span_for (spans, answer, "48,213")->entry_id == chart_id);
  /* invented: in no output */
  g_assert_cmpint (span_for (spans, answer, "37.2%")->status, ==, RK_TRACE_NOT_COMPUTED);
  g_assert_cmpint (span_for (spans, answer, "129,600")->status, ==, RK_TRACE_NOT_COMPUTED);

  /* the chart alone still links it, to the bar */
  {
    g_autoptr(RkTraceIndex) only = rk_trace_index_new ();
    g_autoptr(GArray) s2 = NULL;
    g_autoptr(RkChart) c = rk_chart_new_from_file (spec, &error);

    g_assert_no_error (error);
    rk_trace_index_add_chart (only, chart_id, c);
    s2 = rk_trace_index_match (only, answer);
    g_assert_cmpuint (span_for (s2, answer, "48,213")->entry_id, ==, chart_id);
    g_assert_cmpint (span_for (s2, answer, "48,213")->row, ==, 0);
  }

  g_unlink (spec);
  g_rmdir (charts);
  g_rmdir (ws);
}

static void
test_markup (void)
{
  g_autoptr(RkTraceIndex) index = rk_trace_index_new ();
  const char *markup = "North sold <b>48,213</b> units &amp; 37.2% of <tt>12345</tt>; "
                       "<a href=\"https://x\">99.5</a> &#8212; 12 months";
  g_autofree char *out = NULL;
  guint computed = 0, not_computed = 0;

  rk_trace_index_add_value (index, 7, 48213, 0, 1);
  rk_trace_index_add_value (index, 8, 12345, -1, -1);
  out = rk_trace_mark_markup (index, markup, &computed, &not_computed);
  g_assert_nonnull (strstr (out, "<b><a href=\"reckon-trace:7:0:1\""));
  g_assert_nonnull (strstr (out, ">48,213</a></b>"));
  g_assert_nonnull (strstr (out, "<a href=\"reckon-trace:not-computed\""));
  g_assert_nonnull (strstr (out, "<span underline=\"error\">37.2%</span></a>"));
  /* code and existing links untouched; an entity's digits are no number */
  g_assert_nonnull (strstr (out, "<tt>12345</tt>"));
  g_assert_nonnull (strstr (out, "<a href=\"https://x\">99.5</a>"));
  g_assert_nonnull (strstr (out, "&#8212;"));
  g_assert_cmpuint (computed, ==, 1);
  g_assert_cmpuint (not_computed, ==, 2);   /* 37.2% and 12 */
  /* the result is valid markup */
  {
    g_autofree char *wrapped = g_strdup_printf ("<m>%s</m>", out);
    static const GMarkupParser parser = { 0 };
    GMarkupParseContext *ctx = g_markup_parse_context_new (&parser, 0, NULL, NULL);

    g_assert_true (g_markup_parse_context_parse (ctx, wrapped, -1, NULL));
    g_assert_true (g_markup_parse_context_end_parse (ctx, NULL));
    g_markup_parse_context_free (ctx);
  }
  /* unfinished markup is passed through */
  {
    g_autofree char *odd = rk_trace_mark_markup (index, "a < 48,213 and &amp", NULL, NULL);
    g_assert_true (g_str_has_prefix (odd, "a "));
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/rk/trace/tokens", test_tokens);
  g_test_add_func ("/rk/trace/hostile", test_hostile);
  g_test_add_func ("/rk/trace/match-rules", test_match_rules);
  g_test_add_func ("/rk/trace/conversation", test_conversation);
  g_test_add_func ("/rk/trace/markup", test_markup);

  return g_test_run ();
}
