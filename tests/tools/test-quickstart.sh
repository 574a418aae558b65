#!/bin/sh
# test-quickstart.sh: each ./quickstart command gets the build options it
# needs, whatever configured the build directory before (TAP output). Runs
# the quickstart's own configure_build() (sourced, nothing installed, nothing
# compiled) on a scratch build directory: configured as `demo` leaves it, then
# as `test` needs it (the API reference, the analyzer, warnings as errors),
# then as a hand-made configure without a plugin and the tests leaves it,
# checking `meson introspect --buildoptions` after each and that a build that
# has its options already is not configured again.
#
#   tests/tools/test-quickstart.sh SOURCE_DIR
#
# SPDX-License-Identifier: LGPL-2.1-or-later
set -eu

cd "$1"
work=$(mktemp -d "${TMPDIR:-/tmp}/gg-quickstart-XXXXXX")
trap 'rm -rf "$work"' EXIT
dir=$work/build
count=0
failed=0

report() {
  count=$((count + 1))
  if [ "$1" -eq 0 ]; then
    echo "ok $count - $2"
  else
    failed=$((failed + 1))
    echo "not ok $count - $2"
  fi
}

# The option's value in $dir, as meson introspect prints it (true, enabled, ...).
value_of() {
  meson introspect --buildoptions "$dir" | python3 -c '
import json, sys
for option in json.load(sys.stdin):
    if option["name"] == sys.argv[1]:
        value = option["value"]
        print(("true" if value else "false") if isinstance(value, bool) else value)
' "$1"
}

# Every -DNAME=VALUE of $1 (a quickstart *_options function) holds in $dir.
has_options() {
  for arg in $($1); do
    name=${arg#-D}; name=${name%%=*}
    [ "$(value_of "$name")" = "${arg#*=}" ] || { echo "# $name is $(value_of "$name"), not ${arg#*=}"; return 1; }
  done
}

# Runs configure_build "$dir" with $1's options; output to $work/log.
configure() {
  configure_build "$dir" $($1) >"$work/log" 2>&1 || { sed 's/^/# /' "$work/log"; return 1; }
}

reconfigured() {
  grep -q "^quickstart: $dir: reconfiguring with" "$work/log"
}

if ! command -v gi-docgen >/dev/null 2>&1 || ! command -v g-ir-scanner >/dev/null 2>&1; then
  echo "1..0 # SKIP -Ddocs=enabled needs gi-docgen and g-ir-scanner"
  exit 0
fi

QUICKSTART_FUNCTIONS_ONLY=1
. ./quickstart

rc=0; configure demo_options || rc=1
report $rc "demo: a new build directory is configured"
rc=0; has_options demo_options || rc=1
report $rc "demo: it has every plugin and the tests"
report "$(test "$(value_of static_analysis)" = false; echo $?)" "demo: without the analyzer (the default)"

rc=0; configure test_options || rc=1
report $rc "test after demo: configure_build succeeds"
rc=0; reconfigured || rc=1
report $rc "test after demo: the quickstart says it reconfigures"
rc=0; has_options test_options || rc=1
report $rc "test after demo: docs=enabled, static_analysis=true, werror=true, every plugin"

rc=0; configure test_options && ! reconfigured || rc=1
report $rc "test again: a build that has its options is left as it is"
rc=0; configure demo_options && ! reconfigured || rc=1
report $rc "demo after test: test's build has what demo needs, left as it is"
rc=0; has_options test_options || rc=1
report $rc "demo after test: test's options stay"

rc=0
meson setup --reconfigure "$dir" -Dplugin_a2g=disabled -Dtests=false -Ddocs=disabled >"$work/log" 2>&1 || rc=1
report $rc "a hand-made configure without a2g, the tests and the docs"
rc=0; configure test_options && reconfigured && has_options test_options || rc=1
report $rc "test after it: a2g, the tests and the docs are back"

echo "1..$count"
[ "$failed" -eq 0 ]
