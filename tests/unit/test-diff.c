/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-diff.c — rk-diff against GNU diff and patch, on fixed hostile cases
 * and on many random edits. */
#include "config.h"

#include <string.h>
#include <sys/wait.h>
#include <gio/gio.h>
#include <glib/gstdio.h>

#include "rk-diff.h"

static char *tmpdir;
static gboolean have_diff;
static gboolean have_patch;

static char *
write_tmp (const char *name,
           const char *data,
           gsize       len)
{
  char *path = g_build_filename (tmpdir, name, NULL);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, data, len, &error);
  g_assert_no_error (error);
  return path;
}

/* Runs argv, returns its stdout; asserts that it exited with 0 or 1. */
static GBytes *
run (const char * const *argv)
{
  g_autoptr(GError) error = NULL;
  char *out = NULL;
  gsize len;
  int status;
  g_autoptr(GSubprocess) proc = NULL;
  g_autoptr(GBytes) bytes = NULL;

  proc = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_SILENCE, &error);
  g_assert_no_error (error);
  g_subprocess_communicate (proc, NULL, NULL, &bytes, NULL, &error);
  g_assert_no_error (error);
  status = g_subprocess_get_exit_status (proc);
  g_assert_cmpint (status, <=, 1);
  out = g_bytes_unref_to_data (g_steal_pointer (&bytes), &len);
  return g_bytes_new_take (out, len);
}

static GBytes *
gnu_diff (const char *a, gsize alen,
          const char *b, gsize blen,
          guint       context,
          gboolean    minimal)
{
  g_autofree char *pa = write_tmp ("a", a, alen);
  g_autofree char *pb = write_tmp ("b", b, blen);
  g_autofree char *u = g_strdup_printf ("-U%u", context);
  const char *argv[] = { "diff", "-a", u, "--label", "a", "--label", "b",
                         minimal ? "--minimal" : pa, minimal ? pa : pb, minimal ? pb : NULL, NULL };

  return run (argv);
}

/* Applies @patch to @a with GNU patch; returns the result. */
static GBytes *
gnu_patch (const char *a, gsize alen,
           const char *patch, gsize plen)
{
  g_autofree char *pa = write_tmp ("p-old", a, alen);
  g_autofree char *pp = write_tmp ("p.diff", patch, plen);
  g_autofree char *po = g_build_filename (tmpdir, "p-out", NULL);
  g_autofree char *out = NULL;
  gsize len;
  const char *argv[] = { "patch", "--quiet", "--force", "-o", po, "-i", pp, pa, NULL };
  g_autoptr(GBytes) ignored = NULL;
  g_autoptr(GError) error = NULL;

  g_unlink (po);
  ignored = run (argv);
  g_file_get_contents (po, &out, &len, &error);
  g_assert_no_error (error);
  return g_bytes_new_take (g_steal_pointer (&out), len);
}

/* Rebuilds new from old and the edit script. */
static GString *
apply_edits (RkDiff *diff)
{
  GString *s = g_string_new (NULL);
  guint n, oi = 0, ni = 0;
  const RkDiffEdit *e = rk_diff_get_edits (diff, &n);

  for (guint k = 0; k < n; k++)
    {
      if (k > 0)
        g_assert_cmpint (e[k].op, !=, e[k - 1].op);
      g_assert_cmpuint (e[k].old_start, ==, oi);
      g_assert_cmpuint (e[k].new_start, ==, ni);
      g_assert_cmpuint (e[k].len, >, 0);
      for (guint l = 0; l < e[k].len; l++)
        {
          const char *line;
          gsize len;
          gboolean nl;

          if (e[k].op == RK_DIFF_EQUAL)
            {
              gsize len2;
              gboolean nl2;
              const char *line2 = rk_diff_get_new_line (diff, ni + l, &len2, &nl2);
              line = rk_diff_get_old_line (diff, oi + l, &len, &nl);
              g_assert_cmpuint (len, ==, len2);
              g_assert_cmpint (nl, ==, nl2);
              g_assert_true (memcmp (line, line2, len) == 0);
            }
          if (e[k].op == RK_DIFF_DELETE)
            continue;
          line = rk_diff_get_new_line (diff, ni + l, &len, &nl);
          g_string_append_len (s, line, len);
          if (nl)
            g_string_append_c (s, '\n');
        }
      if (e[k].op != RK_DIFF_INSERT)
        oi += e[k].len;
      if (e[k].op != RK_DIFF_DELETE)
        ni += e[k].len;
    }
  g_assert_cmpuint (oi, ==, rk_diff_get_n_old_lines (diff));
  g_assert_cmpuint (ni, ==, rk_diff_get_n_new_lines (diff));
  return s;
}

