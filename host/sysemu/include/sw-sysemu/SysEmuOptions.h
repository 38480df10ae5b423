// SPDX-License-Identifier: GPL-2.0-or-later
// Options for emu::ISysEmu::create().  The device layer keeps this struct
// in its public interface, so the members, their order, types and
// defaults are those of Esperanto's sw-sysemu; docs/sysemu-layer.md says
// which ones the QEMU-backed layer honours.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#pragma GCC visibility push(default)

namespace emu {
struct SysEmuOptions {
  // Firmware ELFs (ignored: the card always boots the project's stubs).
  std::string bootromTrampolineToBL2ElfPath;
  std::string spBL2ElfPath;
  std::string machineMinionElfPath;
  std::string masterMinionElfPath;
  std::string workerMinionElfPath;
  std::string executablePath; // unused, as in the original
  std::string runDir;         // QEMU's logs and socket go below it
  uint64_t maxCycles;
  uint64_t minionShiresMask;
  // UART TX logs (PU UART0/1, SP UART0 become links to QEMU's logs).
  std::string puUart0Path;
  std::string puUart1Path;
  std::string spUart0Path;
  std::string spUart1Path;
  // Bring-up FIFOs (ignored).
  std::string puUart1FifoOutPath;
  std::string puUart1FifoInPath;
  std::string spUart0FifoOutPath;
  std::string spUart0FifoInPath;
  std::string spUart1FifoOutPath;
  std::string spUart1FifoInPath;
  bool startGdb;
  std::string logFile = "sysemu.log";
  // Checkers of the original simulator (ignored).
  bool memcheck = true;
  bool l2ScpCheck = true;
  bool l1ScpCheck = true;
  bool flbCheck = true;
  bool tstoreCheck = true;
  uint32_t mem_reset32 = 0xDEADBEEF;
  // "qemu:<arg>" entries are appended to QEMU's command line.
  std::vector<std::string> additionalOptions;
};
} // namespace emu

#pragma GCC visibility pop
