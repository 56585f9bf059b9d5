#pragma once
// Dimensions and shapes, static and partial (dynamic dims, intervals, dynamic rank).

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace irlite {

/// A concrete shape: one non-negative extent per axis; empty = scalar.
using Shape = std::vector<std::int64_t>;

/// Number of elements of a shape: 0 when any extent is 0 (whatever the others), nullopt when an
/// extent is negative or the product overflows int64.
std::optional<std::int64_t> element_count(const Shape& shape);
/// "[2,3]", "[]" for a scalar.
std::string to_string(const Shape& shape);

/// A dimension that may be unknown: the interval [min, max], max = Dimension::unbounded when
/// it has no upper bound. Static when min == max.
class Dimension {
 public:
  static constexpr std::int64_t unbounded = -1;

  /// Fully dynamic: `?`.
  constexpr Dimension() = default;
  /// Static extent n; a negative n (the IR's -1) is fully dynamic.
  constexpr Dimension(std::int64_t n) : min_(n < 0 ? 0 : n), max_(n < 0 ? unbounded : n) {}
  /// Interval [min, max]; max may be `unbounded`. A negative min counts as 0. Model::reshape
  /// refuses an empty interval (max < min).
  constexpr Dimension(std::int64_t min, std::int64_t max)
      : min_(min < 0 ? 0 : min), max_(max < 0 ? unbounded : max) {}
  static constexpr Dimension dynamic() { return Dimension(); }

  constexpr std::int64_t min() const { return min_; }
  constexpr std::int64_t max() const { return max_; }
  constexpr bool is_static() const { return min_ == max_; }
  constexpr bool has_upper_bound() const { return max_ != unbounded; }
  /// The extent of a static dimension.
  constexpr std::int64_t value() const { return min_; }
  /// Whether extent n lies in the interval.
  constexpr bool contains(std::int64_t n) const {
    return n >= min_ && (max_ == unbounded || n <= max_);
  }
  /// Whether the two intervals intersect.
  bool compatible(const Dimension& other) const;

  friend constexpr bool operator==(const Dimension&, const Dimension&) = default;

 private:
  std::int64_t min_ = 0;
  std::int64_t max_ = unbounded;
};

/// OpenVINO's spelling: `5`, `?`, `2..8`, `..8`, `2..`.
std::string to_string(const Dimension& dim);

/// A shape whose rank or dimensions may be unknown.
class PartialShape {
 public:
  /// A scalar: rank 0.
  PartialShape() = default;
  PartialShape(std::vector<Dimension> dims) : dims_(std::move(dims)) {}
  PartialShape(std::initializer_list<Dimension> dims) : dims_(dims) {}
  /// A static shape.
  static PartialShape from_shape(const Shape& shape);
  /// Unknown rank: `[...]`.
  static PartialShape dynamic_rank();

  bool rank_is_static() const { return !dynamic_rank_; }
  /// The rank; only meaningful when rank_is_static().
  std::int64_t rank() const { return static_cast<std::int64_t>(dims_.size()); }
  /// Static rank and every dimension static.
  bool is_static() const;
  /// The dimensions (empty for dynamic rank).
  const std::vector<Dimension>& dims() const { return dims_; }
  std::vector<Dimension>& dims() { return dims_; }
  const Dimension& operator[](std::size_t i) const { return dims_[i]; }
  Dimension& operator[](std::size_t i) { return dims_[i]; }
  /// The concrete shape; requires is_static() (otherwise each dimension gives its minimum).
  Shape to_shape() const;
  /// Whether a concrete shape fits: same rank, every extent inside its interval.
  bool accepts(const Shape& shape) const;
  /// Whether some concrete shape fits both.
  bool compatible(const PartialShape& other) const;

  friend bool operator==(const PartialShape&, const PartialShape&) = default;

 private:
  std::vector<Dimension> dims_;
  bool dynamic_rank_ = false;
};

/// OpenVINO's spelling: `[?,3..5,4]`, `[...]`, `[]`.
std::string to_string(const PartialShape& shape);

/// Parses a partial shape as written in an IR `shape` attribute or on the command line:
/// comma-separated dimensions (`4`, `?`, `-1`, `2..8`, `..8`, `2..`), optionally in brackets;
/// `...` alone is dynamic rank; the empty string is a scalar. nullopt on malformed text,
/// with the reason in *why when given.
std::optional<PartialShape> parse_partial_shape(std::string_view text, std::string* why = nullptr);

}  // namespace irlite
