#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Install what the project needs on a Debian bookworm machine: the minimal
# QEMU build dependencies, ccache, meson/ninja and Debian's bare-metal RISC-V
# toolchain.  If apt has no deb-src entry, add one in a separate sources file
# derived from the machine's own Debian sources (QEMU's source is taken only
# from Debian's source package).  Idempotent and quiet when nothing is missing.
set -eu

PKGS="build-essential dpkg-dev python3 ninja-build meson pkg-config ccache \
libglib2.0-dev libpixman-1-dev zlib1g-dev libfdt-dev \
gcc-riscv64-unknown-elf binutils-riscv64-unknown-elf cmake \
picolibc-riscv64-unknown-elf python3-matplotlib"
# python3-matplotlib: tools/trace-png (docs/trace.md) and bench/fidelity
# picolibc: C library headers for kernels written as Esperanto's are
# (<inttypes.h>, <string.h>; docs/esperanto-code.md)

SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo

missing=
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
        missing="$missing $p"
done

DEBSRC=/etc/apt/sources.list.d/etsoc1-deb-src.sources
has_debsrc() {
    grep -rqsE '^(Types:.*deb-src|deb-src )' /etc/apt/sources.list \
        /etc/apt/sources.list.d/
}

updated=
if ! has_debsrc; then
    echo "deps: no deb-src entry configured; adding $DEBSRC" >&2
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
        sed -e 's/^Types:.*/Types: deb-src/' \
            /etc/apt/sources.list.d/debian.sources | $SUDO tee "$DEBSRC" >/dev/null
    else
        # One-line format: turn every "deb " line into a deb-src stanza.
        sed -n 's/^deb \(\[[^]]*\] \)\{0,1\}\([^ ]*\) \([^ ]*\) \(.*\)$/Types: deb-src\nURIs: \2\nSuites: \3\nComponents: \4\n/p' \
            /etc/apt/sources.list | $SUDO tee "$DEBSRC" >/dev/null
    fi
    $SUDO apt-get update -q >/dev/null
    updated=1
fi

if [ -n "$missing" ]; then
    echo "deps: installing$missing" >&2
    [ -n "$updated" ] || $SUDO apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends \
        $missing >/dev/null
fi