static guint
count_changes (GBytes *unified)
{
  gsize len;
  const char *p = g_bytes_get_data (unified, &len);
  const char *end;
  guint n = 0;

  if (len == 0)
    return 0;
  end = p + len;

  /* Skip the two header lines, then count -/+ lines at line starts. */
  for (int h = 0; h < 2 && p < end; h++)
    {
      const char *nl = memchr (p, '\n', end - p);
      p = nl ? nl + 1 : end;
    }
  while (p < end)
    {
      const char *nl = memchr (p, '\n', end - p);
      if (*p == '-' || *p == '+')
        n++;
      p = nl ? nl + 1 : end;
    }
  return n;
}

/* Checks everything about one pair; returns TRUE if our output is
 * byte-identical to GNU diff's. */
static gboolean
check_pair (const char *a, gsize alen,
            const char *b, gsize blen,
            guint       context,
            gboolean    must_match_gnu)
{
  g_autoptr(RkDiff) diff = rk_diff_new (a, alen, b, blen);
  g_autoptr(GString) rebuilt = apply_edits (diff);
  g_autoptr(GString) ours = rk_diff_format_unified (diff, "a", "b", context);
  g_autoptr(GBytes) ours_b = g_bytes_new (ours->str, ours->len);
  gboolean same = TRUE;

  g_assert_cmpmem (rebuilt->str, rebuilt->len, b, blen);
  g_assert_cmpint (rk_diff_is_identical (diff), ==, alen == blen && memcmp (a, b, alen) == 0);

  if (have_diff)
    {
      g_autoptr(GBytes) gnu = gnu_diff (a, alen, b, blen, context, FALSE);
      g_autoptr(GBytes) gnu_min = gnu_diff (a, alen, b, blen, context, TRUE);

      same = g_bytes_equal (gnu, ours_b);
      if (must_match_gnu)
        g_assert_cmpmem (ours->str, ours->len, g_bytes_get_data (gnu, NULL), g_bytes_get_size (gnu));
      /* Ours is minimal: as short as GNU's --minimal. */
      g_assert_cmpuint (rk_diff_get_n_deleted (diff) + rk_diff_get_n_inserted (diff), ==, count_changes (gnu_min));
      g_assert_cmpuint (count_changes (ours_b), ==, count_changes (gnu_min));
    }
  if (have_patch && ours->len > 0)
    {
      g_autoptr(GBytes) patched = gnu_patch (a, alen, ours->str, ours->len);
      g_assert_cmpmem (g_bytes_get_data (patched, NULL), g_bytes_get_size (patched), b, blen);
    }
  return same;
}

static void
check_str (const char *a,
           const char *b)
{
  check_pair (a, strlen (a), b, strlen (b), 3, TRUE);
  check_pair (a, strlen (a), b, strlen (b), 0, TRUE);
  check_pair (b, strlen (b), a, strlen (a), 1, TRUE);
}

static void
test_fixed (void)
{
  if (!have_diff)
    g_test_message ("GNU diff not found: comparing only with the edit script");
  check_str ("", "");
  check_str ("", "a\n");
  check_str ("a\n", "");
  check_str ("a", "");
  check_str ("a", "a\n");
  check_str ("a\nb", "a\nb\n");
  check_str ("a\nb", "a\nc");
  check_str ("x\ny\nz", "x\ny\nz");
  check_str ("a\r\nb\r\nc\r\n", "a\r\nb\nc\r\n");
  check_str ("\n\n\n", "\n\n");
  check_str ("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n",
             "1\n2\nX\n4\n5\n6\n7\n8\n9\n10\n11\nY\n13\n14\n");
  check_str ("1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\nA\n4\n5\n6\n7\n8\nB\n9\n");
  check_str ("import pandas as pd\ndf = pd.read_csv('a.csv')\nprint(df.head())\n",
             "import pandas as pd\n\ndf = pd.read_csv('a.csv', sep=';')\nprint(df.describe())\n");
  /* Ambiguous: GNU's boundary shifting decides which duplicate moves. */
  check_str ("a\nb\na\nb\n", "a\nb\na\nb\na\nb\n");
  check_str ("}\n\n}\n\n}\n", "}\n\n}\n");
  check_str ("a\na\na\n", "a\n");
}

