/* rk-cli.h — the subcommands of reckon-cli. Each returns the process exit status. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Exit statuses shared by all subcommands. */
enum
{
  RK_CLI_EXIT_OK = 0,
  RK_CLI_EXIT_FAILURE = 1,
  RK_CLI_EXIT_USAGE = 2,
  /* Talking to a model server (ask, models). */
  RK_CLI_EXIT_UNREACHABLE = 3,
  RK_CLI_EXIT_MODEL_MISSING = 4,
  RK_CLI_EXIT_CANCELLED = 5,
  RK_CLI_EXIT_STEP_LIMIT = 6,
  RK_CLI_EXIT_MODEL_ERROR = 7,
  RK_CLI_EXIT_REPAIR_LIMIT = 8,
};

/* chart: rk-cli-chart.c */
int rk_cli_chart (int argc, char **argv);

/* profile: rk-cli-profile.c */
int rk_cli_profile (int argc, char **argv);

/* exec: rk-cli-exec.c */
int rk_cli_exec (int argc, char **argv);

/* models: rk-cli-models.c */
int rk_cli_models (int argc, char **argv);
/* The exit status for an RK_MODEL_ERROR (shared with ask). */
int rk_cli_exit_for_model_error (const GError *error);

/* table: rk-cli-table.c */
int rk_cli_table (int argc, char **argv);

/* ask: rk-cli-ask.c */
int rk_cli_ask (int argc, char **argv);

/* rk-cli-artifacts.c: copies the artifacts (RkKernelEvent: table, figure,
 * chart, file) out of @workspace into @out_dir, tables as CSV. Returns how
 * many could not be saved, each reported on stderr. */
guint rk_cli_save_artifacts (const char *workspace,
                             GPtrArray  *artifacts,
                             const char *out_dir);

G_END_DECLS
