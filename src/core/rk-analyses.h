/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-analyses.h — one-click analyses of an added file, with no model: each
 * is readable Python (reckon.load, pandas, reckon.chart) that goes through the
 * same approval and rendering path as any cell. */
#pragma once

#include <glib.h>

#include "rk-profile.h"

G_BEGIN_DECLS

typedef enum
{
  RK_ANALYSIS_SUMMARY,          /* count, mean, std, min, quartiles, max (describe) */
  RK_ANALYSIS_DISTRIBUTIONS,    /* a histogram of each numeric column */
  RK_ANALYSIS_CATEGORY_COUNTS,  /* how often each value of each text column occurs */
  RK_ANALYSIS_CORRELATION,      /* correlation matrix of the numeric columns */
  RK_ANALYSIS_MISSING,          /* missing values per column */
  RK_ANALYSIS_GROUP_BY,         /* a value aggregated per group, with a chart */
  RK_ANALYSIS_N
} RkAnalysis;

typedef enum
{
  RK_AGGREGATE_MEAN,
  RK_AGGREGATE_SUM,
  RK_AGGREGATE_COUNT,
  RK_AGGREGATE_MEDIAN,
  RK_AGGREGATE_MIN,
  RK_AGGREGATE_MAX,
} RkAggregate;

/* What a group-by needs from the user. */
typedef struct
{
  const char  *group_column;
  const char  *value_column;   /* NULL: count the rows of each group */
  RkAggregate  aggregate;
} RkGroupBy;

/* "Summary statistics", … (translated), and the action name used by the
 * file card's menu: "summary", "distributions", "category-counts",
 * "correlation", "missing", "group-by". */
const char *rk_analysis_get_title   (RkAnalysis        analysis);
const char *rk_analysis_get_id      (RkAnalysis        analysis);
gboolean    rk_analysis_from_id     (const char       *id,
                                     RkAnalysis       *analysis);

/* Whether @analysis has something to work on in @table (a profiled table of
 * the file): numeric columns for distributions and correlation (two), text
 * columns for counts. Unknown profiles (NULL) allow everything. */
gboolean    rk_analysis_is_useful   (RkAnalysis        analysis,
                                     const RkTableProfile *table);

/* The code for @analysis of the workspace file @file_name (@sheet: a
 * workbook's sheet, or NULL). @group_by is required for RK_ANALYSIS_GROUP_BY
 * and ignored otherwise. Names become Python string literals with every
 * control or bidi character escaped, so the code shows what it does. */
char       *rk_analysis_build_code  (RkAnalysis        analysis,
                                     const char       *file_name,
                                     const char       *sheet,
                                     const RkGroupBy  *group_by);

/* A Python string literal for @text ('...'). */
char       *rk_analysis_py_string   (const char       *text);

G_END_DECLS
