/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-text.c — rk_text_sanitize_for_terminal on hostile text: escape
 * sequences, control characters, C1, bidi overrides, broken UTF-8. */
#include "config.h"

#include <string.h>

#include "rk-text.h"

static void
check (const char          *in,
       RkTextSanitizeFlags  flags,
       const char          *expected)
{
  g_autofree char *out = rk_text_sanitize_for_terminal (in, flags);

  g_assert_cmpstr (out, ==, expected);
  g_assert_true (g_utf8_validate (out, -1, NULL));
  g_assert_null (strchr (out, 0x1b));
}

static void
test_plain (void)
{
  check ("", 0, "");
  check ("total=42\n\tok", 0, "total=42\n\tok");
  check ("Größe € 名前 🙂", 0, "Größe € 名前 🙂");
  check ("a\nb\tc", RK_TEXT_SANITIZE_SINGLE_LINE, "a b c");
  g_assert_null (rk_text_sanitize_for_terminal (NULL, 0));
  g_assert_true (rk_text_is_terminal_safe ("plain\ntext\n"));
  g_assert_false (rk_text_is_terminal_safe ("\x1b[31mred"));
  /* the scan agrees with a sanitized copy, byte class by byte class */
  {
    const char *samples[] = { "Größe € 名前 🙂\t", "a\rb", "a\x7f", "a\xc2\x85", "a\xc2\xa0",
                              ("\xe2\x80\xae" "evil"), "\xe2\x81\xa7", "\xe2\x80\xa9", "bad \xff" };

    for (guint i = 0; i < G_N_ELEMENTS (samples); i++)
      {
        g_autofree char *clean = rk_text_sanitize_for_terminal (samples[i], RK_TEXT_SANITIZE_DEFAULT);

        g_assert_cmpint (rk_text_is_terminal_safe (samples[i]), ==, g_str_equal (clean, samples[i]));
      }
  }
}

static void
test_escape_sequences (void)
{
  /* OSC 52 writes the clipboard; with BEL and with ST. */
  check ("a\x1b]52;c;ZWNobyBwd25lZA==\x07" "b", 0, "ab");
  check ("a\x1b]52;c;ZWNobyBwd25lZA==\x1b\\b", 0, "ab");
  /* A hyperlink whose text survives, its target not. */
  check ("\x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\", 0, "click");
  /* CSI: clear screen, cursor home, colours, private modes. */
  check ("x\x1b[2J\x1b[H\x1b[1;31mred\x1b[0m\x1b[?1049h", 0, "xred");
  /* DCS, APC, PM, SOS up to ST. */
  check ("1\x1bPq#0;2;0;0;0\x1b\\2\x1b_apc\x1b\\3\x1b^pm\x1b\\4\x1bXsos\x1b\\5", 0, "12345");
  /* Two-byte sequences: charset switch, full reset, keypad. */
  check ("a\x1b(0b\x1b" "c" "c\x1b=d", 0, "abcd");
  /* An unterminated string sequence swallows the rest, as a terminal would. */
  check ("keep\x1b]0;title", 0, "keep");
  /* ESC at the very end. */
  check ("end\x1b", 0, "end");
  /* A CSI cut short by a control character: the rest is shown. */
  check ("\x1b[12\n3", 0, "\n3");
}

static void
test_controls (void)
{
  /* Bell, backspace, NUL-adjacent controls: visible pictures, not effects. */
  check ("ding\x07", 0, "ding␇");
  check ("secret\x08\x08\x08\x08\x08\x08public", 0, "secret␈␈␈␈␈␈public");
  check ("del\x7f", 0, "del␡");
  check ("\x01\x1f", 0, "␁␟");
  /* CR: a CRLF is a newline, a lone CR cannot overwrite the line. */
  check ("a\r\nb", 0, "a\nb");
  check ("rm -rf /\rls", 0, "rm -rf /\nls");
  check ("a\rb", RK_TEXT_SANITIZE_SINGLE_LINE, "a b");
  /* C1 controls (8-bit CSI U+009B, NEL U+0085) as UTF-8. */
  check ("a\xc2\x9b" "2Jb\xc2\x85" "c", 0, "a\xef\xbf\xbd" "2Jb\xef\xbf\xbd" "c");
}

static void
test_bidi (void)
{
  /* "Trojan source": RLO/LRO/PDF and the isolates are dropped. */
  check ("invoice\xe2\x80\xae" "fdp.exe", 0, "invoicefdp.exe");
  check ("\xe2\x80\xaa" "a\xe2\x80\xab" "b\xe2\x80\xac" "c\xe2\x80\xad" "d", 0, "abcd");
  check ("\xe2\x81\xa6" "x\xe2\x81\xa7" "y\xe2\x81\xa8" "z\xe2\x81\xa9", 0, "xyz");
  /* Ordinary right-to-left text stays. */
  check ("שלום عربي", 0, "שלום عربي");
}

static void
test_invalid_utf8 (void)
{
  g_autofree char *out = rk_text_sanitize_for_terminal ("ab\xff\xfe" "c\xe2\x80", 0);

  g_assert_true (g_utf8_validate (out, -1, NULL));
  g_assert_true (g_str_has_prefix (out, "ab"));
  g_assert_nonnull (strchr (out, 'c'));
}

/* Every byte value, alone and after ESC, gives valid, ESC-free text. */
static void
test_all_bytes (void)
{
  for (guint a = 1; a < 256; a++)
    for (guint b = 1; b < 256; b += 5)
      {
        char in[5] = { (char) a, (char) b, 0x1b, (char) a, 0 };
        g_autofree char *out = rk_text_sanitize_for_terminal (in, 0);

        g_assert_true (g_utf8_validate (out, -1, NULL));
        g_assert_null (strchr (out, 0x1b));
        for (const guchar *p = (const guchar *) out; *p; p++)
          g_assert_true (*p >= 0x20 || *p == '\n' || *p == '\t');
      }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/rk/text/plain", test_plain);
  g_test_add_func ("/rk/text/escape-sequences", test_escape_sequences);
  g_test_add_func ("/rk/text/controls", test_controls);
  g_test_add_func ("/rk/text/bidi", test_bidi);
  g_test_add_func ("/rk/text/invalid-utf8", test_invalid_utf8);
  g_test_add_func ("/rk/text/all-bytes", test_all_bytes);

  return g_test_run ();
}
