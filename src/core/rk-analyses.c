/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-analyses.c — the code of the one-click analyses. It is meant to be
 * read: short, commented, plain pandas; file and column names (which come
 * from outside) only ever appear as escaped Python string literals. */
#define G_LOG_DOMAIN "rk-analyses"
#include "config.h"

#include "rk-analyses.h"

#include <glib/gi18n-lib.h>
#include <string.h>

static const char *ids[RK_ANALYSIS_N] = {
  "summary", "distributions", "category-counts", "correlation", "missing", "group-by",
};

const char *
rk_analysis_get_title (RkAnalysis analysis)
{
  switch (analysis)
    {
    case RK_ANALYSIS_SUMMARY:
      return _("Summary statistics");
    case RK_ANALYSIS_DISTRIBUTIONS:
      return _("Distribution of each number column");
    case RK_ANALYSIS_CATEGORY_COUNTS:
      return _("Counts per category");
    case RK_ANALYSIS_CORRELATION:
      return _("Correlation matrix");
    case RK_ANALYSIS_MISSING:
      return _("Missing values");
    case RK_ANALYSIS_GROUP_BY:
      return _("Group by…");
    case RK_ANALYSIS_N:
    default:
      return "";
    }
}

const char *
rk_analysis_get_id (RkAnalysis analysis)
{
  g_return_val_if_fail (analysis < RK_ANALYSIS_N, NULL);
  return ids[analysis];
}

gboolean
rk_analysis_from_id (const char *id,
                     RkAnalysis *analysis)
{
  for (guint i = 0; id != NULL && i < RK_ANALYSIS_N; i++)
    if (g_str_equal (id, ids[i]))
      {
        *analysis = i;
        return TRUE;
      }
  return FALSE;
}

static gboolean
is_number (RkColumnType type)
{
  return type == RK_COLUMN_INTEGER || type == RK_COLUMN_FLOAT;
}

static gboolean
is_category (RkColumnType type)
{
  return type == RK_COLUMN_TEXT || type == RK_COLUMN_BOOLEAN || type == RK_COLUMN_MIXED;
}

gboolean
rk_analysis_is_useful (RkAnalysis            analysis,
                       const RkTableProfile *table)
{
  guint numbers = 0, categories = 0;

  if (table == NULL || table->columns == NULL)
    return TRUE;
  for (guint i = 0; i < table->columns->len; i++)
    {
      const RkColumnProfile *c = g_ptr_array_index (table->columns, i);

      numbers += is_number (c->type);
      categories += is_category (c->type);
    }
  switch (analysis)
    {
    case RK_ANALYSIS_DISTRIBUTIONS:
      return numbers > 0;
    case RK_ANALYSIS_CORRELATION:
      return numbers > 1;
    case RK_ANALYSIS_CATEGORY_COUNTS:
      return categories > 0;
    case RK_ANALYSIS_GROUP_BY:
      return table->columns->len > 1;
    case RK_ANALYSIS_SUMMARY:
    case RK_ANALYSIS_MISSING:
    case RK_ANALYSIS_N:
    default:
      return table->columns->len > 0;
    }
}

char *
rk_analysis_py_string (const char *text)
{
  GString *s = g_string_new ("'");
  const char *p, *end;

  if (text == NULL)
    text = "";
  end = text + strlen (text);
  for (p = text; p < end;)
    {
      gunichar c = g_utf8_get_char_validated (p, end - p);

      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          /* not UTF-8: the byte, escaped */
          g_string_append_printf (s, "\\x%02x", (guchar) *p);
          p++;
          continue;
        }
      p = g_utf8_next_char (p);
      if (c == '\\' || c == '\'')
        g_string_append_printf (s, "\\%c", (char) c);
      else if (c == '\n')
        g_string_append (s, "\\n");
      else if (c == '\t')
        g_string_append (s, "\\t");
      else if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0))
        g_string_append_printf (s, "\\x%02x", c);
      else if ((c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) ||
               c == 0x200e || c == 0x200f || c == 0x061c || c == 0x2028 || c == 0x2029 ||
               c == 0xfeff)
        g_string_append_printf (s, "\\u%04x", c);
      else
        g_string_append_unichar (s, c);
    }
  g_string_append_c (s, '\'');
  return g_string_free (s, FALSE);
}

