// SPDX-License-Identifier: GPL-2.0-or-later
// The in-process emulator interface that Esperanto's device layer
// (DeviceSysEmu) drives.  Same declarations as their sw-sysemu so their
// code builds unchanged; behind it is a QEMU ET-SoC-1 card reached over
// the host link (docs/sysemu-layer.md).
#pragma once
#include "ISysEmuExport.hpp"
#include "SysEmuOptions.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

namespace emu {

struct SW_SYSEMU_EXPORT Exception : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

class SW_SYSEMU_EXPORT ISysEmu {
public:
  class IHostListener {
  public:
    virtual void pcieReady() = 0;
    // Defaults: the address is a pointer in this process.
    virtual void memoryReadFromHost(uint64_t address, size_t size,
                                    std::byte* dst);
    virtual void memoryWriteFromHost(uint64_t address, size_t size,
                                     const std::byte* src);
    virtual void onSysemuFatalError(const std::string& error);
    virtual ~IHostListener() = default;
  };

  // Bits are MSI vectors: 0 SP SQ, 1 SP CQ, 2 MM SQ, 3 MM CQ.
  virtual uint32_t waitForInterrupt(uint32_t bitmask) = 0;
  // Addresses are host bus addresses in BAR0/BAR2.
  virtual void mmioRead(uint64_t address, size_t size, std::byte* dst) = 0;
  virtual void mmioWrite(uint64_t address, size_t size,
                         const std::byte* src) = 0;
  virtual void raiseDevicePuPlicPcieMessageInterrupt() = 0;
  virtual void raiseDeviceSpioPlicPcieMessageInterrupt() = 0;
  virtual void stop() = 0;
  virtual void pause() = 0;
  virtual void resume() = 0;
  virtual ~ISysEmu() = default;

  static std::unique_ptr<ISysEmu>
  create(const SysEmuOptions& options,
         const std::array<uint64_t, 8>& barAddresses,
         IHostListener* hostListener);
};

} // namespace emu
