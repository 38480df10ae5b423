// SPDX-License-Identifier: GPL-2.0-or-later
// emu::ISysEmu on top of libetsoc1-host: one QEMU ET-SoC-1 card per
// instance, reached over the host link (docs/host-link.md).  What is
// honoured of SysEmuOptions, and why, is in docs/sysemu-layer.md.

#include "sw-sysemu/ISysEmu.h"

#include "etsoc1-host.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#ifndef SYSEMU_DEFAULT_QEMU
#define SYSEMU_DEFAULT_QEMU ""
#endif
#ifndef SYSEMU_DEFAULT_GUEST_DIR
#define SYSEMU_DEFAULT_GUEST_DIR ""
#endif

namespace emu {

void ISysEmu::IHostListener::memoryReadFromHost(uint64_t address,
                                                size_t size, std::byte* dst) {
  auto src = reinterpret_cast<const std::byte*>(address);
  std::copy(src, src + size, dst);
}

void ISysEmu::IHostListener::memoryWriteFromHost(uint64_t address,
                                                 size_t size,
                                                 const std::byte* src) {
  auto dst = reinterpret_cast<std::byte*>(address);
  std::copy(src, src + size, dst);
}

void ISysEmu::IHostListener::onSysemuFatalError(const std::string& error) {
  std::fprintf(stderr, "sw-sysemu: fatal error from the card: %s\n",
               error.c_str());
}

namespace {

// Sizes of the two BAR windows the device layer uses (BAR0 = DRAM, BAR2 =
// registers and mailboxes); used only to relocate its bus addresses if
// the card's BARs differ from the ones it picked.
constexpr uint64_t kBar0Size = 0x800000000ull;
constexpr uint64_t kBar2Size = 0x4000ull;

// Default bound on the boot (READY) wait; ETSOC1_READY_TIMEOUT_MS changes
// it.  2112 harts under TCG take a while to reach their idle loops.
constexpr unsigned kReadyTimeoutMs = 180000;

// The user address space of x86-64 and AArch64 Linux (47/48-bit, below
// the first 64 KiB that mmap_min_addr keeps unmapped).
constexpr uint64_t kUserBase = 0x10000ull, kUserEnd = 1ull << 47;

std::string envOr(const char* name, const char* dflt) {
  const char* v = std::getenv(name);
  return v && *v ? v : dflt;
}

std::string hostError(int err) {
  return etsoc1_host_strerror(err);
}

// Per-instance run directory below runDir: the socket and logs of two
// cards (multi-device tests) must not collide, and a Unix socket path is
// limited to 108 bytes, so a long runDir falls back to a mkdtemp dir.
std::string makeRunDir(const std::string& base) {
  static std::atomic<unsigned> counter{0};
  if (base.empty()) {
    return "";
  }
  std::string dir = base + "/etsoc1-card." + std::to_string(getpid()) +
                    "." + std::to_string(counter++);
  if (dir.size() + 16 > 100) {
    return "";
  }
  if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    return "";
  }
  return dir;
}

// The UART log options become symbolic links to QEMU's serial logs.
void linkLog(const std::string& path, const std::string& dir,
             const char* file) {
  if (path.empty() || dir.empty()) {
    return;
  }
  struct stat st;
  if (lstat(path.c_str(), &st) == 0) {
    if (!S_ISLNK(st.st_mode) && !S_ISREG(st.st_mode)) {
      return;
    }
    unlink(path.c_str());
  }
  std::string target = dir + "/" + file;
  if (symlink(target.c_str(), path.c_str()) != 0) {
    std::fprintf(stderr, "sw-sysemu: cannot link %s to %s: %s\n",
                 path.c_str(), target.c_str(), std::strerror(errno));
  }
}

class QemuSysEmu final : public ISysEmu {
public:
  QemuSysEmu(const SysEmuOptions& opts,
             const std::array<uint64_t, 8>& bars, IHostListener* listener);
  ~QemuSysEmu() override;

