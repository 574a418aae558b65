#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# check-packages.sh: builds the Debian packages of contrib/debian from a copy
# of the tree (the source tree stays clean), runs lintian on them (errors
# fail, warnings are listed), checks the split and the dependencies, then
# unpacks only the daemon, its library and two plugin packages into an empty
# root and shows that `gamegate plugins` there lists exactly those plugins,
# then adds the oam C ABI and its Python binding and runs a bridge through
# the compatibility name libOpenAppleModelsFFI.so.
#
#   contrib/debian/check-packages.sh [--keep]
#
# Needs dpkg-dev, debhelper, fakeroot and lintian (./quickstart test installs
# them). The suite itself runs separately, so the build uses nocheck.
set -eu

srcdir=$(cd "$(dirname "$0")/../.." && pwd)
keep=no
[ "${1:-}" = "--keep" ] && keep=yes
work=$(mktemp -d "${TMPDIR:-/tmp}/gamegate-deb.XXXXXX")
cleanup() { [ "$keep" = yes ] && echo "check-packages: kept $work" || rm -rf "$work"; }
trap cleanup EXIT

failures=0
pass() { echo "ok - $*"; }
fail() { echo "not ok - $*"; failures=$((failures + 1)); }

# The tree as it is, without build directories, git data or node modules.
mkdir "$work/src"
tar -C "$srcdir" -c --exclude=./.git --exclude='./build*' --exclude='./_build*' \
    --exclude=node_modules --exclude=__pycache__ . | tar -C "$work/src" -x
cp -r "$srcdir/contrib/debian" "$work/src/debian"
rm -f "$work/src/debian/check-packages.sh"

# Trees without the a2g plugin build every package but that one.
profiles=""
cat "$srcdir/meson_options.txt" "$srcdir/meson.options" 2>/dev/null | grep -q "^option('plugin_a2g'" || profiles="pkg.gamegate.noa2g"

cd "$work/src"
if ! DEB_BUILD_PROFILES="$profiles" dpkg-checkbuilddeps; then
  echo "check-packages: build dependencies missing (see above)" >&2
  exit 1
fi

start=$(date +%s)
if DEB_BUILD_PROFILES="$profiles" DEB_BUILD_OPTIONS="nocheck noddebs parallel=2" \
    dpkg-buildpackage -b -us -uc >"$work/build.log" 2>&1; then
  pass "dpkg-buildpackage -b built in $(( $(date +%s) - start )) s${profiles:+ (profile $profiles)}"
else
  tail -n 60 "$work/build.log"
  fail "dpkg-buildpackage -b"
  exit 1
fi
cd "$work"
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
triplet=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
version=$(dpkg-parsechangelog -l "$srcdir/contrib/debian/changelog" -S Version)
deb() { echo "$work/${1}_${version}_$2.deb"; }

# lintian: errors fail, the rest is listed.
start=$(date +%s)
lintian --no-tag-display-limit --display-info "$work"/gamegate_*.changes >"$work/lintian.log" 2>&1 || true
if grep -q '^E: ' "$work/lintian.log"; then
  fail "lintian: errors"
else
  pass "lintian: no errors ($(( $(date +%s) - start )) s)"
fi
sed -n 's/^\([EWI]\): /  lintian \1: /p' "$work/lintian.log"

# The split: each plugin's module in its own package, nothing else's.
plugins="model-scripted model-record oam gabp gamebridge model-openai"
[ -z "$profiles" ] && plugins="$plugins a2g"
contents() { dpkg-deb --contents "$1" | awk '{ print $6 }' | sed 's|^\./|/|'; }
for name in $plugins; do
  file=$(deb "gamegate-plugin-$name" "$arch")
  modules=$(contents "$file" | grep '\.so$' || true)
  if [ "$modules" = "/usr/lib/$triplet/gamegate-1/plugins/$name.so" ]; then
    pass "gamegate-plugin-$name holds $name.so and no other module"
  else
    fail "gamegate-plugin-$name holds: $modules"
  fi