/* "df = reckon.load('x.csv')" with the sheet when there is one. */
static void
append_load (GString    *code,
             const char *file,
             const char *sheet)
{
  g_autofree char *name = rk_analysis_py_string (file);

  if (sheet != NULL)
    {
      g_autofree char *s = rk_analysis_py_string (sheet);
      g_string_append_printf (code, "df = reckon.load(%s, sheet=%s)\n", name, s);
    }
  else
    g_string_append_printf (code, "df = reckon.load(%s)\n", name);
}

/* A translated sentence as comment lines. */
static void
append_comment (GString    *code,
                const char *text)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    g_string_append_printf (code, "# %s\n", lines[i]);
}

static const char *
aggregate_method (RkAggregate aggregate)
{
  switch (aggregate)
    {
    case RK_AGGREGATE_SUM:
      return "sum";
    case RK_AGGREGATE_COUNT:
      return "count";
    case RK_AGGREGATE_MEDIAN:
      return "median";
    case RK_AGGREGATE_MIN:
      return "min";
    case RK_AGGREGATE_MAX:
      return "max";
    case RK_AGGREGATE_MEAN:
    default:
      return "mean";
    }
}

static void
append_group_by (GString         *code,
                 const RkGroupBy *g)
{
  g_autofree char *group = rk_analysis_py_string (g->group_column);
  g_autofree char *value = g->value_column != NULL ? rk_analysis_py_string (g->value_column) : NULL;
  const char *method = aggregate_method (g->aggregate);

  g_string_append_printf (code, "group = %s\n", group);
  if (value == NULL)
    g_string_append (code,
                     "result = reckon.compute(df.groupby(group, dropna=False).size()).sort_values(ascending=False)\n"
                     "result.name = 'rows'\n"
                     "reckon.chart(result.head(50), kind='bar', title=f'Rows per {group}', xlabel=str(group), ylabel='rows')\n");
  else
    {
      g_string_append_printf (code, "value = %s\n", value);
      g_string_append_printf (code,
                              "result = reckon.compute(df.groupby(group, dropna=False)[value].%s()).sort_values(ascending=False)\n"
                              "reckon.chart(result.head(50), kind='bar', title=f'%s of {value} by {group}',\n"
                              "             xlabel=str(group), ylabel=str(value))\n",
                              method, method);
    }
  g_string_append (code, "grouped = result.reset_index()\ngrouped\n");
}

