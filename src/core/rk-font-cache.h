/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rk-font-cache.h — matplotlib's font list, built by the first kernel and
 * put in the workspace of the later ones (it costs seconds at each start). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* After a kernel said "ready", before any cell ran: keeps the font list it
 * built in the workspace open at @workspace_fd (.reckon/fontcache/), if
 * the host has none yet. Reads only through fds opened beneath it. */
void rk_font_cache_keep (int workspace_fd);
/* Before a kernel starts: puts the host's font list in the workspace open
 * at @workspace_fd, writing through fds opened beneath it. */
void rk_font_cache_seed (int workspace_fd);

G_END_DECLS