static void
test_hostile (void)
{
  static const char nul_a[] = "a\0b\nc\n\0\n";
  static const char nul_b[] = "a\0b\nd\n\0\n\0";
  gsize big = 1 << 20;
  g_autofree char *la = g_malloc (big + 8);
  g_autofree char *lb = g_malloc (big + 8);

  check_pair (nul_a, sizeof nul_a - 1, nul_b, sizeof nul_b - 1, 3, TRUE);

  memset (la, 'x', big);
  memcpy (la + big, "\nend\n", 5);
  memcpy (lb, la, big + 5);
  lb[big / 2] = 'y';
  check_pair (la, big + 5, lb, big + 5, 3, TRUE);
  check_pair (la, big + 5, la, big + 5, 3, TRUE);
  check_pair (la, big, lb, big + 5, 3, TRUE);

  /* NULL is an empty text. */
  {
    g_autofree char *u = rk_diff_unified (NULL, "x\n", NULL, NULL, 3);
    g_assert_cmpstr (u, ==, "--- a\n+++ b\n@@ -0,0 +1 @@\n+x\n");
  }
}

static guint64 rng = 88172645463325252ull;

static guint
rnd (guint n)
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (guint) (rng % n);
}

/* Random old text of @n lines from an alphabet of @alphabet lines (0: all
 * distinct), and new = old with random deletions, insertions and changes. */
static void
random_pair (guint    n,
             guint    alphabet,
             GString *a,
             GString *b)
{
  static guint fresh = 0;
  g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  guint n_edits = 1 + rnd (6);

  for (guint i = 0; i < n; i++)
    g_ptr_array_add (lines, alphabet ? g_strdup_printf ("line %u", rnd (alphabet)) : g_strdup_printf ("old %u", i));
  for (guint i = 0; i < lines->len; i++)
    g_string_append_printf (a, "%s\n", (char *) lines->pdata[i]);

  for (guint k = 0; k < n_edits; k++)
    {
      guint pos = rnd (lines->len + 1);
      guint len = 1 + rnd (3);
      switch (rnd (3))
        {
        case 0:
          for (guint l = 0; l < len && pos < lines->len; l++)
            g_ptr_array_remove_index (lines, pos);
          break;
        case 1:
          for (guint l = 0; l < len; l++)
            g_ptr_array_insert (lines, pos, alphabet ? g_strdup_printf ("line %u", rnd (alphabet)) : g_strdup_printf ("new %u", fresh++));
          break;
        default:
          for (guint l = 0; l < len && pos + l < lines->len; l++)
            {
              g_free (lines->pdata[pos + l]);
              lines->pdata[pos + l] = alphabet ? g_strdup_printf ("line %u", rnd (alphabet)) : g_strdup_printf ("new %u", fresh++);
            }
          break;
        }
    }
  for (guint i = 0; i < lines->len; i++)
    g_string_append_printf (b, "%s\n", (char *) lines->pdata[i]);
  /* Sometimes drop the final newline. */
  if (rnd (4) == 0 && b->len > 0)
    g_string_truncate (b, b->len - 1);
  if (rnd (6) == 0 && a->len > 0)
    g_string_truncate (a, a->len - 1);
}

/* Many pairs checked against GNU diff and patch with one shell for all, so
 * that a sanitizer build does not pay for hundreds of spawns. Returns how
 * many outputs were byte-identical to GNU's. */
