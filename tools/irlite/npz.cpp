#include "npz.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <string_view>

#include "files.hpp"
#include "irlite/error.hpp"
#include "irlite/input_file.hpp"
#include "npy.hpp"

namespace irlite::npz {
namespace {

// Record signatures and sizes of the ZIP format (PKWARE APPNOTE.TXT, sections 4.3 and 4.5).
constexpr std::uint32_t kLocalHeader = 0x04034b50;
constexpr std::uint32_t kCentralHeader = 0x02014b50;
constexpr std::uint32_t kEndOfCentralDirectory = 0x06054b50;
constexpr std::uint32_t kZip64End = 0x06064b50;
constexpr std::uint32_t kZip64Locator = 0x07064b50;
constexpr std::size_t kLocalHeaderSize = 30;
constexpr std::size_t kCentralHeaderSize = 46;
constexpr std::size_t kEndSize = 22;
constexpr std::size_t kZip64EndSize = 56;
constexpr std::size_t kZip64LocatorSize = 20;
constexpr std::uint16_t kZip64ExtraId = 0x0001;
constexpr std::uint16_t kStored = 0;
constexpr std::uint16_t kDeflated = 8;
constexpr std::uint32_t kMax32 = 0xffffffff;
constexpr std::uint16_t kMax16 = 0xffff;
// Deflate cannot expand more than about 1032 to 1 (a 258-byte match per 2 bits): a member
// declaring more is lying, and inflating it is refused before anything is allocated.
constexpr std::uint64_t kMaxDeflateRatio = 1032;

constexpr std::string_view kSuffix = ".npy";

using cli::bad_content;

// Little-endian fields of the archive, every read checked against its end.
class Reader {
 public:
  Reader(std::span<const std::byte> bytes, const std::string& source)
      : bytes_(bytes), source_(source) {}

  std::size_t size() const { return bytes_.size(); }

  std::uint64_t uint(std::uint64_t offset, int width, std::string_view what) const {
    need(offset, static_cast<std::uint64_t>(width), what);
    std::uint64_t v = 0;
    for (int i = width - 1; i >= 0; --i)
      v = v << 8 | std::to_integer<std::uint64_t>(bytes_[static_cast<std::size_t>(offset) + i]);
    return v;
  }
  std::uint16_t u16(std::uint64_t offset, std::string_view what) const {
    return static_cast<std::uint16_t>(uint(offset, 2, what));
  }
  std::uint32_t u32(std::uint64_t offset, std::string_view what) const {
    return static_cast<std::uint32_t>(uint(offset, 4, what));
  }
  std::uint64_t u64(std::uint64_t offset, std::string_view what) const {
    return uint(offset, 8, what);
  }
  std::span<const std::byte> span(std::uint64_t offset, std::uint64_t n,
                                  std::string_view what) const {
    need(offset, n, what);
    return bytes_.subspan(static_cast<std::size_t>(offset), static_cast<std::size_t>(n));
  }
  // Throws unless [offset, offset + n) lies in the archive.
  void need(std::uint64_t offset, std::uint64_t n, std::string_view what) const {
    if (offset > bytes_.size() || n > bytes_.size() - offset)
      bad_content(source_,
                  fmt::format("truncated or corrupt .npz: {} (bytes {} to {}) lies beyond the "
                              "end of the {}-byte archive",
                              what, offset, offset + n, bytes_.size()));
  }

