#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs a test inside a private session bus with an unlocked gnome-keyring.
exec dbus-run-session -- sh -c 'printf test | gnome-keyring-daemon --unlock --components=secrets --daemonize >/dev/null 2>&1; exec "$@"' sh "$@"