  uint32_t waitForInterrupt(uint32_t bitmask) override;
  void mmioRead(uint64_t address, size_t size, std::byte* dst) override;
  void mmioWrite(uint64_t address, size_t size,
                 const std::byte* src) override;
  void raiseDevicePuPlicPcieMessageInterrupt() override;
  void raiseDeviceSpioPlicPcieMessageInterrupt() override;
  void stop() override;
  void pause() override;
  void resume() override;

private:
  static int hostRead(void* opaque, uint64_t addr, void* buf, uint32_t len);
  static int hostWrite(void* opaque, uint64_t addr, void* buf, uint32_t len);
  static void onFatal(void* opaque, const char* why);

  uint64_t toCard(uint64_t address) const;
  void wakeIfPaused();
  void check(int err, const char* what, uint64_t address = 0) const;

  Etsoc1Host* host_ = nullptr;
  IHostListener* listener_;
  std::string runDir_;
  uint64_t hostBar0_, hostBar2_;   // as the device layer chose them
  uint64_t cardBar0_ = 0, cardBar2_ = 0; // as the card reported
  // Pause hints (see pause()); pauseMutex_ keeps the flag and the card's
  // state in step when the hint and an access race.
  bool pauseHonoured_ = false;
  std::mutex pauseMutex_;
  bool paused_ = false;

