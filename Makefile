# SPDX-License-Identifier: GPL-2.0-or-later
# Thin wrapper around meson/ninja: see README.md.
BUILD := build

.PHONY: all demo check check-quick check-full check-asan asan-build clean tools \
	trace-png

all: tools
	@scripts/deps.sh
	@[ -f $(BUILD)/guest/build.ninja ] || \
		meson setup $(BUILD)/guest --cross-file riscv64-elf.cross >/dev/null
	@ninja -C $(BUILD)/guest all qemu.stamp

# The ET assembler front end and objdump filter (docs/assembler.md):
# build/tools/bin/as is what the guest build's "gcc -B build/tools/bin/" runs.
tools:
	@install -d $(BUILD)/tools/bin $(BUILD)/tools/lib
	@install -m 644 tools/etisa.py tools/et-insns.tsv $(BUILD)/tools/lib/
	@install -m 755 tools/et-as tools/et-objdump $(BUILD)/tools/bin/
	@ln -sf et-as $(BUILD)/tools/bin/as

demo: all
	@scripts/demo.sh $(BUILD)

# The picture in docs/trace.md, from a trace of fabric/ring on 2 shires
TRACE_PNG_TRACKS := 0:0,0:2,0:4,0:62,1:64,1:66,1:126
trace-png: all
	@$(BUILD)/qemu-build/qemu-system-riscv64 -display none -serial none \
		-monitor none -M etsoc1,shires=2,trace-json=$(BUILD)/ring-trace.json \
		-smp 128 -kernel $(BUILD)/guest/ring.elf
	@/usr/bin/python3 tools/trace-png $(BUILD)/ring-trace.json \
		docs/trace-ring.png --from 6.4 --to 8.4 \
		--tracks $(TRACE_PNG_TRACKS) \
		--title 'fabric/ring, 2 shires: the last ring steps and the chip barrier'

# The test command (README, .ci/run): every group of tests/run.py as a meson
# test (docs/testing.md) on the plain build, then the same groups but hang
# and timing under AddressSanitizer and UndefinedBehaviorSanitizer (meson
# test --setup asan, on build/qemu-asan; docs/robustness.md), then one TAP
# listing with one final line for both ("N passed, N failed"; a sanitizer
# report is a failure).  check-full is the same; check-quick: the plain
# suite alone; check-asan: the sanitizer suite alone.
MESON_LOGS = $(BUILD)/guest/meson-logs
MESON_TEST = meson test -C $(BUILD)/guest --no-rebuild
SAN_LOGS = $(abspath $(BUILD))/asan-logs
PLAIN_RUN = rm -f $(MESON_LOGS)/plain.json && \
	echo "\# the plain build ($(BUILD)/qemu-build): every group" && \
	{ $(MESON_TEST) --logbase plain || true; }
ASAN_RUN = rm -rf $(SAN_LOGS) $(MESON_LOGS)/asan-asan.json && mkdir -p $(SAN_LOGS) && \
	echo "\# the sanitizer build ($(BUILD)/qemu-asan): all but hang, timing" && \
	{ $(MESON_TEST) --setup asan --logbase asan || true; }

check check-full: asan-build
	@$(PLAIN_RUN)
	@$(ASAN_RUN)
	@python3 tests/run.py --meson-sum $(MESON_LOGS)/plain.json \
		$(MESON_LOGS)/asan-asan.json --san-logs $(SAN_LOGS)

check-quick: all
	@$(PLAIN_RUN)
	@python3 tests/run.py --meson-sum $(MESON_LOGS)/plain.json

check-asan: asan-build
	@$(ASAN_RUN)
	@python3 tests/run.py --meson-sum $(MESON_LOGS)/asan-asan.json \
		--san-logs $(SAN_LOGS)

# QEMU with ASan + UBSan in $(BUILD)/qemu-asan (ccache and the source tree
# shared with the plain build).  The sanitizers' options are the meson test
# setup "asan" (meson.build): every report goes to a file in
# $(BUILD)/asan-logs, not to stderr, and each file with a report is a
# failure, even from a process whose exit status a test expects to be
# non-zero (ASan's start-up warning about QEMU's coroutines is no
# report).  LeakSanitizer is on, with the suppressions of tests/lsan.supp.
asan-build: all
	@ETSOC1_SANITIZE=1 scripts/build-qemu.sh $(abspath $(BUILD))

clean:
	rm -rf $(BUILD)/guest $(BUILD)/qemu-build $(BUILD)/qemu-asan
