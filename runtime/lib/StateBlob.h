//===- StateBlob.h - checkpoint blob encoding helpers -----------*- C++ -*-===//
//
// Part of amp-mlir. The pieces shared by the checkpoint blobs of the loss
// scaler (LossScaler.cpp) and the optimizers (Optimizers.cpp): little-endian
// field-by-field writing and reading (no struct padding or host byte order
// leaks into a blob), the FNV-1a checksum, and the framing check every blob
// goes through before its fields are decoded:
//
//   offset size
//        0    8  magic (7 characters and a NUL)
//        8    4  uint32 version
//       12    4  uint32 total size of the blob in bytes
//       16  ...  fields
//   size-8    8  uint64 FNV-1a (64-bit) of every byte before it
//
// Host only (not compiled by nvcc).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_LIB_STATEBLOB_H
#define AMP_RUNTIME_LIB_STATEBLOB_H

#include "Internal.h"

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace amp {
namespace rt {
namespace blob {

/// Magic, version and size.
constexpr size_t kHeaderSize = 16;
constexpr size_t kChecksumSize = 8;

inline uint64_t fnv1a64(const unsigned char *data, size_t size) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < size; ++i) {
    hash ^= data[i];
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

class Writer {
public:
  explicit Writer(unsigned char *out) : out(out) {}
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i)
      *out++ = static_cast<unsigned char>(v >> (8 * i));
  }
  void u64(uint64_t v) {
    for (int i = 0; i < 8; ++i)
      *out++ = static_cast<unsigned char>(v >> (8 * i));
  }
  void i32(int32_t v) { u32(static_cast<uint32_t>(v)); }
  void i64(int64_t v) { u64(static_cast<uint64_t>(v)); }
  void f32(float v) {
    uint32_t bits;
    std::memcpy(&bits, &v, sizeof(bits));
    u32(bits);
  }
  void f64(double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof(bits));
    u64(bits);
  }
  void bytes(const unsigned char *data, size_t size) {
    std::memcpy(out, data, size);
    out += size;
  }
  /// Magic, version and the total size: the first kHeaderSize bytes.
  void header(const unsigned char (&magic)[8], uint32_t version,
              size_t totalSize) {
    bytes(magic, sizeof(magic));
    u32(version);
    u32(static_cast<uint32_t>(totalSize));
  }

private:
  unsigned char *out;
};

class Reader {
public:
  explicit Reader(const unsigned char *in) : in(in) {}
  uint32_t u32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i)
      v |= static_cast<uint32_t>(*in++) << (8 * i);
    return v;
  }
  uint64_t u64() {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i)
      v |= static_cast<uint64_t>(*in++) << (8 * i);
    return v;
  }
  int32_t i32() { return static_cast<int32_t>(u32()); }
  int64_t i64() { return static_cast<int64_t>(u64()); }
  float f32() {
    uint32_t bits = u32();
    float v;
    std::memcpy(&v, &bits, sizeof(v));
    return v;
  }
  double f64() {
    uint64_t bits = u64();
    double v;
    std::memcpy(&v, &bits, sizeof(v));
    return v;
  }

private:
  const unsigned char *in;
};

/// Writes the checksum of blob[0, totalSize - 8) into its last 8 bytes.
inline void seal(unsigned char *blob, size_t totalSize) {
  Writer(blob + totalSize - kChecksumSize)
      .u64(fnv1a64(blob, totalSize - kChecksumSize));
}

/// Checks the framing of a blob of `size` bytes: long enough for a header,
/// not NULL, `magic`, a version in [1, `version`], the declared and actual
/// sizes equal to `expectedSize` (every supported version has that size),
/// and the checksum. `what` names the blob in messages, with its article
/// ("a loss-scaler state"). On failure sets "<call>: <reason>" and returns
/// false.
inline bool checkFraming(const char *call, const void *blob, size_t size,
                         const unsigned char (&magic)[8], const char *what,
                         uint32_t version, size_t expectedSize) {
  if (size < kHeaderSize)
    return setError(call, "truncated blob: %zu bytes, %s blob has at least %zu",
                    size, what, kHeaderSize);
  if (!blob)
    return setError(call, "blob is NULL");
  const auto *bytes = static_cast<const unsigned char *>(blob);
  if (std::memcmp(bytes, magic, sizeof(magic)) != 0)
    return setError(call, "not %s blob (bad magic; expected \"%s\")", what,
                    reinterpret_cast<const char *>(magic));
  Reader header(bytes + sizeof(magic));
  uint32_t found = header.u32();
  uint32_t declared = header.u32();
  if (found > version)
    return setError(call,
                    "blob version %u is newer than this runtime supports (%u)",
                    found, version);
  if (found == 0)
    return setError(call, "invalid blob version 0");
  if (declared != expectedSize)
    return setError(call,
                    "corrupt blob: header declares %u bytes, version %u "
                    "blobs have %zu",
                    declared, found, expectedSize);
  if (size < expectedSize)
    return setError(call, "truncated blob: %zu of %zu bytes", size,
                    expectedSize);
  if (size > expectedSize)
    return setError(call, "blob size %zu does not match its header (%zu bytes)",
                    size, expectedSize);
  const size_t checksumOffset = expectedSize - kChecksumSize;
  uint64_t stored = Reader(bytes + checksumOffset).u64();
  uint64_t computed = fnv1a64(bytes, checksumOffset);
  if (stored != computed)
    return setError(call,
                    "corrupt blob: checksum mismatch (stored %016llx, "
                    "computed %016llx)",
                    static_cast<unsigned long long>(stored),
                    static_cast<unsigned long long>(computed));
  return true;
}

} // namespace blob
} // namespace rt
} // namespace amp

#endif // AMP_RUNTIME_LIB_STATEBLOB_H
