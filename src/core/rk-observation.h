/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-observation.h — what one run of a cell tells the model: a compact,
 * bounded summary (output cut in the middle, table shape, dtypes and head,
 * figures by size, the error with the last traceback frames). */
#pragma once

#include <glib.h>

#include "rk-kernel-protocol.h"
#include "rk-workspace.h"

G_BEGIN_DECLS

/* Default budget of one observation, in bytes (about 1,500 tokens). */
#define RK_OBSERVATION_DEFAULT_BUDGET 6000

typedef struct _RkObservation RkObservation;

RkObservation *rk_observation_new        (RkWorkspace     *workspace);
void           rk_observation_free       (RkObservation   *self);

/* Records one event of the cell (stream, result, table, figure, chart,
 * file, error, done). Keeps at most a bounded amount of text. */
void           rk_observation_add        (RkObservation   *self,
                                          RkKernelEvent   *event);

gboolean       rk_observation_failed     (RkObservation   *self);
/* The error line ("ZeroDivisionError: division by zero"), or the reason the
 * kernel died; NULL when the cell did not fail. */
const char    *rk_observation_get_error  (RkObservation   *self);

/* The text for the model, at most @budget bytes (valid UTF-8). Tables are
 * read from the workspace through RkTable for their dtypes and first rows. */
char          *rk_observation_format     (RkObservation   *self,
                                          gsize            budget);

/* Cuts @text to at most @max bytes by dropping its middle, on UTF-8
 * boundaries, with a note of how much was cut. */
char          *rk_observation_cut_middle (const char      *text,
                                          gsize            max);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RkObservation, rk_observation_free)

G_END_DECLS
