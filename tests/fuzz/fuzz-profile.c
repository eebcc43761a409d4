/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz-profile.c — the profile parser and the prompt text over arbitrary
 * bytes, and the import name sanitiser over the same bytes. */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "rk-import.h"
#include "rk-profile.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GPtrArray) files = rk_profile_parse ((const char *) data, size, NULL);
  g_autofree char *name_input = g_strndup ((const char *) data, MIN (size, 4096));
  g_autofree char *name = rk_import_sanitize_name (name_input, RK_IMPORT_NAME_MAX);

  g_assert (strlen (name) > 0 && strlen (name) <= RK_IMPORT_NAME_MAX);
  g_assert (g_utf8_validate (name, -1, NULL));
  g_assert (strchr (name, '/') == NULL && name[0] != '.');
  if (files != NULL)
    {
      g_autofree char *text = rk_profiles_to_prompt (files, 4096, RK_PROMPT_SAMPLES_DEFAULT);

      g_assert (g_utf8_validate (text, -1, NULL));
      for (guint i = 0; i < files->len; i++)
        {
          g_autoptr(RkFileProfile) copy = rk_file_profile_copy (g_ptr_array_index (files, i));
          g_autofree char *one = rk_file_profile_to_prompt (copy, 1024, RK_PROMPT_SAMPLES_DEFAULT);
          g_autofree char *how = rk_file_profile_describe_reading (copy);
          g_autofree char *label = NULL;
          RkProfileOptions options = RK_PROFILE_OPTIONS_INIT;

          g_assert (one != NULL);
          g_assert (how == NULL || g_utf8_validate (how, -1, NULL));
          if (rk_file_profile_get_alternative (copy, &options, &label))
            g_assert (label != NULL && options.skip_lines >= -1);
        }
    }
  return 0;
}
