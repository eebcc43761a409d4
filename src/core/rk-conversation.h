/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-conversation.h — one chat, the object a window binds to: its transcript
 * (autosaved), its session (workspace, kernel, expiry), its agent, and the
 * profiles of the files added to it. GTK-free; the CLI and tests use it too. */
#pragma once

#include <gio/gio.h>

#include "rk-agent.h"
#include "rk-conversation-file.h"
#include "rk-model-client.h"
#include "rk-profile.h"
#include "rk-session.h"
#include "rk-transcript.h"

G_BEGIN_DECLS

#define RK_TYPE_CONVERSATION (rk_conversation_get_type ())
G_DECLARE_FINAL_TYPE (RkConversation, rk_conversation, RK, CONVERSATION, GObject)

/* A new conversation: a fresh session whose kernel starts at once (from
 * the main loop, so settings given right after this call apply to it),
 * ready before the first question. It lives in memory only; one that is
 * saved as it grows comes from rk_conversation_store_create(). @client may
 * have no reachable server: files, profiles and typed code work without
 * one. */
RkConversation *rk_conversation_new            (RkModelClient        *client,
                                                GError              **error);

const char     *rk_conversation_get_id         (RkConversation *self);
RkTranscript   *rk_conversation_get_transcript (RkConversation *self);
RkSession      *rk_conversation_get_session    (RkConversation *self);
RkAgent        *rk_conversation_get_agent      (RkConversation *self);
RkModelClient  *rk_conversation_get_client     (RkConversation *self);

/* -- settings (given by the caller; core reads no settings of its own) -- */
/* Reads approval-policy, memory-limit and disk-limit (MiB), cell-time-limit (s),
 * prompt-samples and idle-expiry-seconds (or idle-expiry, in minutes) from @settings (schema io.github.reckon.Reckon) and
 * follows their changes; keys the schema lacks are left alone. NULL stops
 * following. The memory and disk limits apply from the next kernel start. */
void            rk_conversation_set_settings   (RkConversation   *self,
                                                GSettings        *settings);
void            rk_conversation_set_kernel_limits (RkConversation *self,
                                                const RkKernelLimits *limits);
/* Sample values per column the model is told about the files (default
 * RK_PROMPT_SAMPLES_DEFAULT, at most RK_PROMPT_SAMPLES_MAX; 0: statistics
 * only). Applies from the next request. */
void            rk_conversation_set_prompt_samples (RkConversation *self,
                                                guint             samples);
/* Idle seconds before the session expires (0: never). */
void            rk_conversation_set_idle_timeout (RkConversation *self,
                                                guint             seconds);
/* The policy when "auto-approve" is off (default RK_APPROVAL_ASK). */
void            rk_conversation_set_approval_policy (RkConversation *self,
                                                RkApprovalPolicy  policy);

/* -- files -- */
/* Each file gets an RkConversationFile in rk_conversation_get_files() and
 * an RK_ENTRY_ATTACHMENT entry at once (name: its name in the workspace,
 * title: its original base name), is copied into the workspace, then
 * profiled in the sandbox. The file's properties follow (state, progress,
 * estimate, profile); the profile is also stored in the entry
 * (rk_transcript_set_attachment_profile) and the agent is told about the
 * files. */
void            rk_conversation_add_files      (RkConversation  *self,
                                                GFile          **files,
                                                guint            n_files);
/* The files (RkConversationFile), in the order added; a removed file
 * leaves the list at once. Borrowed. */
GListModel     *rk_conversation_get_files      (RkConversation *self);
/* The file whose workspace name is @name, or NULL. Borrowed. */
RkConversationFile *rk_conversation_lookup_file (RkConversation *self,
                                                const char     *name);
/* TRUE while any file is being copied or profiled. */
gboolean        rk_conversation_is_profiling   (RkConversation *self);
/* The profiles known so far (borrowed), in the order the files were added. */
GPtrArray      *rk_conversation_dup_profiles   (RkConversation *self);
/* Stops copying or profiling @name; its profile becomes an error sentence. */
void            rk_conversation_cancel_profile (RkConversation *self,
                                                const char     *name);

/* Reads @name again with @options (e.g. from rk_file_profile_get_alternative):
 * its card shows it being read, then the new profile, which reckon.load
 * follows from then on. FALSE while it is being read, or if there is no
 * such file. */
gboolean        rk_conversation_reprofile      (RkConversation          *self,
                                                const char              *name,
                                                const RkProfileOptions  *options);
/* Takes @name out of the conversation: its file leaves
 * rk_conversation_get_files() (its state turns REMOVED), and its attachment
 * entry, its copy in the workspace (rk_session_remove_file, once work on it
 * stopped) and what the model is told about it go. The original file is never touched; add it again to undo. Returns
 * the original's path (for that), or NULL if there is no such file. */
char           *rk_conversation_remove_file    (RkConversation *self,
                                                const char     *name);

