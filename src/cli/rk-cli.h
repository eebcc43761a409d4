/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-cli.h — the subcommands of reckon-cli. Each returns the process exit status. */
#pragma once

#include <glib.h>
#include <stdio.h>

#include "rk-model-client.h"
#include "rk-session.h"

G_BEGIN_DECLS

/* One set of exit statuses for every subcommand (documented in --help and
 * docs/cli.md). A command returns only those that apply to it. */
typedef enum
{
  RK_CLI_EXIT_OK = 0,
  RK_CLI_EXIT_FAILURE = 1,        /* the work itself failed (a cell's error, a file not profiled) */
  RK_CLI_EXIT_USAGE = 2,          /* wrong usage, or a named file or --out folder unusable */
  /* Talking to a model server (ask, models). */
  RK_CLI_EXIT_UNREACHABLE = 3,
  RK_CLI_EXIT_MODEL_MISSING = 4,
  RK_CLI_EXIT_CANCELLED = 5,      /* Ctrl+C */
  RK_CLI_EXIT_STEP_LIMIT = 6,
  RK_CLI_EXIT_MODEL_ERROR = 7,
  RK_CLI_EXIT_REPAIR_LIMIT = 8,
  RK_CLI_EXIT_DECLINED = 9,       /* "n" or end of input at the approval prompt */
  /* The sandbox and the kernel (ask, exec, profile). */
  RK_CLI_EXIT_SANDBOX = 10,       /* the sandbox could not be started */
  RK_CLI_EXIT_KERNEL_DIED = 11,   /* a sandbox limit or a crash ended the kernel */
  RK_CLI_EXIT_TIME_LIMIT = 12,    /* exec --timeout */
  RK_CLI_EXIT_NOT_SAVED = 13,     /* a result could not be saved in --out */
} RkCliExit;

/* rk-cli-util.c: what every subcommand shares. */

/* Sets @context's description to the exit statuses of one command: @failure
 * says what 1 means for it (NULL: the command has no status 1), then the
 * other statuses, ending with -1. */
void        rk_cli_set_exit_help       (GOptionContext *context,
                                        const char     *failure,
                                        ...);
/* Parses the options of `reckon-cli @command`; a bad one is named in one
 * line on stderr, and the command exits with RK_CLI_EXIT_USAGE. */
gboolean    rk_cli_parse_options       (GOptionContext  *context,
                                        const char      *command,
                                        int             *argc,
                                        char          ***argv);
/* The whole table, for reckon-cli --help. */
char       *rk_cli_exit_table          (void);

/* Before a session starts: the sandbox and the kernel are there. Fails with
 * RK_KERNEL_ERROR_SPAWN, naming what is missing and where it was looked
 * for. */
gboolean    rk_cli_check_sandbox       (GError        **error);
/* A session for exec and profile, its idle expiry off, its kernel
 * under @limits (NULL: the sandbox's defaults); fails as
 * rk_cli_check_sandbox(). */
RkSession  *rk_cli_session_new         (const RkKernelLimits *limits,
                                        GError        **error);
/* A command waits for each call it makes: the callback keeps the call's
 * result in *@user_data (a GAsyncResult *, NULL before; unref it after),
 * and rk_cli_wait() runs the main context until it is there. */
void        rk_cli_keep_result_cb      (GObject        *source,
                                        GAsyncResult   *result,
                                        gpointer        user_data);
void        rk_cli_wait                (GAsyncResult  **result);
/* Copies @path into @session (waiting for it); returns its name there. */
char       *rk_cli_session_add_file    (RkSession      *session,
                                        const char     *path,
                                        GError        **error);
/* Every line reckon-cli prints goes through here: the whole line is
 * formatted, then sanitised (rk_text_sanitize_for_terminal: no escape
 * sequences, C0/C1 controls or bidi overrides; newlines and tabs stay), so
 * a name or a message that a cell or a server chose reaches the terminal
 * as plain text wherever it is put in a line. */
void        rk_cli_print               (FILE           *out,
                                        const char     *format,
                                        ...) G_GNUC_PRINTF (2, 3);
/* A failure: its line (as rk_cli_print) on stderr; returns @status, the
 * command's exit status. */
int         rk_cli_fail                (int             status,
                                        const char     *format,
                                        ...) G_GNUC_PRINTF (2, 3);
/* Text from the sandbox or a model, without control characters or escape
 * sequences (rk_text_sanitize_for_terminal). */
void        rk_cli_print_untrusted     (FILE           *out,
                                        const char     *text);