  // stop() must wake waitForInterrupt, and the destructor must not free
  // the link while a waiter is still inside it (the device layer's
  // interrupt thread may be), hence the count.
  std::mutex mutex_;
  std::condition_variable cond_;
  bool stopped_ = false;
  unsigned waiters_ = 0;
};

QemuSysEmu::QemuSysEmu(const SysEmuOptions& opts,
                       const std::array<uint64_t, 8>& bars,
                       IHostListener* listener)
    : listener_(listener), hostBar0_(bars[0]), hostBar2_(bars[2]) {
  std::string qemu = envOr("ETSOC1_QEMU", SYSEMU_DEFAULT_QEMU);
  std::string guest = envOr("ETSOC1_GUEST_DIR", SYSEMU_DEFAULT_GUEST_DIR);
  unsigned timeout = kReadyTimeoutMs;
  if (const char* t = std::getenv("ETSOC1_READY_TIMEOUT_MS")) {
    timeout = static_cast<unsigned>(std::strtoul(t, nullptr, 0));
  }
  if (timeout == 0) {
    timeout = kReadyTimeoutMs;
  }

  // Extra QEMU arguments: "qemu:<arg>" options, then $ETSOC1_QEMU_ARGS
  // (split at blanks) so a test binary can be given them unchanged.
  // The card's DRAM is the library's (a card's 32 GiB, or
  // $ETSOC1_DRAM_MIB): Esperanto's tests allocate 2 GiB of device memory
  // in one piece, their gatomic kernels use fixed addresses above 8 GiB.
  std::vector<std::string> extra;
  for (const auto& a : opts.additionalOptions) {
    if (a.rfind("qemu:", 0) == 0) {
      extra.push_back(a.substr(5));
    }
  }
  if (opts.startGdb) {
    extra.push_back("-s");   // gdb stub on tcp::1234; the card still runs
  }
  std::istringstream env(envOr("ETSOC1_QEMU_ARGS", ""));
  for (std::string a; env >> a;) {
    extra.push_back(a);
  }
  std::vector<const char*> argv;
  for (const auto& a : extra) {
    argv.push_back(a.c_str());
  }
  argv.push_back(nullptr);

  pauseHonoured_ = envOr("ETSOC1_SYSEMU_PAUSE", "0") == "1";

  runDir_ = makeRunDir(opts.runDir);
  Etsoc1HostOptions ho{};
  ho.qemu = qemu.empty() ? nullptr : qemu.c_str();
  ho.guest_dir = guest.empty() ? nullptr : guest.c_str();
  ho.run_dir = runDir_.empty() ? nullptr : runDir_.c_str();
  ho.extra_args = argv.data();
  ho.ready_timeout_ms = timeout;

  int err = etsoc1_host_start(&ho, &host_);
  if (err < 0) {
    throw Exception("sw-sysemu: cannot start the QEMU card (" +
                    (qemu.empty() ? std::string("default QEMU") : qemu) +
                    "): " + hostError(err) +
                    (runDir_.empty() ? std::string()
                                     : "; see " + runDir_ + "/qemu.log"));
  }
  const char* rd = etsoc1_host_run_dir(host_);
  if (rd) {
    runDir_ = rd;
  }
  linkLog(opts.puUart0Path, runDir_, "pu0.log");
  linkLog(opts.puUart1Path, runDir_, "pu1.log");
  linkLog(opts.spUart0Path, runDir_, "sp0.log");
  // sysemu's own log is QEMU's stdout/stderr here.
  if (!opts.logFile.empty() && !opts.runDir.empty()) {
    linkLog(opts.logFile[0] == '/' ? opts.logFile
                                   : opts.runDir + "/" + opts.logFile,
            runDir_, "qemu.log");
  }

  // Host memory goes through the listener, which by default treats the
  // address as a pointer in this process (the runtime's bounce buffers).
  etsoc1_host_set_memory(host_, hostRead, hostWrite, this);
  // At memory speed instead: the card reads and writes this process's
  // memory itself (docs/sysemu-layer.md, "Host DMA").  The device layer's
  // buffers are its own malloc()s, so the range is the whole user address
  // space, as the in-process original reaches it; the listener then sees
  // no eDMA access.  ETSOC1_SYSEMU_SHARED_DMA=0 keeps the listener path.
  if (envOr("ETSOC1_SYSEMU_SHARED_DMA", "1") != "0") {
    etsoc1_host_share_memory(host_, kUserBase, kUserEnd - kUserBase);
  }

  err = etsoc1_host_wait_ready(host_, timeout, &cardBar0_, &cardBar2_);
  if (err < 0) {
    const char* why = etsoc1_host_fatal_reason(host_);
    std::string msg = "sw-sysemu: the QEMU card did not become ready "
                      "(firmware did not open the PCIe windows) within " +
                      std::to_string(timeout / 1000) + " s: " +
                      hostError(err) + (why && *why ? std::string(" (") +
                      why + ")" : std::string()) + "; logs in " + runDir_;
    etsoc1_host_close(host_);
    host_ = nullptr;
    throw Exception(msg);
  }
  // Only after READY: a link failure during boot is reported by the
  // exception above, not through the listener.
  etsoc1_host_on_fatal(host_, onFatal, this);
  if (listener_) {
    listener_->pcieReady();
  }
}

QemuSysEmu::~QemuSysEmu() {
  stop();
  std::unique_lock<std::mutex> lock(mutex_);
  cond_.wait(lock, [this] { return waiters_ == 0; });
  lock.unlock();
  if (host_) {
    etsoc1_host_close(host_);
  }
}

int QemuSysEmu::hostRead(void* opaque, uint64_t addr, void* buf,
                         uint32_t len) {
  auto self = static_cast<QemuSysEmu*>(opaque);
  if (!self->listener_) {
    return -1;
  }
  try {
    self->listener_->memoryReadFromHost(addr, len,
                                        static_cast<std::byte*>(buf));
  } catch (...) {
    return -1;   // the eDMA channel aborts, as for a refused access
  }
  return 0;
}

int QemuSysEmu::hostWrite(void* opaque, uint64_t addr, void* buf,
                          uint32_t len) {
  auto self = static_cast<QemuSysEmu*>(opaque);
  if (!self->listener_) {
    return -1;
  }
  try {
    self->listener_->memoryWriteFromHost(addr, len,
                                         static_cast<std::byte*>(buf));
  } catch (...) {
    return -1;
  }
  return 0;
}

void QemuSysEmu::onFatal(void* opaque, const char* why) {
  auto self = static_cast<QemuSysEmu*>(opaque);
  if (self->listener_) {
    self->listener_->onSysemuFatalError(
        std::string("QEMU host link: ") + (why ? why : "connection lost"));
  }
}

// The device layer picks its BAR addresses itself; if the card put them
// elsewhere, move the address into the card's window of the same BAR.
uint64_t QemuSysEmu::toCard(uint64_t a) const {
  if (a - hostBar2_ < kBar2Size) {
    return cardBar2_ + (a - hostBar2_);
  }
  if (a - hostBar0_ < kBar0Size) {
    return cardBar0_ + (a - hostBar0_);
  }
  return a;
}

// As in sysemu, every access resumes a paused card.
void QemuSysEmu::wakeIfPaused() {
  if (!pauseHonoured_) {
    return;
  }
  std::lock_guard<std::mutex> lock(pauseMutex_);
  if (paused_) {
    paused_ = false;
    etsoc1_host_resume(host_);
  }
}

void QemuSysEmu::check(int err, const char* what, uint64_t address) const {
  if (err >= 0) {
    return;
  }
  char addr[32];
  std::snprintf(addr, sizeof(addr), " at 0x%llx",
                static_cast<unsigned long long>(address));
  throw Exception(std::string("sw-sysemu: ") + what +
                  (address ? addr : "") + " failed: " + hostError(err));
}

uint32_t QemuSysEmu::waitForInterrupt(uint32_t bitmask) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopped_) {
      return 0;
    }
    waiters_++;
  }
  uint32_t bits = etsoc1_host_wait_msi(host_, bitmask, -1);
  std::unique_lock<std::mutex> lock(mutex_);
  if (bits == 0) {
    // Forever means until stop(): a dead link (already reported through
    // onSysemuFatalError) must not turn the caller's loop into a spin.
    cond_.wait(lock, [this] { return stopped_; });
  }
  waiters_--;
  cond_.notify_all();
  return bits;
}

