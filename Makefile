# SPDX-License-Identifier: GPL-2.0-or-later
# Thin wrapper around meson/ninja: see README.md.
BUILD := build

.PHONY: all demo check clean tools

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

check: all
	@python3 tests/run.py $(BUILD)

clean:
	rm -rf $(BUILD)/guest $(BUILD)/qemu-build