char *
rk_analysis_build_code (RkAnalysis       analysis,
                        const char      *file_name,
                        const char      *sheet,
                        const RkGroupBy *group_by)
{
  g_autofree char *quoted = NULL;
  g_autofree char *about = NULL;
  GString *code;

  g_return_val_if_fail (analysis < RK_ANALYSIS_N, NULL);
  g_return_val_if_fail (file_name != NULL, NULL);
  g_return_val_if_fail (analysis != RK_ANALYSIS_GROUP_BY ||
                        (group_by != NULL && group_by->group_column != NULL), NULL);

  quoted = rk_analysis_py_string (file_name);
  code = g_string_new (NULL);
  switch (analysis)
    {
    case RK_ANALYSIS_SUMMARY:
      /* Translators: comment in generated Python; %s is a quoted file name */
      about = g_strdup_printf (_("Summary statistics of %s: for each number column, how many\n"
                                 "values it has, their mean, standard deviation, minimum,\n"
                                 "quartiles and maximum."), quoted);
      append_comment (code, about);
      append_load (code, file_name, sheet);
      /* A result left as a bare name is shown under that name. */
      g_string_append (code, "summary = reckon.compute(df.describe())\nsummary\n");
      break;

    case RK_ANALYSIS_DISTRIBUTIONS:
      about = g_strdup_printf (_("The distribution of each number column of %s, as a histogram."), quoted);
      append_comment (code, about);
      append_load (code, file_name, sheet);
      g_string_append (code,
                       "numbers = df.select_dtypes('number').columns\n"
                       "for column in numbers:\n"
                       "    # a lazy (Dask) table: about 200,000 values drawn from all its parts\n"
                       "    values = reckon.compute(df[column].dropna(), sample=200000)\n"
                       "    reckon.chart(values, kind='histogram',\n"
                       "                 title=f'Distribution of {column}', xlabel=str(column), ylabel='rows')\n"
                       "print(len(numbers), 'number columns')\n");
      break;

    case RK_ANALYSIS_CATEGORY_COUNTS:
      about = g_strdup_printf (_("How often each value occurs in the text columns of %s\n"
                                 "(the 20 most frequent of each; empty cells are counted too)."), quoted);
      append_comment (code, about);
      append_load (code, file_name, sheet);
      g_string_append (code,
                       "for column in df.select_dtypes(exclude=['number', 'datetime']).columns:\n"
                       "    counts = reckon.compute(df[column].value_counts(dropna=False)).head(20)\n"
                       "    counts.index = counts.index.astype(str)\n"
                       "    reckon.show(counts.rename('rows').rename_axis(column).reset_index(), name=f'Counts of {column}')\n"
                       "    reckon.chart(counts, kind='bar', title=f'Counts of {column}', xlabel=str(column), ylabel='rows')\n");
      break;

    case RK_ANALYSIS_CORRELATION:
      about = g_strdup_printf (_("How closely the number columns of %s move together\n"
                                 "(Pearson correlation: 1 together, -1 opposite, 0 unrelated)."), quoted);
      append_comment (code, about);
      g_string_append (code, "import matplotlib.pyplot as plt\n\n");
      append_load (code, file_name, sheet);
      g_string_append (code,
                       "corr = reckon.compute(df.select_dtypes('number').corr()).round(3)\n"
                       "fig, ax = plt.subplots(figsize=(6, 5))\n"
                       "image = ax.imshow(corr, cmap='RdBu_r', vmin=-1, vmax=1)\n"
                       "ax.set_xticks(range(len(corr.columns)), corr.columns, rotation=45, ha='right')\n"
                       "ax.set_yticks(range(len(corr.columns)), corr.columns)\n"
                       "fig.colorbar(image, ax=ax)\n"
                       "ax.set_title('Correlation')\n"
                       "fig.tight_layout()\n"
                       "corr\n");
      break;

    case RK_ANALYSIS_MISSING:
      about = g_strdup_printf (_("Missing values in each column of %s: how many, and what share of the rows."), quoted);
      append_comment (code, about);
      g_string_append (code, "import pandas as pd\n\n");
      append_load (code, file_name, sheet);
      g_string_append (code,
                       "missing = reckon.compute(df.isna().sum())\n"
                       "share = (missing / max(len(df), 1) * 100).round(1)\n"
                       "reckon.chart(missing, kind='bar', title='Missing values per column', ylabel='rows')\n"
                       "missing_values = pd.DataFrame({'missing': missing, 'percent': share})\n"
                       "missing_values\n");
      break;

    case RK_ANALYSIS_GROUP_BY:
      {
        g_autofree char *group = rk_analysis_py_string (group_by->group_column);
        g_autofree char *value = group_by->value_column ? rk_analysis_py_string (group_by->value_column) : NULL;

        if (value != NULL)
          /* Translators: comment in generated Python: "The mean of 'units' for each 'region' in 'sales.csv', largest first." */
          about = g_strdup_printf (_("The %s of %s for each %s in %s, largest first."),
                                   aggregate_method (group_by->aggregate), value, group, quoted);
        else
          about = g_strdup_printf (_("The number of rows for each %s in %s, largest first."), group, quoted);
        append_comment (code, about);
        append_load (code, file_name, sheet);
        append_group_by (code, group_by);
      }
      break;

    case RK_ANALYSIS_N:
    default:
      g_assert_not_reached ();
    }
  return g_string_free (code, FALSE);
}