/* The same for a name or title on one line; free the result. */
char       *rk_cli_name                (const char     *text);
/* One JSON document (valid UTF-8) and a newline on stdout, with bidi
 * controls, DEL and C1 controls written as \uXXXX escapes. */
void        rk_cli_print_json          (const char     *json);
/* Before anything runs: --out names a folder that exists or can be made,
 * and can be written. */
gboolean    rk_cli_check_out_dir       (const char     *out_dir,
                                        GError        **error);
/* The exit status for a model server error (RK_MODEL_ERROR, or cancelled). */
int         rk_cli_exit_for_model_error (const GError  *error);
/* What ask and models try when no --endpoint is given. */
extern const char * const rk_cli_default_endpoints[];
/* --api: auto (also when @api is NULL), openai or ollama; fails with one
 * sentence naming the choices. */
gboolean    rk_cli_parse_api           (const char     *api,
                                        RkModelApi     *out,
                                        GError        **error);
/* A client for --endpoint (NULL: rk_cli_default_endpoints in turn), @api
 * and --allow-remote, with the API key from $RECKON_API_KEY if set. */
RkModelClient *rk_cli_model_client_new (const char     *endpoint,
                                        RkModelApi      api,
                                        gboolean        allow_remote);
/* The sentence for a model server error, with the CLI's own hints
 * (--endpoint, --allow-remote, --api auto, RECKON_API_KEY) where the core's
 * message points at the window's preferences. @endpoint is --endpoint. */
char       *rk_cli_model_error_message (const GError   *error,
                                        const char     *endpoint,
                                        RkModelApi      api);
/* --memory SIZE, --disk SIZE and --timeout SECONDS of ask and exec, as
 * given (NULL: not given). */
typedef struct
{
  char *memory;
  char *disk;
  char *timeout;
} RkCliLimitOptions;

void        rk_cli_limit_options_clear (RkCliLimitOptions *options);
/* Adds --memory, --disk and --timeout (with @timeout_short as its short
 * name, or 0) to @context's main options, filling @options. */
void        rk_cli_add_limit_options   (GOptionContext    *context,
                                        RkCliLimitOptions *options,
                                        char               timeout_short);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (RkCliLimitOptions, rk_cli_limit_options_clear)
/* Parses @options once into @limits, the sandbox's defaults where one is
 * not given; a bad value fails with one sentence naming the option. */
gboolean    rk_cli_limits_parse        (const RkCliLimitOptions *options,
                                        RkKernelLimits          *limits,
                                        GError                 **error);
/* The line for a cell that reached @limit (a kernel event's limit) under
 * @limits: rk_sandbox_limit_cli_sentence with the value in force. NULL for
 * a limit no flag raises. */
char       *rk_cli_limit_sentence      (const RkKernelLimits    *limits,
                                        RkSandboxLimit           limit);
/* How many results of each kind a run has shown. */
typedef struct
{
  guint tables, figures, charts;
} RkCliResultCount;
/* A table, figure or chart event as the user knows it, never by its path
 * in the workspace: "table “sales”: 12 rows × 3 columns", "figure 2:
 * 640×480", "chart 1" (numbered in @count, which it advances); NULL for
 * any other event. Free the result. */
char       *rk_cli_result_label        (RkCliResultCount    *count,
                                        const RkKernelEvent *ev);
/* On stderr: @n_results results made without --out are gone; how to keep them. */
void        rk_cli_hint_out            (guint           n_results);

/* chart: rk-cli-chart.c */
int rk_cli_chart (int argc, char **argv);

/* profile: rk-cli-profile.c */
int rk_cli_profile (int argc, char **argv);

/* exec: rk-cli-exec.c */
int rk_cli_exec (int argc, char **argv);

/* models: rk-cli-models.c */
int rk_cli_models (int argc, char **argv);

/* table: rk-cli-table.c */
int rk_cli_table (int argc, char **argv);

/* ask: rk-cli-ask.c */
int rk_cli_ask (int argc, char **argv);

/* export: rk-cli-export.c */
int rk_cli_export (int argc, char **argv);

/* rk-cli-artifacts.c: copies the session's artifacts out of its workspace
 * into @out_dir: tables as CSV and .rkt, figures as figure-N.png, charts
 * drawn to PNG beside their spec, files in their own folders. Returns how
 * many could not be saved, each reported on stderr. */
guint rk_cli_save_artifacts (RkSession  *session,
                             const char *out_dir);

G_END_DECLS
