/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-report.h — a conversation laid out for paper: its questions, answers,
 * tables, charts and figures, flowed onto pages with Pango and Cairo. */
#pragma once

#include <cairo.h>
#include <pango/pango.h>

#include "rk-transcript.h"
#include "rk-workspace.h"

G_BEGIN_DECLS

#define RK_TYPE_REPORT (rk_report_get_type ())
G_DECLARE_FINAL_TYPE (RkReport, rk_report, RK, REPORT, GObject)

/* Copies what the report shows of @transcript (call it where the
 * transcript lives); the results stay beneath @workspace (NULL: the text
 * only) until rk_report_load(). An empty @title: "Reckon Report". */
RkReport   *rk_report_new       (RkTranscript *transcript,
                                 RkWorkspace  *workspace,
                                 const char   *title);
const char *rk_report_get_title (RkReport     *self);
/* Reads the tables, chart specs and figures, with size limits; blocking,
 * so for a thread. What cannot be read keeps its caption only. */
void        rk_report_load      (RkReport     *self,
                                 GCancellable *cancellable);
/* Flows the report onto pages of @width × @height points, laid out in
 * @context (the print context's, for the printer's resolution); returns
 * how many pages. Call again for another page size. */
guint       rk_report_paginate  (RkReport     *self,
                                 PangoContext *context,
                                 double        width,
                                 double        height);
/* Draws page @page (from 0) of the last rk_report_paginate() on @cr. */
void        rk_report_draw_page (RkReport     *self,
                                 cairo_t      *cr,
                                 guint         page);

G_END_DECLS
