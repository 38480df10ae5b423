// SPDX-License-Identifier: GPL-2.0-or-later
// Drives the sw-sysemu replacement the way Esperanto's DeviceSysEmu does,
// through ISysEmu / SysEmuOptions / IHostListener only: create (boots a
// QEMU card), wait for pcieReady, read and CRC-check the SP and MM
// device-interface registers, push an ECHO command into MM SQ0, ring the
// MM doorbell, wait for the MM CQ MSI and pop the response.  TAP output.

#include <sw-sysemu/ISysEmu.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdlib>
#include <chrono>
#include <elf.h>
#include <fstream>
#include <iterator>
#include <vector>
#include <cstdio>
#include <cstring>
#include <future>
#include <string>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>

namespace {

int testNo = 0;
int failures = 0;

void tap(bool ok, const std::string& name, const std::string& diag = "") {
  std::printf("%s %d - %s\n", ok ? "ok" : "not ok", ++testNo, name.c_str());
  if (!ok) {
    failures++;
    if (!diag.empty()) {
      std::printf("# %s\n", diag.c_str());
    }
  }
  std::fflush(stdout);
}

// The standard reflected CRC-32 (what boost::crc_32_type computes).
uint32_t crc32(const uint8_t* p, size_t n) {
  uint32_t c = 0xFFFFFFFFu;
  while (n--) {
    c ^= *p++;
    for (int k = 0; k < 8; k++) {
      c = (c >> 1) ^ (0xEDB88320u & -(c & 1u));
    }
  }
  return ~c;
}

std::string envOr(const char* name, const char* dflt) {
  const char* v = std::getenv(name);
  return v && *v ? v : dflt;
}

template <typename T> T get(const uint8_t* p, size_t off) {
  T v;
  std::memcpy(&v, p + off, sizeof(v));
  return v;
}

struct Listener : emu::ISysEmu::IHostListener {
  std::promise<void> ready;
  int readyCalls = 0;
  std::atomic<unsigned long> served{0};   // host memory reads served
  void pcieReady() override {
    if (readyCalls++ == 0) {
      ready.set_value();
    }
  }
  void memoryReadFromHost(uint64_t address, size_t size,
                          std::byte* dst) override {
    IHostListener::memoryReadFromHost(address, size, dst);
    served++;
  }
};

// Offsets in the device-interface registers (packed structs).
constexpr uint64_t kBar0 = 0x1000000000ull, kBar2 = 0x2000000000ull;
constexpr size_t kSpDirSize = 352, kMmDirSize = 112;
constexpr size_t kSpStatus = 44, kSpCrc = 16, kSpVq = 72, kSpRegions = 96;
constexpr size_t kMmStatus = 8, kMmCrc = 10, kMmVq = 16, kMmRegions = 48;
constexpr int16_t kSpDevReady = 10, kMmReady = 8;
constexpr uint16_t kEchoCmd = 517, kEchoRsp = 518;
constexpr uint32_t kMmCqMsi = 1u << 3;

bool readDir(emu::ISysEmu& s, uint64_t addr, size_t size, size_t statusOff,
             int16_t readyValue, size_t crcOff, size_t vqOff, uint8_t* buf,
             std::string& why) {
  auto end = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  int16_t status = 0;
  while (std::chrono::steady_clock::now() < end) {
    s.mmioRead(addr + statusOff, 2, reinterpret_cast<std::byte*>(&status));
    if (status >= readyValue || status < 0) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (status < readyValue) {
    why = "status " + std::to_string(status);
    return false;
  }
  s.mmioRead(addr, size, reinterpret_cast<std::byte*>(buf));
  uint16_t attrSize = get<uint16_t>(buf, 0);
  uint16_t total = get<uint16_t>(buf, 4);
  if (total < attrSize || vqOff + (total - attrSize) > size) {
    why = "bad sizes: total " + std::to_string(total) + " attributes " +
          std::to_string(attrSize);
    return false;
  }
  uint32_t want = get<uint32_t>(buf, crcOff);
  uint32_t got = crc32(buf + vqOff, total - attrSize);
  if (want != got) {
    why = "crc " + std::to_string(want) + " computed " + std::to_string(got);
    return false;
  }
  return true;
}

// Copy to or from a ring (data after the 32-byte CircBuffCb), wrapping.
void ringIo(emu::ISysEmu& s, uint64_t q, uint64_t len, uint64_t off,
            uint8_t* data, size_t n, bool write) {
  uint64_t ring = q + 32;
  size_t first = static_cast<size_t>(std::min<uint64_t>(n, len - off));
  auto p = reinterpret_cast<std::byte*>(data);
  if (write) {
    s.mmioWrite(ring + off, first, p);
    if (n > first) {
      s.mmioWrite(ring, n - first, p + first);
    }
  } else {
    s.mmioRead(ring + off, first, p);
    if (n > first) {
      s.mmioRead(ring, n - first, p + first);
    }
  }
}

// Push @n bytes of @cmd into SQ @q (tag set here) and ring the MM doorbell.
bool push(emu::ISysEmu& s, uint64_t q, uint8_t* cmd, uint16_t n,
          uint16_t tag) {
  uint64_t cb[3];    // head, tail, length
  s.mmioRead(q, sizeof(cb), reinterpret_cast<std::byte*>(cb));
  uint64_t used = (cb[0] + cb[2] - cb[1]) % cb[2];
  if (cb[2] - 1 - used < n) {
    return false;
  }
  std::memcpy(cmd, &n, 2);
  std::memcpy(cmd + 2, &tag, 2);
  ringIo(s, q, cb[2], cb[0], cmd, n, true);
  uint64_t head = (cb[0] + n) % cb[2];
  s.mmioWrite(q, 8, reinterpret_cast<std::byte*>(&head));
  s.raiseDevicePuPlicPcieMessageInterrupt();
  return true;
}

constexpr uint16_t kLaunchCmd = 521, kReadListCmd = 525, kWriteListCmd = 527;

// Pop one response from CQ @q into @rsp (at most 64 bytes); false if empty.
bool pop(emu::ISysEmu& s, uint64_t q, uint8_t* rsp) {
  uint64_t cb[3];
  s.mmioRead(q, sizeof(cb), reinterpret_cast<std::byte*>(cb));
  if (cb[0] == cb[1]) {
    return false;
  }
  ringIo(s, q, cb[2], cb[1], rsp, 8, false);
  uint16_t size = get<uint16_t>(rsp, 0);
  if (size > 56) {
    return false;
  }
  ringIo(s, q, cb[2], (cb[1] + 8) % cb[2], rsp + 8, size, false);
  uint64_t tail = (cb[1] + 8 + size) % cb[2];
  s.mmioWrite(q + 8, 8, reinterpret_cast<std::byte*>(&tail));
  return true;
}

// A DMA list of 4 equal nodes between host @host and card @dev, as the
// runtime sends it; the response's status, or -1 after 120 s.
int dmaList(emu::ISysEmu& s, uint64_t sq, uint64_t cq, bool toCard,
            uint8_t* host, uint64_t dev, uint32_t size) {
  static uint16_t tag = 0x100;
  uint8_t cmd[136] = {}, rsp[64];
  uint16_t msg = toCard ? kWriteListCmd : kReadListCmd;
  for (int i = 0; i < 4; i++) {
    uint64_t h = reinterpret_cast<uintptr_t>(host) + uint64_t(i) * size / 4;
    uint64_t node[4] = {h, h, dev + uint64_t(i) * size / 4, size / 4};
    std::memcpy(cmd + 8 + 32 * i, node, 32);
  }
  std::memcpy(cmd + 4, &msg, 2);
  if (!push(s, sq, cmd, 136, ++tag)) {
    return -1;
  }
  auto end = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < end) {
    if (pop(s, cq, rsp) && get<uint16_t>(rsp, 2) == tag) {
      return static_cast<int>(get<uint32_t>(rsp, 32));
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return -1;
}

// The MM DIR's host-managed DRAM: device address (0 if none).
uint64_t hostManaged(const uint8_t* mm) {
  for (int i = 0; i < 2; i++) {
    const uint8_t* r = mm + kMmRegions + 32 * i;
    if (r[2] == 1) {
      return get<uint64_t>(r, 24);
    }
  }
  return 0;
}

// --bench-dma: 256 MiB DMA lists each way, wall rate, median (min-max).
int benchDma(emu::ISysEmu& s, uint64_t sq, uint64_t cq, const uint8_t* mm) {
  const uint32_t n = 256u << 20;
  const int runs = 5;
  std::vector<uint8_t> src(n), dst(n);
  for (uint32_t i = 0; i < n; i++) {
    src[i] = static_cast<uint8_t>(i * 13 + (i >> 16));
  }
  uint64_t dev = hostManaged(mm) + 0x1000000;
  double t[2][runs];
  int bad = 0;
  for (int k = 0; k < runs; k++) {
    auto a = std::chrono::steady_clock::now();
    bad |= dmaList(s, sq, cq, true, src.data(), dev, n);
    auto b = std::chrono::steady_clock::now();
    bad |= dmaList(s, sq, cq, false, dst.data(), dev, n);
    auto c = std::chrono::steady_clock::now();
    t[0][k] = std::chrono::duration<double>(b - a).count();
    t[1][k] = std::chrono::duration<double>(c - b).count();
  }
  bad |= src != dst;
  std::printf("| 256 MiB |");
  for (auto& d : t) {
    std::sort(d, d + runs);
    std::printf(" %.2f GB/s (%.2f-%.2f) |", n / d[runs / 2] / 1e9,
                n / d[runs - 1] / 1e9, n / d[0] / 1e9);
  }
  std::printf("%s\n", bad ? " **failed**" : "");
  return bad ? 1 : 0;
}
// A DMA list of 16 MiB through a host buffer whose page at 13 MiB + 32 KiB
// (inside the last node, half way into a 64 KiB piece) is unmapped: the
// card moves each eDMA timer run's pieces with one host access
// (docs/host-link.md), and one that meets the hole part way must move what
// lies before it and nothing after it, fail the command, and leave the
// card working.  host->card (@toCard) or back.  With -d guest_errors
// (main() asks for it) the card's log must name the piece that holds the
// hole as where the channel aborted, as it did when every piece was a host
// access of its own: the pieces before the hole are each done.
bool dmaAcrossHole(emu::ISysEmu& s, uint64_t sq, uint64_t cq,
                   const uint8_t* mm, bool toCard, std::string& why) {
  const uint32_t n = 16u << 20, hole = (13u << 20) + 0x8000;
  const uint32_t page = static_cast<uint32_t>(sysconf(_SC_PAGESIZE));
  uint64_t dev = hostManaged(mm) + 0x1000000;
  std::vector<uint8_t> before(n), after(n);
  for (uint32_t i = 0; i < n; i++) {
    before[i] = static_cast<uint8_t>(i * 5 + 1);
  }
  // the card's side starts as @before
  if (dmaList(s, sq, cq, true, before.data(), dev, n) != 0) {
    why = "setting up card memory failed";
    return false;
  }
  void* m = mmap(nullptr, n, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) {
    why = "mmap failed";
    return false;
  }
  auto* buf = static_cast<uint8_t*>(m);
  for (uint32_t i = 0; i < n; i++) {
    buf[i] = toCard ? static_cast<uint8_t>(i * 11 + 7) : 0;
  }
  munmap(buf + hole, page);
  int st = dmaList(s, sq, cq, toCard, buf, dev, n);
  bool ok = st > 0;   // an error status (-1: no response)
  // what the card holds now
  int back = dmaList(s, sq, cq, false, after.data(), dev, n);
  ok = ok && back == 0;
  if (toCard) {
    // up to the hole: the host's bytes; from the page after it: untouched
    for (uint32_t i = 0; ok && i < hole; i++) {
      ok = after[i] == static_cast<uint8_t>(i * 11 + 7);
    }
    ok = ok && std::equal(after.begin() + hole + page, after.end(),
                          before.begin() + hole + page);
  } else {
    ok = ok && std::equal(buf, buf + hole, before.begin()) &&
         std::all_of(buf + hole + page, buf + n,
                     [](uint8_t b) { return b == 0; });
  }
  why = "status " + std::to_string(st) + ", read back " +
        std::to_string(back);
  const char* args = std::getenv("ETSOC1_QEMU_ARGS");
  if (args && std::strstr(args, "guest_errors")) {
    // the 64 KiB piece (step-bytes) from the last node's start that holds it
    uint64_t node = reinterpret_cast<uintptr_t>(buf) + 3 * (n / 4);
    uint64_t piece = node + (hole - 3 * (n / 4)) / 0x10000 * 0x10000;
    char want[64];
    std::snprintf(want, sizeof(want), "%s channel 0 aborts: host-access at "
                  "0x%" PRIx64 "\n", toCard ? "rd" : "wr", piece);
    std::ifstream f("sysemu.log");
    std::string log((std::istreambuf_iterator<char>(f)),
                    std::istreambuf_iterator<char>());
    ok = ok && log.find(want) != std::string::npos;
    why += std::string(", looked for \"") +
           std::string(want, std::strlen(want) - 1) + "\" in sysemu.log";
  }
  munmap(buf, hole);
  munmap(buf + hole + page, n - hole - page);
  return ok;
}

constexpr uint32_t kOrphanNode = 64u << 20;

// --orphan dma|kernel: leave the card busy (a 256 MiB DMA host->card that
// has begun, or hang.elf spinning) and wait; tests/sysemu_tests.py kills
// this process with SIGKILL and checks that its QEMU exits.
int orphan(emu::ISysEmu& s, Listener& l, const uint8_t* mm, uint64_t sq0,
           const std::string& what) {
  uint64_t hmDev = 0, hmBus = 0;
  for (int i = 0; i < 2; i++) {
    const uint8_t* r = mm + kMmRegions + 32 * i;
    if (r[2] == 1) {   // OPS_HOST_MANAGED
      hmBus = (r[3] == 0 ? kBar0 : kBar2) + get<uint64_t>(r, 8);
      hmDev = get<uint64_t>(r, 24);
    }
  }
  if (!hmDev) {
    return 1;
  }
  static std::vector<uint8_t> buf;
  uint8_t cmd[136] = {};
  uint16_t msg;
  if (what == "dma") {
    buf.assign(4ull * kOrphanNode, 0x5a);
    for (int i = 0; i < 4; i++) {
      uint64_t node[4] = {
          reinterpret_cast<uintptr_t>(buf.data()) + uint64_t(i) * kOrphanNode,
          reinterpret_cast<uintptr_t>(buf.data()) + uint64_t(i) * kOrphanNode,
          hmDev + uint64_t(i) * kOrphanNode, kOrphanNode};
      std::memcpy(cmd + 8 + 32 * i, node, 32);
    }
    msg = kWriteListCmd;
    std::memcpy(cmd + 4, &msg, 2);
    if (!push(s, sq0, cmd, 136, 0x77)) {
      return 1;
    }
    // through the listener (ETSOC1_SYSEMU_SHARED_DMA=0): it has begun
    for (int i = 0; i < 60000 && l.served < 4; i++) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  } else if (what == "kernel") {
    // hang.elf's PT_LOAD segments written over BAR0 at their p_paddr
    const char* g = std::getenv("ETSOC1_GUEST_DIR");
    std::ifstream f(std::string(g ? g : "build/guest") + "/hang.elf",
                    std::ios::binary);
    std::vector<uint8_t> img((std::istreambuf_iterator<char>(f)),
                             std::istreambuf_iterator<char>());
    if (img.size() < sizeof(Elf64_Ehdr)) {
      return 1;
    }
    Elf64_Ehdr eh;
    std::memcpy(&eh, img.data(), sizeof(eh));
    for (int i = 0; i < eh.e_phnum; i++) {
      Elf64_Phdr ph;
      if (eh.e_phoff + (i + 1) * sizeof(ph) > img.size()) {
        return 1;
      }
      std::memcpy(&ph, img.data() + eh.e_phoff + i * sizeof(ph), sizeof(ph));
      if (ph.p_type != PT_LOAD || !ph.p_memsz) {
        continue;
      }
      if (ph.p_offset + ph.p_filesz > img.size() || ph.p_paddr < hmDev) {
        return 1;
      }
      std::vector<uint8_t> seg(ph.p_memsz, 0);
      std::memcpy(seg.data(), img.data() + ph.p_offset, ph.p_filesz);
      s.mmioWrite(hmBus + (ph.p_paddr - hmDev), seg.size(),
                  reinterpret_cast<std::byte*>(seg.data()));
    }
    uint64_t launch[4] = {eh.e_entry, 0, hmDev + 0x100000, 1};
    std::memcpy(cmd + 8, launch, sizeof(launch));
    msg = kLaunchCmd;
    std::memcpy(cmd + 4, &msg, 2);
    if (!push(s, sq0, cmd, 40, 0x78)) {
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  } else {
    return 1;
  }
  std::printf("# orphan: %s in flight, served %lu host reads\n", what.c_str(),
              l.served.load());
  std::fflush(stdout);
  std::this_thread::sleep_for(std::chrono::seconds(60));   // until killed
  return 1;
}

} // namespace

int main(int argc, char** argv) {
  std::string orphanWhat =
      argc > 2 && std::string(argv[1]) == "--orphan" ? argv[2] : "";
  bool sharedDma = envOr("ETSOC1_SYSEMU_SHARED_DMA", "1") != "0";
  // (the DMA across a hole checks the card's log; others' arguments stay)
  setenv("ETSOC1_QEMU_ARGS", "-d guest_errors", 0);
  std::printf("TAP version 13\n1..%d\n", sharedDma ? 11 : 9);
  std::fflush(stdout);

  emu::SysEmuOptions opts;
  char cwd[4096];
  opts.runDir = getcwd(cwd, sizeof(cwd)) ? cwd : "";
  opts.maxCycles = ~0ull;
  opts.minionShiresMask = 0x1FFFFFFFFull;
  opts.startGdb = false;
  std::array<uint64_t, 8> bars{};
  bars[0] = kBar0;
  bars[2] = kBar2;

  Listener listener;
  std::unique_ptr<emu::ISysEmu> sys;
  try {
    sys = emu::ISysEmu::create(opts, bars, &listener);
    tap(true, "create() boots the card");
  } catch (const std::exception& e) {
    tap(false, "create() boots the card", e.what());
    std::printf("Bail out! no card\n");
    return 1;
  }
  auto ready = listener.ready.get_future();
  tap(ready.wait_for(std::chrono::seconds(0)) == std::future_status::ready &&
          listener.readyCalls == 1,
      "pcieReady() called once");

  uint8_t sp[kSpDirSize], mm[kMmDirSize];
  std::string why;
  bool ok = false;
  try {
    ok = readDir(*sys, kBar2 + 0x1000, kSpDirSize, kSpStatus, kSpDevReady,
                 kSpCrc, kSpVq, sp, why);
  } catch (const std::exception& e) {
    why = e.what();
  }
  tap(ok, "SP DIR ready, CRC matches", why);
  ok = false;
  try {
    ok = readDir(*sys, kBar2, kMmDirSize, kMmStatus, kMmReady, kMmCrc, kMmVq,
                 mm, why);
  } catch (const std::exception& e) {
    why = e.what();
  }
  tap(ok, "MM DIR ready, CRC matches", why);
  if (!ok) {
    std::printf("Bail out! no MM DIR\n");
    return 1;
  }

  // Region 0 of the MM DIR is the VQ buffer; queues are relative to it.
  uint8_t bar = mm[kMmRegions + 3];
  uint64_t base = (bar == 0 ? kBar0 : kBar2) +
                  get<uint64_t>(mm, kMmRegions + 8);
  uint64_t sq0 = base + get<uint32_t>(mm, kMmVq + 8);
  uint64_t cq0 = base + get<uint32_t>(mm, kMmVq + 16);
  if (!orphanWhat.empty()) {
    return orphan(*sys, listener, mm, sq0, orphanWhat);
  }
  if (argc > 1 && std::string(argv[1]) == "--bench-dma") {
    int r = benchDma(*sys, sq0, cq0, mm);
    sys->stop();
    return r;
  }

  try {
    uint64_t cb[3];    // head, tail, length
    sys->mmioRead(sq0, sizeof(cb), reinterpret_cast<std::byte*>(cb));
    uint64_t used = (cb[0] + cb[2] - cb[1]) % cb[2];
    uint8_t cmd[16] = {};
    uint16_t hdr[4] = {sizeof(cmd), 0x1234, kEchoCmd, 0};
    std::memcpy(cmd, hdr, sizeof(hdr));
    bool room = cb[2] - 1 - used >= sizeof(cmd);
    if (room) {
      ringIo(*sys, sq0, cb[2], cb[0], cmd, sizeof(cmd), true);
      uint64_t head = (cb[0] + sizeof(cmd)) % cb[2];
      sys->mmioWrite(sq0, 8, reinterpret_cast<std::byte*>(&head));
      sys->raiseDevicePuPlicPcieMessageInterrupt();
    }
    tap(room, "ECHO pushed into MM SQ0, doorbell rung");

    // waitForInterrupt has no timeout: run it aside and bound it here.
    auto msi = std::async(std::launch::async,
                          [&] { return sys->waitForInterrupt(kMmCqMsi); });
    bool got = msi.wait_for(std::chrono::seconds(60)) ==
               std::future_status::ready;
    if (!got) {
      sys->stop();      // wakes the waiter
    }
    tap(got && (msi.get() & kMmCqMsi), "MM CQ MSI (vector 3) arrives");

    sys->mmioRead(cq0, sizeof(cb), reinterpret_cast<std::byte*>(cb));
    uint8_t rsp[24] = {};
    bool popped = false;
    if (cb[0] != cb[1]) {
      ringIo(*sys, cq0, cb[2], cb[1], rsp, 8, false);
      uint16_t size = get<uint16_t>(rsp, 0);
      if (size <= 16) {
        ringIo(*sys, cq0, cb[2], (cb[1] + 8) % cb[2], rsp + 8, size, false);
        uint64_t tail = (cb[1] + 8 + size) % cb[2];
        sys->mmioWrite(cq0 + 8, 8, reinterpret_cast<std::byte*>(&tail));
        popped = true;
      }
    }
    char diag[96];
    std::snprintf(diag, sizeof(diag), "size %u tag 0x%x msg %u status %u",
                  get<uint16_t>(rsp, 0), get<uint16_t>(rsp, 2),
                  get<uint16_t>(rsp, 4), get<uint32_t>(rsp, 16));
    tap(popped && get<uint16_t>(rsp, 0) == 16 &&
            get<uint16_t>(rsp, 2) == 0x1234 &&
            get<uint16_t>(rsp, 4) == kEchoRsp &&
            get<uint32_t>(rsp, 16) == 0,
        "ECHO response popped from MM CQ", diag);
  } catch (const std::exception& e) {
    tap(false, "echo round trip", e.what());
  }

  // DMA both ways: with shared host memory (the default) the card reaches
  // this process's buffers itself and the listener is not called.
  {
    const uint32_t n = 16u << 20;
    std::vector<uint8_t> src(n), dst(n);
    for (uint32_t i = 0; i < n; i++) {
      src[i] = static_cast<uint8_t>(i * 7 + 3);
    }
    unsigned long served0 = listener.served;
    uint64_t dev = hostManaged(mm) + 0x1000000;
    int w = -1, r = -1;
    try {
      w = dmaList(*sys, sq0, cq0, true, src.data(), dev, n);
      r = dmaList(*sys, sq0, cq0, false, dst.data(), dev, n);
    } catch (const std::exception& e) {
      std::printf("# %s\n", e.what());
    }
    bool shared = envOr("ETSOC1_SYSEMU_SHARED_DMA", "1") != "0";
    unsigned long calls = listener.served - served0;
    tap(w == 0 && r == 0 && src == dst && (shared ? calls == 0 : calls > 0),
        "DMA list 16 MiB host->card and back, data checked; listener "
        "reads: " + std::to_string(calls) +
            (shared ? " (shared host memory: none)" : " (listener path)"));
  }

  // Shared host memory only: the listener would dereference the hole.
  if (sharedDma) {
    for (bool toCard : {true, false}) {
      std::string why;
      bool ok = false;
      try {
        ok = dmaAcrossHole(*sys, sq0, cq0, mm, toCard, why);
      } catch (const std::exception& e) {
        why = e.what();
      }
      tap(ok, std::string("DMA list ") +
                  (toCard ? "host->card" : "card->host") +
                  " across an unmapped host page fails cleanly: the bytes "
                  "before it moved, none after it, the card goes on",
          why);
    }
  }

  // stop() must wake a waiter that has nothing to wait for.
  auto waiter = std::async(std::launch::async,
                           [&] { return sys->waitForInterrupt(1u << 0); });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  sys->stop();
  tap(waiter.wait_for(std::chrono::seconds(10)) ==
          std::future_status::ready,
      "stop() wakes waitForInterrupt");
  sys.reset();
  return failures ? 1 : 0;
}