/* -- questions and typed code -- */
/* Asks the model. Fails with one sentence (the caller keeps the question);
 * RK_AGENT_ERROR_BUSY while another turn runs. */
void            rk_conversation_ask_async      (RkConversation      *self,
                                                const char          *question,
                                                GCancellable        *cancellable,
                                                GAsyncReadyCallback  callback,
                                                gpointer             user_data);
char           *rk_conversation_ask_finish     (RkConversation  *self,
                                                GAsyncResult    *result,
                                                GError         **error);
/* "Run Python" (RK_CODE_TYPED: runs at once) or a one-click analysis
 * (RK_CODE_PROPOSED: asked about), through the rendering path of model code
 * (see rk_agent_run_code_async); no model needed. Returns what the run
 * printed, as the model would see it. */
void            rk_conversation_run_code_async (RkConversation      *self,
                                                const char          *code,
                                                RkCodeOrigin         origin,
                                                GCancellable        *cancellable,
                                                GAsyncReadyCallback  callback,
                                                gpointer             user_data);
char           *rk_conversation_run_code_finish (RkConversation *self,
                                                GAsyncResult    *result,
                                                GError         **error);
/* Asks the last question again (after an error); the outcome shows in the
 * transcript. Does nothing while busy or before any question. */
void            rk_conversation_retry          (RkConversation *self);
/* Cancels the model request, or interrupts the running cell, or ends a
 * wait for approval. The conversation stays usable. */
void            rk_conversation_stop           (RkConversation *self);
/* Answers the pending approval. @code: the edited code for EDIT. */
void            rk_conversation_approve        (RkConversation  *self,
                                                RkAgentDecision  decision,
                                                const char      *code);
/* Runs the cell @cell_id again, as code the user ran (its approval is the
 * call itself), after a limit was raised. With @fresh_kernel the kernel is
 * restarted first, so new memory and disk limits hold, and the code that
 * ran before the cell is run again quietly. Returns what the run printed. */
void            rk_conversation_rerun_cell_async  (RkConversation      *self,
                                                   const char          *cell_id,
                                                   gboolean             fresh_kernel,
                                                   GCancellable        *cancellable,
                                                   GAsyncReadyCallback  callback,
                                                   gpointer             user_data);
char           *rk_conversation_rerun_cell_finish (RkConversation  *self,
                                                   GAsyncResult    *result,
                                                   GError         **error);
/* The last question asked, or NULL. */
const char     *rk_conversation_get_last_question (RkConversation *self);

/* -- session -- */
/* "Restart session": a fresh workspace and kernel, the original files
 * imported again and, when @replay, the code that ran replayed in order
 * (rk_transcript_get_run_code). Works on an expired session and a live one. */
void            rk_conversation_restart_async  (RkConversation      *self,
                                                gboolean             replay,
                                                GCancellable        *cancellable,
                                                GAsyncReadyCallback  callback,
                                                gpointer             user_data);
gboolean        rk_conversation_restart_finish (RkConversation  *self,
                                                GAsyncResult    *result,
                                                GError         **error);
/* "Keep alive" of the expiry banner. */
void            rk_conversation_keep_alive     (RkConversation *self);

/* -- properties (also as getters) -- */
gboolean        rk_conversation_get_busy             (RkConversation *self);
const char     *rk_conversation_get_pending_approval (RkConversation *self);
const char     *rk_conversation_get_running_cell     (RkConversation *self);
gint64          rk_conversation_get_cell_started     (RkConversation *self);
gboolean        rk_conversation_get_auto_approve     (RkConversation *self);
void            rk_conversation_set_auto_approve     (RkConversation *self,
                                                      gboolean        auto_approve);
const char     *rk_conversation_get_title            (RkConversation *self);
/* A title set here is kept; otherwise it follows the first question (or
 * the first file added). */
void            rk_conversation_set_title            (RkConversation *self,
                                                      const char     *title);
/* The title uncut, for an export: the one the user set, or the whole first
 * line of the first question (the "title" property is cut for lists). */
char           *rk_conversation_dup_full_title       (RkConversation *self);
gboolean        rk_conversation_get_expired          (RkConversation *self);
const char     *rk_conversation_get_kernel_error     (RkConversation *self);

/* Writes everything unsaved now (also done when the conversation is
 * disposed) and stops its background work (profiling, a running turn). */
void            rk_conversation_close          (RkConversation *self);

/* Properties (all notify on change):
 *   "busy"             (gboolean)  a question or typed code is being handled
 *   "pending-approval" (string)    cell id waiting for Run/Edit/Skip, or NULL
 *   "running-cell"     (string)    cell id running now, or NULL
 *   "cell-started"     (gint64)    g_get_monotonic_time() when it started
 *   "auto-approve"     (gboolean, read-write) "Run without asking in this conversation"
 *   "title"            (string, read-write)
 *   "expired"          (gboolean)  the session expired; restart to work on
 *   "kernel-error"     (string)    why the kernel could not start (one sentence), or NULL
 */

G_END_DECLS