 private:
  std::span<const std::byte> bytes_;
  const std::string& source_;
};

// Where the central directory is and how many entries it holds.
struct Directory {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  std::uint64_t count = 0;
};

Directory find_directory(const Reader& in, const std::string& source) {
  if (in.size() < kEndSize)
    bad_content(source,
                fmt::format("not a .npz (ZIP) archive: {} bytes, fewer than the {} of an empty "
                            "archive",
                            in.size(), kEndSize));
  // The end record is the last 22 bytes unless a comment (at most 65535 bytes) follows it.
  const std::size_t lowest =
      in.size() - kEndSize - std::min<std::size_t>(in.size() - kEndSize, kMax16);
  std::optional<std::size_t> end;
  for (std::size_t at = in.size() - kEndSize + 1; at-- > lowest;) {
    if (in.u32(at, "the end record") == kEndOfCentralDirectory &&
        at + kEndSize + in.u16(at + 20, "the comment length") == in.size()) {
      end = at;
      break;
    }
  }
  if (!end) bad_content(source, "not a .npz (ZIP) archive: no end-of-central-directory record");
  Directory d;
  const std::uint16_t disk = in.u16(*end + 4, "the disk number");
  const std::uint16_t cd_disk = in.u16(*end + 6, "the directory's disk");
  const std::uint16_t disk_count = in.u16(*end + 8, "the entry count");
  d.count = in.u16(*end + 10, "the entry count");
  d.size = in.u32(*end + 12, "the directory size");
  d.offset = in.u32(*end + 16, "the directory offset");
  std::uint64_t directory_end = *end;
  if (d.count == kMax16 || d.size == kMax32 || d.offset == kMax32) {
    // ZIP64: the real values are in the ZIP64 end record, found through the locator before.
    if (*end < kZip64LocatorSize ||
        in.u32(*end - kZip64LocatorSize, "the ZIP64 locator") != kZip64Locator)
      bad_content(source, "corrupt .npz: the end record defers to a ZIP64 record that is missing");
    const std::uint64_t record = in.u64(*end - kZip64LocatorSize + 8, "the ZIP64 end offset");
    if (in.u32(record, "the ZIP64 end record") != kZip64End)
      bad_content(source, fmt::format("corrupt .npz: no ZIP64 end record at byte {}", record));
    in.need(record, kZip64EndSize, "the ZIP64 end record");
    if (in.u32(record + 16, "the disk number") != 0 || in.u32(record + 20, "the disk") != 0)
      bad_content(source, "multi-part .npz archives are not supported");
    const std::uint64_t on_disk = in.u64(record + 24, "the entry count");
    d.count = in.u64(record + 32, "the entry count");
    d.size = in.u64(record + 40, "the directory size");
    d.offset = in.u64(record + 48, "the directory offset");
    if (on_disk != d.count) bad_content(source, "multi-part .npz archives are not supported");
    directory_end = record;
  } else if (disk != 0 || cd_disk != 0 || disk_count != d.count) {
    bad_content(source, "multi-part .npz archives are not supported");
  }
  if (d.offset > directory_end || d.size > directory_end - d.offset)
    bad_content(source,
                fmt::format("corrupt .npz: the central directory (bytes {} to {}) overlaps its "
                            "end record at byte {}",
                            d.offset, d.offset + d.size, directory_end));
  // Each entry takes at least 46 bytes: a count beyond that is a lie, refused before any loop.
  if (d.count > d.size / kCentralHeaderSize)
    bad_content(source,
                fmt::format("corrupt .npz: {} entries cannot fit a {}-byte central directory",
                            d.count, d.size));
  return d;
}

// One member as the central directory describes it.
struct Member {
  std::string name;
  std::uint16_t flags = 0;
  std::uint16_t method = 0;
  std::uint32_t crc = 0;
  std::uint64_t compressed = 0;
  std::uint64_t size = 0;
  std::uint64_t local_offset = 0;
};

// Reads the central directory entry at `at`; returns the offset of the next one.
std::uint64_t read_member(const Reader& in, std::uint64_t at, std::uint64_t directory_end,
                          const std::string& source, Member& m) {
  if (in.u32(at, "a central directory entry") != kCentralHeader)
    bad_content(source, fmt::format("corrupt .npz: no central directory entry at byte {}", at));
  m.flags = in.u16(at + 8, "the entry's flags");
  m.method = in.u16(at + 10, "the entry's method");
  m.crc = in.u32(at + 16, "the entry's CRC");
  m.compressed = in.u32(at + 20, "the entry's compressed size");
  m.size = in.u32(at + 24, "the entry's size");
  const std::uint16_t name_length = in.u16(at + 28, "the entry's name length");
  const std::uint16_t extra_length = in.u16(at + 30, "the entry's extra length");
  const std::uint16_t comment_length = in.u16(at + 32, "the entry's comment length");
  m.local_offset = in.u32(at + 42, "the entry's offset");
  const std::uint64_t name_at = at + kCentralHeaderSize;
  const std::uint64_t next = name_at + name_length + extra_length + comment_length;
  if (next > directory_end)
    bad_content(
        source,
        fmt::format("corrupt .npz: the entry at byte {} runs past the central directory", at));
  const auto name = in.span(name_at, name_length, "the entry's name");
  m.name.assign(reinterpret_cast<const char*>(name.data()), name.size());

  // The ZIP64 extra field holds, in this order, the 64-bit values whose 32-bit field is all ones.
  std::uint64_t extra = name_at + name_length;
  const std::uint64_t extra_end = extra + extra_length;
  while (extra + 4 <= extra_end) {
    const std::uint16_t id = in.u16(extra, "an extra field");
    const std::uint16_t length = in.u16(extra + 2, "an extra field");
    const std::uint64_t data = extra + 4;
    if (data + length > extra_end)
      bad_content(source,
                  fmt::format("corrupt .npz: member '{}': an extra field runs past its entry",
                              escape_nonprintable(m.name)));
    if (id == kZip64ExtraId) {
      std::uint64_t field = data;
      for (std::uint64_t* value : {&m.size, &m.compressed, &m.local_offset}) {
        if (*value != kMax32) continue;
        if (field + 8 > data + length)
          bad_content(source, fmt::format("corrupt .npz: member '{}': its ZIP64 field is too short",
                                          escape_nonprintable(m.name)));
        *value = in.u64(field, "a ZIP64 field");
        field += 8;
      }
    }
    extra = data + length;
  }
  return next;
}

// The member's bytes, inflated when compressed, checked against its declared size and CRC-32.
std::vector<std::byte> member_bytes(const Reader& in, const Member& m, const std::string& source,
                                    std::uint64_t data_limit) {
  const std::string name = escape_nonprintable(m.name);
  const auto member_fail = [&](const std::string& what) {
    bad_content(source, fmt::format("member '{}': {}", name, what));
  };
  if (m.flags & 1) member_fail("encrypted members are not supported");
  if (m.method != kStored && m.method != kDeflated)
    member_fail(
        fmt::format("compression method {} is not supported (only stored and deflate, "
                    "as NumPy writes)",
                    m.method));
  const std::uint64_t at = m.local_offset;
  if (in.u32(at, "a member's local header") != kLocalHeader)
    member_fail(fmt::format("no local header at byte {}", at));
  const std::uint64_t data = at + kLocalHeaderSize + in.u16(at + 26, "the local name length") +
                             in.u16(at + 28, "the local extra length");
  if (data > data_limit || m.compressed > data_limit - data)
    member_fail(
        fmt::format("its {} bytes of data at byte {} run past the member area, which "
                    "ends at byte {}",
                    m.compressed, data, data_limit));
  const auto packed = in.span(data, m.compressed, "a member's data");
  if (m.method == kStored && m.compressed != m.size)
    member_fail(fmt::format("stored with {} bytes but declares {}", m.compressed, m.size));
  if (m.method == kDeflated && m.size > m.compressed * kMaxDeflateRatio + 64)
    member_fail(fmt::format("declares {} bytes inflated from {}, more than deflate can produce",
                            m.size, m.compressed));
  // What inflates within that ratio can still be more than the machine holds.
  if (m.size > cli::physical_memory())
    member_fail(fmt::format("declares {} bytes, more than the machine's {} bytes of memory", m.size,
                            cli::physical_memory()));

  std::vector<std::byte> out(static_cast<std::size_t>(m.size));
  if (m.method == kStored) {
    std::copy(packed.begin(), packed.end(), out.begin());
  } else {
    z_stream z{};
    if (inflateInit2(&z, -MAX_WBITS) != Z_OK) member_fail("zlib could not start inflating");
    // The output buffer is exactly the declared size: a stream that would write more is refused
    // when the buffer fills before the stream ends.
    std::uint64_t in_done = 0, out_done = 0;
    int status = Z_OK;
    constexpr std::uint64_t kChunk = std::numeric_limits<uInt>::max();
    for (;;) {
      z.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(packed.data() + in_done));
      z.avail_in = static_cast<uInt>(std::min<std::uint64_t>(kChunk, packed.size() - in_done));
      z.next_out = reinterpret_cast<Bytef*>(out.data() + out_done);
      z.avail_out = static_cast<uInt>(std::min(kChunk, m.size - out_done));
      const uInt in_before = z.avail_in, out_before = z.avail_out;
      status = inflate(&z, Z_NO_FLUSH);
      in_done += in_before - z.avail_in;
      out_done += out_before - z.avail_out;
      const bool progress = in_before != z.avail_in || out_before != z.avail_out;
      if (status == Z_STREAM_END || (status != Z_OK && status != Z_BUF_ERROR) || !progress) break;
    }
    const std::string reason = z.msg ? fmt::format(" ({})", z.msg) : "";
    inflateEnd(&z);
    if (status != Z_STREAM_END) {
      if (status == Z_OK || status == Z_BUF_ERROR) {
        if (out_done == m.size && in_done < m.compressed)
          member_fail(fmt::format("inflates to more than the {} bytes it declares", m.size));
        member_fail(fmt::format("the deflate data ends early, after {} of {} declared bytes",
                                out_done, m.size));
      }
      member_fail(fmt::format("corrupt deflate data after {} of {} compressed bytes{}", in_done,
                              m.compressed, reason));
    }
    if (out_done != m.size)
      member_fail(fmt::format("inflates to {} bytes, not the {} it declares", out_done, m.size));
  }
  if (crc32_z(0, reinterpret_cast<const Bytef*>(out.data()), out.size()) != m.crc)
    member_fail("CRC-32 mismatch: the data is corrupt");
  return out;
}

void put16(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 2; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}
void put32(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 4; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}

}  // namespace