done
check_has() {
  if contents "$(deb "$1" "$2")" | grep -x "$3" >/dev/null; then pass "$1 holds $3"; else fail "$1 lacks $3"; fi
}
check_has gamegate "$arch" /usr/bin/gamegate
check_has gamegate "$arch" /usr/lib/systemd/user/gamegate.service
check_has gamegate "$arch" /usr/share/man/man1/gamegate.1.gz
check_has gamegate "$arch" /usr/share/bash-completion/completions/gamegate
check_has gamegate "$arch" /usr/share/gamegate/gamegate.conf
check_has libgamegate-1-0 "$arch" "/usr/lib/$triplet/libgamegate-1.so.0"
check_has libgamegate-1-dev "$arch" /usr/include/gamegate-1/gamegate.h
check_has libgamegate-1-dev "$arch" "/usr/lib/$triplet/pkgconfig/gamegate-1.pc"
check_has libgamegate-oam-1-0 "$arch" "/usr/lib/$triplet/libgamegate-oam-1.so.0"
check_has libgamegate-oam-1-dev "$arch" /usr/include/gamegate-oam-1/gamegate-oam.h
check_has libgamegate-oam-1-dev "$arch" "/usr/lib/$triplet/pkgconfig/gamegate-oam-1.pc"
check_has libgamegate-oam-1-dev "$arch" /usr/share/gamegate-oam-1/csharp/GamegateOam.cs
check_has gamegate-oam-compat "$arch" "/usr/lib/$triplet/libOpenAppleModelsFFI.so"
check_has python3-gamegate-oam all /usr/lib/python3/dist-packages/gamegate_oam.py
if dpkg-deb --contents "$(deb gamegate-oam-compat "$arch")" |
    grep -q "libOpenAppleModelsFFI.so -> libgamegate-oam-1.so.0$"; then
  pass "gamegate-oam-compat links libOpenAppleModelsFFI.so to libgamegate-oam-1.so.0"
else
  fail "gamegate-oam-compat: libOpenAppleModelsFFI.so is not a link to libgamegate-oam-1.so.0"
fi
check_has gamegate-doc all /usr/share/doc/gamegate/examples/plugin-hello/meson.build
doc_files=$(contents "$(deb gamegate-doc all)")
if echo "$doc_files" | grep -q '^/usr/share/doc/gamegate-1/.*index\.html$'; then
  pass "gamegate-doc holds the API reference"
elif cat "$srcdir/meson_options.txt" "$srcdir/meson.options" 2>/dev/null | grep -q "^option('docs'"; then
  fail "gamegate-doc lacks the API reference although the tree has the docs option"
else
  pass "gamegate-doc: no docs option in this tree, so no API reference # SKIP"
fi

# Dependencies: every plugin on the library; libsoup only where it links it.
for name in $plugins; do
  depends=$(dpkg-deb -f "$(deb "gamegate-plugin-$name" "$arch")" Depends)
  needed=$(readelf -d "$work/src/debian/gamegate-plugin-$name/usr/lib/$triplet/gamegate-1/plugins/$name.so" |
           sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  case "$depends" in *libgamegate-1-0*) ;; *) fail "gamegate-plugin-$name does not depend on libgamegate-1-0: $depends"; continue ;; esac
  if echo "$needed" | grep -q '^libsoup-3\.0\.so'; then
    case "$depends" in *libsoup-3.0-0*) pass "gamegate-plugin-$name depends on libgamegate-1-0 and libsoup-3.0-0" ;;
                       *) fail "gamegate-plugin-$name links libsoup but does not depend on it: $depends" ;; esac
  else
    case "$depends" in *libsoup*) fail "gamegate-plugin-$name depends on libsoup without linking it" ;;
                       *) pass "gamegate-plugin-$name depends on libgamegate-1-0, not on libsoup" ;; esac
  fi
done
if readelf -d "$work/src/debian/gamegate/usr/bin/gamegate" | grep -q 'R\(UN\)\{0,1\}PATH'; then
  fail "/usr/bin/gamegate carries an rpath"
