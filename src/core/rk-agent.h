/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-agent.h — the interpreter loop shared by the CLI and the GUI: the model
 * writes code, the user approves, the sandbox runs it, the model sees what
 * happened, until it answers (docs/architecture.md section 1). */
#pragma once

#include <gio/gio.h>

#include "rk-kernel.h"
#include "rk-model-client.h"
#include "rk-session.h"
#include "rk-transcript.h"

G_BEGIN_DECLS

#define RK_AGENT_ERROR (rk_agent_error_quark ())

typedef enum
{
  RK_AGENT_ERROR_STEP_LIMIT,    /* the model took too many steps */
  RK_AGENT_ERROR_REPAIR_LIMIT,  /* the code kept failing */
  RK_AGENT_ERROR_BUSY,          /* a question is already being answered */
} RkAgentError;

typedef enum
{
  RK_APPROVAL_ASK,    /* every run waits for rk_agent_approve() */
  RK_APPROVAL_AUTO,   /* runs without asking */
  RK_APPROVAL_NEVER,  /* shows the code and stops */
} RkApprovalPolicy;

typedef enum
{
  RK_AGENT_DECISION_RUN,
  RK_AGENT_DECISION_EDIT,   /* run the code given to rk_agent_approve() */
  RK_AGENT_DECISION_SKIP,   /* do not run; the turn ends */
} RkAgentDecision;

/* Who wrote code run without a model turn. */
typedef enum
{
  RK_CODE_PROPOSED,  /* Reckon's (a one-click analysis): asked about as the model's is */
  RK_CODE_TYPED,     /* the user's own ("Run Python"): runs without a question */
} RkCodeOrigin;

typedef enum
{
  RK_AGENT_EVENT_TEXT_DELTA,       /* text */
  RK_AGENT_EVENT_REASONING_DELTA,  /* text */
  RK_AGENT_EVENT_CODE_PROPOSED,    /* cell_id, code; previous_code and diff for a revision */
  RK_AGENT_EVENT_APPROVAL_NEEDED,  /* cell_id, code, diff */
  RK_AGENT_EVENT_RUN_STARTED,      /* cell_id, code (as run) */
  RK_AGENT_EVENT_OUTPUT,           /* cell_id, kernel_event (STREAM or RESULT) */
  RK_AGENT_EVENT_TABLE,            /* cell_id, kernel_event */
  RK_AGENT_EVENT_FIGURE,           /* cell_id, kernel_event */
  RK_AGENT_EVENT_CHART,            /* cell_id, kernel_event */
  RK_AGENT_EVENT_FILE,             /* cell_id, kernel_event */
  RK_AGENT_EVENT_ERROR,            /* cell_id, text: one line; kernel_event (ERROR) or NULL */
  RK_AGENT_EVENT_RUN_FINISHED,     /* cell_id, kernel_event (DONE), text: observation sent back */
  RK_AGENT_EVENT_FINAL_ANSWER,     /* text */
} RkAgentEventType;

typedef struct
{
  RkAgentEventType  type;
  guint             step;
  const char       *cell_id;
  const char       *text;
  const char       *code;
  const char       *previous_code;
  const char       *diff;
  RkKernelEvent    *kernel_event;
} RkAgentEvent;

#define RK_TYPE_AGENT (rk_agent_get_type ())
G_DECLARE_FINAL_TYPE (RkAgent, rk_agent, RK, AGENT, GObject)

GQuark            rk_agent_error_quark        (void);

RkAgent          *rk_agent_new                (RkModelClient    *client,
                                               RkKernel         *kernel,
                                               RkTranscript     *transcript);
/* An agent that runs code on @session's current kernel: when the session
 * replaces its kernel (restart, expiry then restart) the agent follows.
 * Code cannot run while the session is expired or restarting (the turn
 * fails with RK_SESSION_ERROR_EXPIRED). If @transcript already holds a
 * conversation (a restored one), its questions and answers become the
 * model's history. */
RkAgent          *rk_agent_new_for_session    (RkModelClient    *client,
                                               RkSession        *session,
                                               RkTranscript     *transcript);
RkTranscript     *rk_agent_get_transcript     (RkAgent          *self);

void              rk_agent_set_policy         (RkAgent          *self,
                                               RkApprovalPolicy  policy);
RkApprovalPolicy  rk_agent_get_policy         (RkAgent          *self);
/* Defaults 8 and 3. */
void              rk_agent_set_max_steps      (RkAgent          *self,
                                               guint             steps);
void              rk_agent_set_max_repairs    (RkAgent          *self,
                                               guint             repairs);
/* Bytes of one observation sent back to the model (default 6000). */
void              rk_agent_set_observation_budget (RkAgent      *self,
                                               gsize             bytes);
/* What the model is told about the files in /workspace (see
 * rk_profiles_to_prompt()); NULL for none. */
void              rk_agent_set_files_context  (RkAgent          *self,
                                               const char       *context);
/* Whether the python tool is offered through the API (default TRUE); when
 * the server refuses tools the agent falls back to fenced code by itself. */
void              rk_agent_set_use_tools      (RkAgent          *self,
                                               gboolean          use_tools);

/* The system prompt for the current files context. */
char             *rk_agent_build_system_prompt (RkAgent         *self);

/* Answers one question, with the conversation so far. Completes with the
 * final answer, or an error (RK_MODEL_ERROR, RK_AGENT_ERROR, or
 * G_IO_ERROR_CANCELLED). Cancelling stops the model request and the
 * running cell at once; the conversation stays usable. */
void              rk_agent_ask_async          (RkAgent             *self,
                                               const char          *question,
                                               GCancellable        *cancellable,
                                               GAsyncReadyCallback  callback,
                                               gpointer             user_data);
/* After a reopen: code that was waiting for approval when the conversation
 * was closed (its last code entry, with no decision) waits again, and the
 * turn goes on from the decision as rk_agent_ask_async's would (finish it
 * with rk_agent_ask_finish). FALSE, and no callback, when nothing waits or
 * the policy does not ask. */
gboolean          rk_agent_resume_async       (RkAgent             *self,
                                               GCancellable        *cancellable,
                                               GAsyncReadyCallback  callback,
                                               gpointer             user_data);
char             *rk_agent_ask_finish         (RkAgent             *self,
                                               GAsyncResult        *result,
                                               GError             **error);

/* Code run without a model turn ("Run Python", a one-click analysis): it
 * goes through the same path as model code — a CODE entry, CODE_PROPOSED,
 * the approval policy (APPROVAL_NEEDED under RK_APPROVAL_ASK, except for
 * RK_CODE_TYPED: the user wrote it; RK_APPROVAL_NEVER still holds), RUN_STARTED,
 * outputs, RUN_FINISHED — and the model is told about it in the next
 * question. Completes once the run ended (whatever the code's own result:
 * the observation text is returned) or was skipped (a short sentence), or
 * with an error if it could not run or was cancelled. Busy like ask. */
void              rk_agent_run_code_async     (RkAgent             *self,
                                               const char          *code,
                                               RkCodeOrigin         origin,
                                               GCancellable        *cancellable,
                                               GAsyncReadyCallback  callback,
                                               gpointer             user_data);
char             *rk_agent_run_code_finish    (RkAgent             *self,
                                               GAsyncResult        *result,
                                               GError             **error);

/* Answers an APPROVAL_NEEDED event. @code: the edited code for EDIT. */
void              rk_agent_approve            (RkAgent          *self,
                                               RkAgentDecision   decision,
                                               const char       *code);

/* Signals:
 *   "event" (const RkAgentEvent *event): pointers valid during the emission.
 */

G_END_DECLS