std::vector<Array> decode(std::span<const std::byte> bytes, const std::string& source) {
  const Reader in(bytes, source);
  const Directory d = find_directory(in, source);
  std::vector<Array> arrays;
  std::set<std::string> names;
  std::uint64_t at = d.offset;
  for (std::uint64_t i = 0; i < d.count; ++i) {
    Member m;
    at = read_member(in, at, d.offset + d.size, source, m);
    const std::string shown = escape_nonprintable(m.name);
    if (m.name.size() <= kSuffix.size() || !m.name.ends_with(kSuffix))
      bad_content(source,
                  fmt::format("member '{}' is not an array: .npz members are NAME.npy", shown));
    std::string name = m.name.substr(0, m.name.size() - kSuffix.size());
    if (!names.insert(name).second)
      bad_content(source, fmt::format("member '{}' appears twice", shown));
    const std::vector<std::byte> image = member_bytes(in, m, source, d.offset);
    arrays.push_back({std::move(name), npy::decode(image, fmt::format("{}:{}", source, m.name))});
  }
  return arrays;
}

std::vector<Array> read(const std::filesystem::path& path) {
  const InputFile file = InputFile::open(path, ".npz file");
  if (file.size() > std::numeric_limits<std::size_t>::max())
    throw Error(ErrorCode::io, "the file is too large to read", cli::file_context(file.path()));
  std::vector<std::byte> bytes(static_cast<std::size_t>(file.size()));
  if (file.read_at(0, bytes.data(), bytes.size()) != bytes.size())
    throw Error(ErrorCode::io,
                fmt::format("the file ends early: it was {} bytes when opened", file.size()),
                cli::file_context(file.path()));
  return decode(bytes, file.path());
}