static guint
check_batch (guint    n,
             guint    alphabet,
             gboolean must_match_gnu)
{
  g_autofree char *dir = g_build_filename (tmpdir, "batch", NULL);
  g_autoptr(GString) script = g_string_new ("cd \"$1\" || exit 1\n");
  g_autoptr(GPtrArray) as = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_autoptr(GPtrArray) bs = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_autoptr(GPtrArray) ours = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_autoptr(GError) error = NULL;
  guint same = 0;

  g_mkdir_with_parents (dir, 0700);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GString) a = g_string_new (NULL);
      g_autoptr(GString) b = g_string_new (NULL);
      guint context = alphabet ? 3 : rnd (5);
      g_autoptr(RkDiff) diff = NULL;
      g_autoptr(GString) rebuilt = NULL;
      GString *u;

      /* G_MAXUINT: a different small alphabet for each pair. */
      random_pair (rnd (alphabet ? 40 : 60), alphabet == G_MAXUINT ? 2 + rnd (6) : alphabet, a, b);
      diff = rk_diff_new (a->str, a->len, b->str, b->len);
      rebuilt = apply_edits (diff);
      g_assert_cmpmem (rebuilt->str, rebuilt->len, b->str, b->len);
      u = rk_diff_format_unified (diff, "a", "b", context);

      for (guint k = 0; k < 3; k++)
        {
          const char *what[] = { "a", "b", "o" };
          GString *data = k == 0 ? a : k == 1 ? b : u;
          g_autofree char *name = g_strdup_printf ("%s.%u", what[k], i);
          g_autofree char *path = g_build_filename (dir, name, NULL);
          g_file_set_contents (path, data->str, data->len, &error);
          g_assert_no_error (error);
        }
      g_string_append_printf (script,
                              "diff -a -U%u --label a --label b a.%u b.%u > g.%u\n"
                              "diff -a --minimal -U%u --label a --label b a.%u b.%u > m.%u\n"
                              "cp a.%u p.%u; [ -s o.%u ] && patch --quiet --force -o p.%u -i o.%u a.%u\n",
                              context, i, i, i, context, i, i, i, i, i, i, i, i, i);
      g_ptr_array_add (as, g_string_free_to_bytes (g_steal_pointer (&a)));
      g_ptr_array_add (bs, g_string_free_to_bytes (g_steal_pointer (&b)));
      g_ptr_array_add (ours, g_string_free_to_bytes (u));
    }
  g_string_append (script, "exit 0\n");

  if (have_diff && have_patch)
    {
      const char *argv[] = { "sh", "-c", script->str, "sh", dir, NULL };
      g_autoptr(GBytes) ignored G_GNUC_UNUSED = run (argv);

      for (guint i = 0; i < n; i++)
        {
          g_autoptr(GBytes) gnu = NULL, gnu_min = NULL, patched = NULL;
          const char *what[] = { "g", "m", "p" };
          GBytes **out[] = { &gnu, &gnu_min, &patched };
          g_autoptr(RkDiff) diff = rk_diff_new (g_bytes_get_data (as->pdata[i], NULL), g_bytes_get_size (as->pdata[i]),
                                                g_bytes_get_data (bs->pdata[i], NULL), g_bytes_get_size (bs->pdata[i]));

          for (guint k = 0; k < 3; k++)
            {
              g_autofree char *name = g_strdup_printf ("%s.%u", what[k], i);
              g_autofree char *path = g_build_filename (dir, name, NULL);
              char *data = NULL;
              gsize len;

              g_file_get_contents (path, &data, &len, &error);
              g_assert_no_error (error);
              *out[k] = g_bytes_new_take (data, len);
            }
          if (must_match_gnu)
            g_assert_cmpmem (g_bytes_get_data (ours->pdata[i], NULL), g_bytes_get_size (ours->pdata[i]),
                             g_bytes_get_data (gnu, NULL), g_bytes_get_size (gnu));
          same += g_bytes_equal (ours->pdata[i], gnu);
          g_assert_cmpuint (rk_diff_get_n_deleted (diff) + rk_diff_get_n_inserted (diff), ==, count_changes (gnu_min));
          g_assert_true (g_bytes_equal (patched, bs->pdata[i]));
        }
    }
  else
    g_test_message ("GNU diff or patch not found: checked only the edit scripts");

  {
    g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", dir);
    g_spawn_command_line_sync (cmd, NULL, NULL, NULL, NULL);
  }
  return same;
}

static void
test_random_distinct (void)
{
  /* With distinct lines the diff is unique: it must equal GNU's exactly. */
  check_batch (100, 0, TRUE);
}

static void
test_random_repetitive (void)
{
  /* Few distinct lines: many equally short diffs. Ours must be minimal and
   * patch must rebuild new; byte equality with GNU is reported. */
  guint same = check_batch (100, G_MAXUINT, FALSE);

  g_test_message ("identical to GNU diff -u in %u of 100 ambiguous cases", same);
}

