#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The main job: boot the full ET-SoC-1 (34 shires, 2,176 minion harts), run
# the hello and allsum demo kernels and report what they print (allsum
# prints its emulated time: hart 0's own cycle counter), with the
# wall-clock time of each run; then boot the card with its firmware and
# drive it from the host as a runtime does (vecadd on every compute shire).
set -eu
ROOT=${1:-$(cd "$(dirname "$0")/.." && pwd)/build}
QEMU=$ROOT/qemu-build/qemu-system-riscv64
# glibc's heap on transparent huge pages: the full chip starts in about two
# thirds of the time (docs/architecture.md, "Thousands of vCPUs")
case ${GLIBC_TUNABLES:-} in
*glibc.malloc.hugetlb*) ;;
'') export GLIBC_TUNABLES=glibc.malloc.hugetlb=1 ;;
*) export GLIBC_TUNABLES="$GLIBC_TUNABLES:glibc.malloc.hugetlb=1" ;;
esac

run() {
    kernel=$1
    echo "== $kernel on -M etsoc1,shires=34 -smp 2176 =="
    start=$(date +%s.%N)
    "$QEMU" -M etsoc1,shires=34 -smp 2176 -m 1G -display none -serial stdio \
        -kernel "$ROOT/guest/$kernel.elf"
    end=$(date +%s.%N)
    echo "== $kernel: exit status 0, wall time $(echo "$end - $start" | bc) s =="
}
run hello
run allsum

# The card as a host sees it: the SP and master-minion firmware boot, the
# host library finds the device interface, loads vecadd.elf by DMA and
# launches it on every compute shire; the times are the card's own.
echo "== vecadd.elf through the device API (host library, firmware stubs) =="
start=$(date +%s.%N)
ETSOC1_QEMU="$QEMU" ETSOC1_GUEST_DIR="$ROOT/guest" \
    "$ROOT/guest/etsoc1-host-test" --demo | grep -v '^ok\|^#\|^1\.\.'
end=$(date +%s.%N)
echo "== vecadd: wall time $(echo "$end - $start" | bc) s (QEMU start included) =="
