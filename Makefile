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

# The test command (README, .ci/run): the plain suite, then the groups of
# ASAN_GROUPS again on QEMU built with AddressSanitizer and
# UndefinedBehaviorSanitizer (docs/robustness.md), one final line for both
# ("N passed, N failed"; a sanitizer report is a failure).
# check-full is the same; check-quick: the plain suite alone, for by hand;
# check-asan: the sanitizer suite alone.
CHECK_LOGS = $(BUILD)/check
check check-full: asan-build
	@mkdir -p $(CHECK_LOGS)
	@echo "# the plain build ($(BUILD)/qemu-build): every group"
	@python3 tests/run.py $(BUILD) | tee $(CHECK_LOGS)/plain.tap
	@echo "# the sanitizer build ($(BUILD)/qemu-asan): $(ASAN_GROUPS)"
	@$(ASAN_RUN) | tee $(CHECK_LOGS)/asan.tap
	@python3 tests/run.py --sum $(CHECK_LOGS)/plain.tap $(CHECK_LOGS)/asan.tap

check-quick: all
	@python3 tests/run.py $(BUILD)

check-asan: asan-build
	@$(ASAN_RUN)

# QEMU with ASan + UBSan in $(BUILD)/qemu-asan (ccache and the source tree
# shared with the plain build).  Every sanitizer report goes to a file in
# $(BUILD)/asan-logs (not to stderr); tests/run.py counts each file with a
# report as a failure, even from a process whose exit status a test
# expects to be non-zero (ASan's start-up warning about QEMU's coroutines
# is no report).  LeakSanitizer is on, with the suppressions of
# tests/lsan.supp (docs/robustness.md).
# Groups left out under the sanitizers, and why: docs/robustness.md.
ASAN_GROUPS ?= qtests hostlink cli fuzz guest fw host sysemu memory fabric isa asm
SAN_LOGS = $(abspath $(BUILD))/asan-logs
ASAN_RUN = rm -rf $(SAN_LOGS) && mkdir -p $(SAN_LOGS) && \
	ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:log_path=$(SAN_LOGS)/asan \
	LSAN_OPTIONS=suppressions=$(abspath tests/lsan.supp):print_suppressions=0 \
	UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1:log_path=$(SAN_LOGS)/ubsan \
	ETSOC1_QEMU_BUILD=$(abspath $(BUILD))/qemu-asan \
	ETSOC1_SAN_LOGS=$(SAN_LOGS) \
	python3 tests/run.py $(BUILD) $(ASAN_GROUPS)

asan-build: all
	@ETSOC1_SANITIZE=1 scripts/build-qemu.sh $(abspath $(BUILD))

clean:
	rm -rf $(BUILD)/guest $(BUILD)/qemu-build $(BUILD)/qemu-asan
