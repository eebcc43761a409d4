/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz-replay.c — driver for fuzz targets in builds without libFuzzer: runs
 * every seed file, then a fixed, seeded series of mutations of them. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

#define REPLAY_MAX_INPUT (1u << 20)

typedef struct
{
  uint8_t *data;
  size_t   size;
} Seed;

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t
next_random (void)
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

static size_t
mutate (uint8_t *buf, size_t size, const Seed *seeds, size_t n_seeds)
{
  static const char *tokens[] = { "\"", "\\", "{", "}", "[", "]", ":", ",", "\n", "\r\n",
                                  "null", "-1", "1e999", "\xff", "\xc3", "data: ", "```",
                                  "\"\\u0000\"", "9999999999999999999" };
  int n = 1 + (int) (next_random () % 8);

  for (int i = 0; i < n; i++)
    {
      size_t pos = size ? next_random () % size : 0;
      switch (next_random () % 6)
        {
        case 0: /* flip a byte */
          if (size)
            buf[pos] ^= (uint8_t) (1u << (next_random () % 8));
          break;
        case 1: /* drop a range */
          if (size)
            {
              size_t len = next_random () % (size - pos + 1);
              memmove (buf + pos, buf + pos + len, size - pos - len);
              size -= len;
            }
          break;
        case 2: /* insert a token */
          {
            const char *t = tokens[next_random () % (sizeof tokens / sizeof *tokens)];
            size_t len = strlen (t);
            if (size + len < REPLAY_MAX_INPUT)
              {
                memmove (buf + pos + len, buf + pos, size - pos);
                memcpy (buf + pos, t, len);
                size += len;
              }
          }
          break;
        case 3: /* duplicate a range */
          if (size)
            {
              size_t len = next_random () % (size - pos + 1);
              if (size + len < REPLAY_MAX_INPUT)
                {
                  memmove (buf + pos + len, buf + pos, size - pos);
                  size += len;
                }
            }
          break;
        case 4: /* splice in another seed */
          if (n_seeds)
            {
              const Seed *o = &seeds[next_random () % n_seeds];
              size_t len = o->size ? next_random () % o->size : 0;
              if (size + len < REPLAY_MAX_INPUT)
                {
                  memmove (buf + pos + len, buf + pos, size - pos);
                  memcpy (buf + pos, o->data, len);
                  size += len;
                }
            }
          break;
        default: /* set a random byte */
          if (size)
            buf[pos] = (uint8_t) next_random ();
          break;
        }
    }
  return size;
}

int
main (int argc, char **argv)
{
  Seed *seeds = NULL;
  size_t n_seeds = 0;
  long iterations = argc > 2 ? atol (argv[2]) : 10000;
  DIR *dir;
  struct dirent *e;
  uint8_t *buf;

  if (argc < 2)
    {
      fprintf (stderr, "usage: %s CORPUS-DIR [ITERATIONS]\n", argv[0]);
      return 2;
    }

  dir = opendir (argv[1]);
  if (dir == NULL)
    {
      perror (argv[1]);
      return 1;
    }
  while ((e = readdir (dir)) != NULL)
    {
      char path[4096];
      FILE *f;
      Seed s = { NULL, 0 };

      if (e->d_name[0] == '.')
        continue;
      snprintf (path, sizeof path, "%s/%s", argv[1], e->d_name);
      f = fopen (path, "rb");
      if (f == NULL)
        continue;
      s.data = malloc (REPLAY_MAX_INPUT);
      s.size = fread (s.data, 1, REPLAY_MAX_INPUT, f);
      fclose (f);
      seeds = realloc (seeds, (n_seeds + 1) * sizeof *seeds);
      seeds[n_seeds++] = s;
      LLVMFuzzerTestOneInput (s.data, s.size);
    }
  closedir (dir);

  buf = malloc (REPLAY_MAX_INPUT);
  LLVMFuzzerTestOneInput (buf, 0);
  for (long i = 0; i < iterations && n_seeds > 0; i++)
    {
      const Seed *s = &seeds[next_random () % n_seeds];
      size_t size;

      memcpy (buf, s->data, s->size);
      size = mutate (buf, s->size, seeds, n_seeds);
      LLVMFuzzerTestOneInput (buf, size);
    }

  printf ("replayed %zu seeds and %ld mutations\n", n_seeds, iterations);
  for (size_t i = 0; i < n_seeds; i++)
    free (seeds[i].data);
  free (seeds);
  free (buf);
  return 0;
}
