# SPDX-License-Identifier: GPL-2.0-or-later
# Thin wrapper around meson/ninja: see README.md.
BUILD := build

.PHONY: all demo check clean

all:
	@scripts/deps.sh
	@[ -f $(BUILD)/guest/build.ninja ] || \
		meson setup $(BUILD)/guest --cross-file riscv64-elf.cross >/dev/null
	@ninja -C $(BUILD)/guest all qemu.stamp

demo: all
	@scripts/demo.sh $(BUILD)

check: all
	@python3 tests/run.py $(BUILD)

clean:
	rm -rf $(BUILD)/guest $(BUILD)/qemu-build
