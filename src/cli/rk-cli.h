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
};

/* chart: rk-cli-chart.c */
int rk_cli_chart (int argc, char **argv);

/* profile: rk-cli-profile.c */
int rk_cli_profile (int argc, char **argv);

G_END_DECLS
