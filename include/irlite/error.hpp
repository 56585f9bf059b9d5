#pragma once
// The one exception type irlite throws, with a code and the user's coordinates.

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace irlite {

/// What kind of problem an Error reports.
enum class ErrorCode {
  io,           ///< a file is missing or unreadable
  xml,          ///< the XML is not well formed
  format,       ///< the XML is not a valid IR (root, version, attributes, ports, edges)
  unsupported,  ///< an op type or version irlite does not have
  graph,        ///< the graph is inconsistent (cycles, unfed ports, duplicate ids)
  weights,      ///< a Const does not fit the weights file
  shape,        ///< shape or element-type inference rejected a layer
  value,        ///< a run-time value is out of range (index, k, segment id)
  input,        ///< an input given by the caller is missing or does not fit
  usage,        ///< the API was called wrongly
};

std::string_view to_string(ErrorCode code);

/// Where a problem is. Every field is optional; what() prints the ones that are set.
struct ErrorContext {
  std::string file;                    ///< path of the .xml (or .bin, .npy)
  std::optional<std::int64_t> line;    ///< 1-based line in `file`
  std::optional<std::int64_t> column;  ///< 1-based column in `file`
  std::optional<std::int64_t> layer_id;
  std::string layer_name;
  std::string layer_type;  ///< "TopK-11"
  enum class PortKind { none, input, output } port_kind = PortKind::none;
  std::int64_t port = -1;  ///< the IR port id
};

/// Thrown for every problem a model, an input or a call can cause. what() reads like a
/// compiler diagnostic without the "error:" prefix:
/// `model.xml:57:5: layer 12 'scores' (TopK-11), input port 1: k must be a scalar, got [2]`.
/// what() is safe to print: control characters and bytes that are not UTF-8 appear as escapes
/// (`\r`, `\x1b`); message() and context() keep the text as it was.
class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, std::string message, ErrorContext context = {});

  ErrorCode code() const { return code_; }
  /// The message alone, without the location.
  const std::string& message() const { return message_; }
  const ErrorContext& context() const { return context_; }

 private:
  ErrorCode code_;
  std::string message_;
  ErrorContext context_;
};

/// Renders a context and message the way Error::what() does, escapes included.
std::string format_error(const ErrorContext& context, const std::string& message);

/// `text` made safe to print on a terminal, as what() shows names and paths: control characters
/// (C0, DEL, C1), line and paragraph separators and bidirectional overrides become escapes
/// (`\n`, `\r`, `\t`, `\x1b`, `\u202e`), as do bytes that are not UTF-8; other UTF-8 text is
/// kept. Backslashes are kept as they are, so escaping twice changes nothing.
std::string escape_nonprintable(std::string_view text);

}  // namespace irlite
