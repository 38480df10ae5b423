#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Build qemu-system-riscv64 with the ET-SoC-1 model:
#   1. fetch QEMU's source with `apt-get source` (Debian's package, pinned),
#   2. keep the unpacked tree under git and apply qemu-patches/*.patch,
#   3. link hw/etsoc1, target/etsoc1 (as target/riscv/etsoc1) and the
#      project's qtests into the tree, generate the
#      ET disassembler table (tools/etisa.py gen-c),
#   4. configure riscv64-softmmu only, build with ccache.
# Every step is skipped when its inputs have not changed, so a change in
# hw/etsoc1 costs one ninja run that recompiles only those files.
#
# Usage: scripts/build-qemu.sh [BUILD_ROOT]   (default: <project>/build)
#
# ETSOC1_SANITIZE=1 builds the same tree with AddressSanitizer and
# UndefinedBehaviorSanitizer into BUILD_ROOT/qemu-asan instead (make
# check-asan, docs/robustness.md); the source tree and ccache are shared.
set -eu

PROJ=$(cd "$(dirname "$0")/.." && pwd)
ROOT=${1:-$PROJ/build}
STAMP=${2:-}
PIN_VERSION="1:7.2+dfsg-7+deb12u18"
SRC=$ROOT/qemu-src
BLD=$ROOT/qemu-build
[ -n "${ETSOC1_SANITIZE:-}" ] && BLD=$ROOT/qemu-asan
DL=$ROOT/qemu-dl

log() { echo "build-qemu: $*" >&2; }

mkdir -p "$ROOT"

# --- 1. fetch and unpack ------------------------------------------------------
if [ ! -f "$SRC/.etsoc1-unpacked" ]; then
    version=$PIN_VERSION
    if ! apt-cache showsrc qemu 2>/dev/null | grep -qx "Version: $PIN_VERSION"; then
        version=$(apt-cache showsrc qemu 2>/dev/null | sed -n 's/^Version: //p' |
                  grep '^1:7\.2+' | sort -u | while read -r v; do echo "$v"; done |
                  { best=; while read -r v; do
                        if [ -z "$best" ] || dpkg --compare-versions "$v" gt "$best"; then
                            best=$v; fi; done; echo "$best"; })
        [ -n "$version" ] || { log "no QEMU 7.2 source package on offer"; exit 1; }
        log "WARNING: pinned qemu $PIN_VERSION is not on offer;" \
            "falling back to $version (patches may need a refresh)"
    fi
    log "fetching Debian source package qemu=$version"
    rm -rf "$DL" "$SRC"
    mkdir -p "$DL"
    (cd "$DL" && apt-get source -q --download-only "qemu=$version" >/dev/null 2>&1) ||
        (cd "$DL" && apt-get source -q --download-only "qemu=$version")
    dpkg-source -x "$DL"/qemu_*.dsc "$SRC" >/dev/null 2>&1
    (cd "$SRC" && git init -q && git add -A -f . &&
     git -c user.name=etsoc1 -c user.email=etsoc1@localhost \
         commit -q -m "Debian qemu $version" && git tag etsoc1-base)
    touch "$SRC/.etsoc1-unpacked"
fi

