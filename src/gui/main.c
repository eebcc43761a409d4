/* SPDX-License-Identifier: GPL-3.0-or-later */
/* main.c — entry point of reckon, the GNOME app: translations, then the
 * single-instance RkApplication. */
#define G_LOG_DOMAIN "reckon"
#include "config.h"

#include <glib/gi18n.h>
#include <locale.h>

#include "rk-application.h"
#include "rk-util.h"

int
main (int   argc,
      char *argv[])
{
  g_autoptr(RkApplication) app = NULL;
  /* A build-tree run reads the catalogues meson compiled into BUILD/po. */
  g_autofree char *build_po = rk_build_root () != NULL ? g_build_filename (rk_build_root (), "po", NULL) : NULL;

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, build_po != NULL ? build_po : LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  app = rk_application_new ();
  return g_application_run (G_APPLICATION (app), argc, argv);
}