else
  pass "/usr/bin/gamegate carries no rpath"
fi
if dpkg-deb --fsys-tarfile "$(deb gamegate "$arch")" | tar -xO ./usr/lib/systemd/user/gamegate.service |
    grep -qx 'ExecStart=/usr/bin/gamegate serve'; then
  pass "the packaged unit runs /usr/bin/gamegate"
else
  fail "the packaged unit does not run /usr/bin/gamegate"
fi

# An empty root with the daemon, its library and two plugins only.
root="$work/root"
mkdir "$root"
for package in gamegate libgamegate-1-0 gamegate-plugin-model-scripted gamegate-plugin-oam; do
  dpkg -x "$(deb "$package" "$arch")" "$root"
done
if [ -d "/usr/lib/$triplet/gamegate-1/plugins" ]; then
  echo "check-packages: note: /usr/lib/$triplet/gamegate-1/plugins exists on this machine"
fi
listing=$(env -i PATH=/usr/bin:/bin LC_ALL=C.UTF-8 HOME="$work" XDG_CONFIG_HOME="$work/config" \
          LD_LIBRARY_PATH="$root/usr/lib/$triplet" \
          GAMEGATE_PLUGIN_PATH="$root/usr/lib/$triplet/gamegate-1/plugins" \
          "$root/usr/bin/gamegate" plugins 2>"$work/plugins.err") || true
loaded=$(echo "$listing" | grep -B1 '^  version:' | grep -v -e '^  version:' -e '^--$' | sort | tr '\n' ' ')
paths=$(echo "$listing" | sed -n 's/^  path: //p' | grep -vc "^$root/" || true)
frontends=$(echo "$listing" | sed -n '/^front ends:/,/^model types:/p' | awk 'NR > 1 && /^  / { print $1 }' | tr '\n' ' ')
if [ "$loaded" = "model-scripted oam " ] && [ "$paths" = 0 ] && [ "$frontends" = "oam " ] &&
   ! grep -q . "$work/plugins.err"; then
  pass "gamegate plugins in a root with two plugin packages lists exactly: $loaded"
else
  echo "$listing" | sed 's/^/  | /'
  sed 's/^/  ! /' "$work/plugins.err"
  fail "gamegate plugins in a root with two plugin packages lists: $loaded (front ends: $frontends)"
fi

# An engine written for open-apple-models needs only the compatibility
# name: the Python binding of the packages loads it from the same root.
for package in libgamegate-oam-1-0 gamegate-oam-compat; do
  dpkg -x "$(deb "$package" "$arch")" "$root"
done
dpkg -x "$(deb python3-gamegate-oam all)" "$root"
hello=$(env -i PATH=/usr/bin:/bin LC_ALL=C.UTF-8 HOME="$work" XDG_CONFIG_HOME="$work/config" \
        LD_LIBRARY_PATH="$root/usr/lib/$triplet" \
        GAMEGATE_PLUGIN_PATH="$root/usr/lib/$triplet/gamegate-1/plugins" \
        OAM_LIBRARY="$root/usr/lib/$triplet/libOpenAppleModelsFFI.so" \
        PYTHONPATH="$root/usr/lib/python3/dist-packages" \
        python3 -c 'import asyncio, gamegate_oam
async def main():
    bridge = await gamegate_oam.Bridge.open()
    print((await bridge.request("initialize"))["server"]["name"])
    await bridge.close()
asyncio.run(main())' 2>"$work/oam.err") || true
if [ "$hello" = gamegate ] && ! grep -q . "$work/oam.err"; then
  pass "python3-gamegate-oam runs the bridge through libOpenAppleModelsFFI.so"
else
  sed 's/^/  ! /' "$work/oam.err"
  fail "python3-gamegate-oam through libOpenAppleModelsFFI.so answered: $hello"
fi

if [ "$failures" -eq 0 ]; then
  echo "check-packages: all checks passed"
else
  echo "check-packages: $failures check(s) failed"
  exit 1
fi