std::string encode(const std::vector<Array>& arrays) {
  if (arrays.size() >= kMax16)
    throw Error(ErrorCode::usage,
                fmt::format("{} arrays are more than a .npz without ZIP64 holds", arrays.size()));
  std::string out, directory;
  std::set<std::string> names;
  for (const Array& a : arrays) {
    if (!names.insert(a.name).second)
      throw Error(ErrorCode::usage, fmt::format("array '{}' is given twice", a.name));
    const std::string member = a.name + std::string(kSuffix);
    const std::string image = npy::encode(a.tensor);
    const std::uint64_t offset = out.size();
    if (member.size() > kMax16 || image.size() >= kMax32 ||
        offset + kLocalHeaderSize + member.size() + image.size() >= kMax32)
      throw Error(ErrorCode::usage,
                  fmt::format("array '{}' ends beyond 4 GiB, more than a .npz without ZIP64 "
                              "holds; write the outputs to a directory of .npy files instead",
                              a.name));
    const auto crc = crc32_z(0, reinterpret_cast<const Bytef*>(image.data()), image.size());
    // Version 2.0, no flags, stored, time 00:00 of 1980-01-01 (the earliest a ZIP can say):
    // the same outputs always make the same archive.
    const auto common = [&](std::string& s) {
      put16(s, 20);
      put16(s, 0);
      put16(s, kStored);
      put16(s, 0);
      put16(s, (1 << 5) | 1);
      put32(s, crc);
      put32(s, image.size());
      put32(s, image.size());
      put16(s, member.size());
      put16(s, 0);
    };
    put32(out, kLocalHeader);
    common(out);
    out += member;
    out += image;
    put32(directory, kCentralHeader);
    put16(directory, 20);
    common(directory);
    put16(directory, 0);  // comment length
    put16(directory, 0);  // disk
    put16(directory, 0);  // internal attributes
    put32(directory, 0);  // external attributes
    put32(directory, offset);
    directory += member;
  }
  const std::uint64_t directory_offset = out.size();
  if (directory_offset + directory.size() >= kMax32)
    throw Error(ErrorCode::usage,
                "the archive would exceed 4 GiB, more than a .npz without "
                "ZIP64 holds; write the outputs to a directory of .npy files");
  out += directory;
  put32(out, kEndOfCentralDirectory);
  put16(out, 0);
  put16(out, 0);
  put16(out, arrays.size());
  put16(out, arrays.size());
  put32(out, directory.size());
  put32(out, directory_offset);
  put16(out, 0);
  return out;
}

void write(const std::filesystem::path& path, const std::vector<Array>& arrays) {
  cli::write_file(path, encode(arrays));
}

}  // namespace irlite::npz