void QemuSysEmu::mmioRead(uint64_t address, size_t size, std::byte* dst) {
  wakeIfPaused();
  check(etsoc1_host_mmio_read(host_, toCard(address), dst,
                              static_cast<uint32_t>(size)),
        "mmio read", address);
}

void QemuSysEmu::mmioWrite(uint64_t address, size_t size,
                           const std::byte* src) {
  wakeIfPaused();
  check(etsoc1_host_mmio_write(host_, toCard(address), src,
                               static_cast<uint32_t>(size)),
        "mmio write", address);
}

void QemuSysEmu::raiseDevicePuPlicPcieMessageInterrupt() {
  wakeIfPaused();
  check(etsoc1_host_doorbell(host_, ETSOC1_HOST_MM), "MM doorbell");
}

void QemuSysEmu::raiseDeviceSpioPlicPcieMessageInterrupt() {
  wakeIfPaused();
  check(etsoc1_host_doorbell(host_, ETSOC1_HOST_SP), "SP doorbell");
}

void QemuSysEmu::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopped_) {
      return;
    }
    stopped_ = true;
    cond_.notify_all();
  }
  if (host_) {
    etsoc1_host_stop(host_);   // wakes wait_msi and reaps QEMU
  }
}

// The runtime's inactivity hint, ignored unless ETSOC1_SYSEMU_PAUSE=1.
// The runtime gives it after any empty CQ poll, racing with its own
// command sender: a hint can land just after a doorbell, so only a
// resume on every access (the next poll) keeps the card from sleeping on
// a command; that costs a VM stop and start per poll.  An idle card
// costs almost no host time anyway (its harts wait for interrupts).
void QemuSysEmu::pause() {
  if (!pauseHonoured_) {
    return;
  }
  std::lock_guard<std::mutex> lock(pauseMutex_);
  if (!paused_) {
    paused_ = true;
    etsoc1_host_pause(host_);
  }
}

void QemuSysEmu::resume() {
  wakeIfPaused();
}

} // namespace

std::unique_ptr<ISysEmu>
ISysEmu::create(const SysEmuOptions& options,
                const std::array<uint64_t, 8>& barAddresses,
                IHostListener* hostListener) {
  return std::make_unique<QemuSysEmu>(options, barAddresses, hostListener);
}

} // namespace emu
