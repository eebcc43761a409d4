/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-util.h — small helpers shared by libreckon-core: where the sandbox and
 * kernel live, and the error domain for bad outside bytes. */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define RK_PARSE_ERROR (rk_parse_error_quark ())

/* Errors of the parsers of outside bytes (kernel protocol, model streams,
 * table files, chart specs). */
typedef enum
{
  RK_PARSE_ERROR_TOO_LARGE,
  RK_PARSE_ERROR_MALFORMED,
  RK_PARSE_ERROR_UNSUPPORTED,
} RkParseError;

GQuark       rk_parse_error_quark   (void);

/* Path of reckon-sandbox: $RECKON_SANDBOX when set (tests use it), else
 * the build tree's when the running program lies beneath the build root,
 * else the installed one. No variable needs to be set by hand. */
const char  *rk_sandbox_path        (void);
/* Folder of the Python kernel: $RECKON_KERNEL_DIR when set, else the
 * source tree's sandbox/kernel for a build-tree program, else the installed one. */
const char  *rk_kernel_dir          (void);
/* The meson build root when the running program lies beneath it (a
 * build-tree run: its GSettings schema, sandbox and kernel are there), else
 * NULL (installed). */
const char  *rk_build_root          (void);
/* Checks that reckon-sandbox and the kernel are there; otherwise fails with
 * one sentence (G_IO_ERROR_NOT_FOUND) naming what is missing and every
 * place it was looked for, for the CLI and the window to show. */
gboolean     rk_check_sandbox_parts (GError    **error);
/* The Python interpreter the kernel runs: $RECKON_PYTHON, else /usr/bin/python3. */
const char  *rk_python_path         (void);

/* TRUE if @rel is a relative path that stays beneath its base: no leading
 * '/', no '..' component, no empty component, no NUL, at most 4096 bytes. */
gboolean     rk_path_is_beneath     (const char *rel);

/* An enum registered by rk-enum-types names its members in files and
 * protocols by their nicks ("user", "csv", "line"): the one table of those
 * words. @fallback when @value is not a member of @type. */
const char  *rk_enum_to_nick        (GType       type,
                                     int         value,
                                     const char *fallback);
/* The member of @type whose nick is @nick; @fallback when there is none
 * (or @nick is NULL). */
int          rk_enum_from_nick      (GType       type,
                                     const char *nick,
                                     int         fallback);

G_END_DECLS
