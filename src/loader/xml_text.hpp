#pragma once
// The text of an .xml file, read into memory of its own. The loader reads most texts a piece at
// a time from copies (loader/xml_pieces.hpp); one it reads whole it parses in place and gives
// back to the system as it goes, so that the text and the DOM and graph read from it are not all
// held in full.

#include <cstddef>
#include <filesystem>
#include <span>

namespace irlite {

class XmlText {
 public:
  /// Reads the whole file. Throws Error(io), placed at the path, when it cannot.
  static XmlText read_file(const std::filesystem::path& path);

  XmlText() = default;
  XmlText(XmlText&& other) noexcept;
  XmlText& operator=(XmlText&& other) noexcept;
  XmlText(const XmlText&) = delete;
  XmlText& operator=(const XmlText&) = delete;
  ~XmlText();

  std::span<char> bytes() const { return {data_, size_}; }
  /// Gives back the memory of bytes before `offset` (where the system allows), in steps of
  /// kReleaseStep: they must not be read again. Cheap to call often.
  void release_before(std::size_t offset) {
    if (offset >= released_ + kReleaseStep) release(offset);
  }

 private:
  static constexpr std::size_t kReleaseStep = std::size_t{1} << 21;
  void release(std::size_t offset);

  char* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t mapped_ = 0;    ///< length of the mapping at data_
  std::size_t released_ = 0;  ///< bytes before this offset have been given back
};

}  // namespace irlite