# --- 2. patches -----------------------------------------------------------------
patch_sum=$(cat "$PROJ"/qemu-patches/*.patch 2>/dev/null | sha256sum | cut -d' ' -f1)
if [ "$(cat "$SRC/.etsoc1-patched" 2>/dev/null)" != "$patch_sum" ]; then
    log "applying qemu-patches/"
    (cd "$SRC" && git reset -q --hard etsoc1-base && git clean -q -fdx -e .etsoc1-unpacked)
    for p in "$PROJ"/qemu-patches/*.patch; do
        [ -e "$p" ] || continue
        (cd "$SRC" && git apply --index "$p") || { log "patch $p failed"; exit 1; }
    done
    echo "$patch_sum" > "$SRC/.etsoc1-patched"
fi

# --- 3. link the project's code into the tree ----------------------------------
ln -sfn "$PROJ/hw/etsoc1" "$SRC/hw/etsoc1"
ln -sfn "$PROJ/target/etsoc1" "$SRC/target/riscv/etsoc1"
ln -sfn "$PROJ/tests/qtest" "$SRC/tests/qtest/etsoc1"
for t in "$PROJ"/tests/qtest/*.c "$PROJ"/tests/qtest/*.h; do
    [ -e "$t" ] && ln -sfn "$t" "$SRC/tests/qtest/$(basename "$t")"
done
# The ET instruction table for disas/riscv.c (patch 0008), generated from
# tools/et-insns.tsv; rewritten only when it changes, so ninja rebuilds
# riscv.c only then.
python3 "$PROJ/tools/etisa.py" gen-c > "$SRC/disas/riscv-etsoc1.c.inc.new"
if cmp -s "$SRC/disas/riscv-etsoc1.c.inc.new" "$SRC/disas/riscv-etsoc1.c.inc"; then
    rm -f "$SRC/disas/riscv-etsoc1.c.inc.new"
else
    mv "$SRC/disas/riscv-etsoc1.c.inc.new" "$SRC/disas/riscv-etsoc1.c.inc"
fi

# --- 4. configure and build -------------------------------------------------------
# ccache through Debian's masquerade directory: configure and meson see "gcc".
[ -d /usr/lib/ccache ] && PATH=/usr/lib/ccache:$PATH && export PATH
# Hash paths relative to the build root, so another checkout hits the cache.
CCACHE_BASEDIR=$ROOT && export CCACHE_BASEDIR
CONFIG="--target-list=riscv64-softmmu --disable-docs --disable-tools \
--disable-user --without-default-features --enable-fdt=system"
if [ -n "${ETSOC1_SANITIZE:-}" ]; then
    # QEMU 7.2's --enable-sanitizers drops UBSan under GCC 12 (its probe
    # fails), so both go in by hand; UB aborts instead of printing and going
    # on, so a report cannot pass unseen.  The sanitizers' instrumentation
    # makes GCC 12 warn falsely (-Wmaybe-uninitialized in crypto/block-luks.c),
    # so warnings are not errors in this build.
    SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined \
-fno-omit-frame-pointer"
    CONFIG="$CONFIG --disable-werror"
fi
SAN=${SAN:-}
if [ ! -f "$BLD/build.ninja" ] ||
   [ "$(cat "$BLD/.etsoc1-config" 2>/dev/null)" != "$CONFIG$SAN" ]; then
    log "configuring"
    rm -rf "$BLD"
    mkdir -p "$BLD"
    # shellcheck disable=SC2086
    (cd "$BLD" && "$SRC/configure" $CONFIG \
        ${SAN:+"--extra-cflags=$SAN" "--extra-ldflags=$SAN"} \
        >configure.log 2>&1) ||
        { tail -30 "$BLD/configure.log"; exit 1; }
    echo "$CONFIG$SAN" > "$BLD/.etsoc1-config"
fi

QTESTS=$(sed -n "s/^ *'\(etsoc1-[a-z0-9-]*\)',\{0,1\}$/tests\/qtest\/\1/p" \
         "$PROJ/tests/qtest/meson.build")
# The build id a record file carries (hw/etsoc1/etsoc1-rr.c, docs/
# record-replay.md): a hash of the sources that decide what the card does,
# and of the Debian QEMU version, so a rebuild of the same tree gives the
# same id (content, not time).  Rewritten only when it changes, so ninja
# recompiles only etsoc1-rr.c then.
qemu_version=$(dpkg-parsechangelog -l "$SRC/debian/changelog" -S Version)
build_id=$( (cd "$PROJ" && find hw/etsoc1 target/etsoc1 qemu-patches \
                 tools/et-insns.tsv -type f | LC_ALL=C sort |
             while read -r f; do sha256sum "$f"; done
             echo "qemu $qemu_version") | sha256sum | cut -d' ' -f1)
printf '#define ETSOC1_BUILD_ID "%s"\n' "$build_id" > "$BLD/etsoc1-build-id.h.new"
if cmp -s "$BLD/etsoc1-build-id.h.new" "$BLD/etsoc1-build-id.h"; then
    rm -f "$BLD/etsoc1-build-id.h.new"
else
    mv "$BLD/etsoc1-build-id.h.new" "$BLD/etsoc1-build-id.h"
fi

log "building"
ninja -C "$BLD" qemu-system-riscv64 tests/qtest/qom-test \
    tests/qtest/device-introspect-test $QTESTS >"$BLD/ninja.log" 2>&1 ||
    { grep -A20 -E '^FAILED:' "$BLD/ninja.log" | grep -v '^\[' | head -60; exit 1; }
log "ok: $BLD/qemu-system-riscv64"
if [ -n "$STAMP" ]; then touch "$STAMP"; fi