static void
test_large (void)
{
  /* 5,000 lines rewritten from a small alphabet: the worst case for the
   * search; memory stays linear (the diagonal arrays are 2(N+M) words). */
  g_autoptr(GString) a = g_string_new (NULL);
  g_autoptr(GString) b = g_string_new (NULL);
  g_autoptr(RkDiff) diff = NULL;
  g_autoptr(GString) rebuilt = NULL;

  for (guint i = 0; i < 5000; i++)
    {
      g_string_append_printf (a, "v%u\n", rnd (20));
      g_string_append_printf (b, "v%u\n", rnd (20));
    }
  diff = rk_diff_new (a->str, a->len, b->str, b->len);
  rebuilt = apply_edits (diff);
  g_assert_cmpmem (rebuilt->str, rebuilt->len, b->str, b->len);
  if (have_patch)
    {
      g_autoptr(GString) u = rk_diff_format_unified (diff, "a", "b", 3);
      g_autoptr(GBytes) patched = gnu_patch (a->str, a->len, u->str, u->len);
      g_assert_cmpmem (g_bytes_get_data (patched, NULL), g_bytes_get_size (patched), b->str, b->len);
    }
}

static void
test_hunks (void)
{
  g_autoptr(RkDiff) diff = rk_diff_new ("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", -1,
                                        "1\nX\n3\n4\n5\n6\n7\n8\n9\nY\n", -1);
  g_autoptr(GArray) h3 = rk_diff_get_hunks (diff, 4);
  g_autoptr(GArray) h1 = rk_diff_get_hunks (diff, 1);
  const RkDiffHunk *h;
  guint n;
  const RkDiffEdit *e = rk_diff_get_edits (diff, &n);

  g_assert_cmpuint (h3->len, ==, 1);
  g_assert_cmpuint (h1->len, ==, 2);
  h = &g_array_index (h1, RkDiffHunk, 0);
  g_assert_cmpuint (h->old_start, ==, 0);
  g_assert_cmpuint (h->old_len, ==, 3);
  g_assert_cmpuint (h->new_len, ==, 3);
  g_assert_cmpint (e[h->first_edit].op, ==, RK_DIFF_EQUAL);
  g_assert_cmpint (e[h->first_edit + h->n_edits - 1].op, ==, RK_DIFF_EQUAL);
  h = &g_array_index (h1, RkDiffHunk, 1);
  g_assert_cmpuint (h->old_start, ==, 8);
  g_assert_cmpuint (h->old_len, ==, 2);
  g_assert_cmpint (e[h->first_edit + h->n_edits - 1].op, ==, RK_DIFF_INSERT);
  g_assert_cmpuint (rk_diff_get_n_deleted (diff), ==, 2);
  g_assert_cmpuint (rk_diff_get_n_inserted (diff), ==, 2);
}

int
main (int argc, char **argv)
{
  g_autofree char *diff_path = g_find_program_in_path ("diff");
  g_autofree char *patch_path = g_find_program_in_path ("patch");
  int ret;

  g_test_init (&argc, &argv, NULL);
  tmpdir = g_dir_make_tmp ("rk-test-diff-XXXXXX", NULL);
  have_diff = diff_path != NULL;
  have_patch = patch_path != NULL;

  g_test_add_func ("/rk/diff/fixed", test_fixed);
  g_test_add_func ("/rk/diff/hostile", test_hostile);
  g_test_add_func ("/rk/diff/random-distinct", test_random_distinct);
  g_test_add_func ("/rk/diff/random-repetitive", test_random_repetitive);
  g_test_add_func ("/rk/diff/large", test_large);
  g_test_add_func ("/rk/diff/hunks", test_hunks);
  ret = g_test_run ();

  {
    const char *names[] = { "a", "b", "p-old", "p.diff", "p-out", "p-out.orig", "p-out.rej" };
    for (guint i = 0; i < G_N_ELEMENTS (names); i++)
      {
        g_autofree char *p = g_build_filename (tmpdir, names[i], NULL);
        g_unlink (p);
      }
    g_rmdir (tmpdir);
    g_free (tmpdir);
  }
  return ret;
}
