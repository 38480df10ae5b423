# SPDX-License-Identifier: GPL-2.0-or-later
# Thin wrapper around meson/ninja: see README.md.
BUILD := build

.PHONY: all demo check check-asan clean tools trace-png

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

check: all
	@python3 tests/run.py $(BUILD)

# QEMU with AddressSanitizer + UndefinedBehaviorSanitizer in
# $(BUILD)/qemu-asan (ccache and the source tree shared with the plain
# build), then the groups that cover the device models, the host link and
# the command line under it (docs/robustness.md).  Every sanitizer report
# goes to a file in $(BUILD)/asan-logs (not to stderr); a report there fails
# the run, even from a process whose exit status a test expects to be
# non-zero (ASan's start-up warning about QEMU's coroutines does not).
# Leak detection is off for now: not yet tried over the whole suite
# (docs/robustness.md).
ASAN_GROUPS := qtests hostlink cli fuzz guest
SAN_LOGS = $(abspath $(BUILD))/asan-logs
check-asan: all
	@ETSOC1_SANITIZE=1 scripts/build-qemu.sh $(abspath $(BUILD))
	@rm -rf $(SAN_LOGS) && mkdir -p $(SAN_LOGS)
	@ASAN_OPTIONS=halt_on_error=1:detect_leaks=0:log_path=$(SAN_LOGS)/asan \
	 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:log_path=$(SAN_LOGS)/ubsan \
	 ETSOC1_QEMU_BUILD=$(abspath $(BUILD))/qemu-asan \
	 python3 tests/run.py $(BUILD) $(ASAN_GROUPS); rc=$$?; \
	 bad=$$(grep -l -E 'ERROR: (Address|Leak)Sanitizer|runtime error:' \
	        $(SAN_LOGS)/* 2>/dev/null); \
	 if [ -n "$$bad" ]; then \
	     echo "check-asan: sanitizer reports:"; cat $$bad; exit 1; fi; \
	 exit $$rc

clean:
	rm -rf $(BUILD)/guest $(BUILD)/qemu-build $(BUILD)/qemu-asan
