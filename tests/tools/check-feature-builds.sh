#!/bin/sh
# check-feature-builds.sh: prove that every plugin can be left out. Configures
# and builds (tests included, none run) the tree once with nothing but the
# scripted model, then once with each plugin disabled in turn. The plugins
# are the `plugin_*` options of meson_options.txt, so one added later is
# covered without touching this script.
#
#   tests/tools/check-feature-builds.sh [BUILD_ROOT]
#
# Each combination has its own build directory under BUILD_ROOT (default
# build/feature-builds), reused between runs so a second run only rebuilds
# what changed. Unoptimised: the point is that it configures and links.
#
# SPDX-License-Identifier: LGPL-2.1-or-later
set -eu

cd "$(dirname "$0")/../.."
root=${1:-build/feature-builds}

plugins=$(sed -n "s/^option('\(plugin_[A-Za-z0-9_]*\)'.*/\1/p" meson_options.txt)
if [ -z "$plugins" ]; then
  echo "check-feature-builds: no plugin_* option in meson_options.txt" >&2
  exit 1
fi

# Configures (or reconfigures, so the options are applied again) and builds
# one combination; the remaining arguments are its meson options.
check() {
  name=$1; shift
  dir=$root/$name
  start=$(date +%s)
  echo "check-feature-builds: $name: $*"
  if [ -f "$dir/build.ninja" ]; then
    meson setup --reconfigure "$dir" -Doptimization=0 -Ddebug=false "$@" >"$dir.log" 2>&1 ||
      { cat "$dir.log" >&2; return 1; }
  else
    rm -rf "$dir"; mkdir -p "$root"
    meson setup "$dir" -Doptimization=0 -Ddebug=false "$@" >"$dir.log" 2>&1 ||
      { cat "$dir.log" >&2; return 1; }
  fi
  meson compile -C "$dir" >>"$dir.log" 2>&1 || { tail -n 60 "$dir.log" >&2; return 1; }
  echo "check-feature-builds: $name: built in $(( $(date +%s) - start ))s"
}

status=0

# Nothing but the scripted model: every other plugin off, whatever its
# default (auto_features only turns off the `auto` ones).
minimal="-Dauto_features=disabled"
for opt in $plugins; do
  if [ "$opt" = plugin_model_scripted ]; then
    minimal="$minimal -D$opt=enabled"
  else
    minimal="$minimal -D$opt=disabled"
  fi
done
# shellcheck disable=SC2086
check minimal $minimal || status=1

# Everything but one plugin.
for opt in $plugins; do
  check "no-$(echo "${opt#plugin_}" | tr _ -)" "-D$opt=disabled" || status=1
done

[ "$status" -eq 0 ] && echo "check-feature-builds: every combination builds"
exit $status
