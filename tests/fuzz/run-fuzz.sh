#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs one libFuzzer target for a bounded number of iterations: new inputs go to
# a corpus folder in the build tree, the seed corpus in the source tree is only read.
set -eu
target=$1 seeds=$2 work=$3 runs=$4
mkdir -p "$work"
exec "$target" -runs="$runs" -seed=1 -max_len=65536 -timeout=10 -error_exitcode=1 -timeout_exitcode=1 -artifact_prefix="$work/" "$work" "$seeds"
