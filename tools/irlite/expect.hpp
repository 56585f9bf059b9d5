#pragma once
// `irlite run --expect`: compares a run's outputs with reference .npy files, element by element
// within a tolerance, and reports where they differ most.

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "irlite/irlite.hpp"

namespace irlite::cli {

/// What --expect, --expect-dir, --atol and --rtol say.
struct ExpectOptions {
  std::vector<std::string> files;  ///< `NAME=REF.npy`, `REF.npy` (single output), `REF.npz`
  std::string dir;                 ///< a folder of STEM.npy as -o DIR writes them
  std::optional<double> atol, rtol;
  bool any() const { return !files.empty() || !dir.empty(); }
};

/// The tolerance a floating-point element passes within: |actual - expected| <= atol +
/// rtol * |expected|.
struct Tolerance {
  double atol = 0;
  double rtol = 0;
};

/// The default tolerance of a floating-point type, about its precision: f64 1e-12 / 1e-9, f32
/// 1e-6 / 1e-5, f16 1e-3 / 1e-3, bf16 1e-2 / 1e-2 (atol / rtol). Other types compare exactly.
Tolerance default_tolerance(ElementType type);

/// The outcome for one output.
struct Comparison {
  std::string output;
  std::string reference;  ///< the file (or archive:array); empty when not compared
  bool pass = true;
  std::string problem;  ///< a type or shape mismatch, which compares no value
  bool exact = false;   ///< integers and booleans, compared without tolerance
  Tolerance tolerance;
  std::size_t count = 0;       ///< elements compared
  std::size_t mismatches = 0;  ///< elements beyond tolerance
  double max_abs = 0;          ///< largest |actual - expected|; infinite for a NaN or inf mismatch
  double max_rel = 0;          ///< largest |actual - expected| / |expected|
  std::vector<std::int64_t> worst_index;  ///< the element furthest beyond its tolerance
  double worst_actual = 0, worst_expected = 0;
  bool compared() const { return !reference.empty(); }
};

/// Compares two tensors. Types and shapes must match (a bf16 output takes a reference of raw
/// uint16 bits, as -o writes it). NaN equals NaN, infinities must match exactly, integers and
/// booleans must be equal; other floats pass within `tolerance`.
Comparison compare(const Tensor& actual, const Tensor& expected, Tolerance tolerance);

/// Loads the references `options` name and compares every output that has one, in
/// Model::outputs() order. Throws UsageError for an output given twice or a malformed
/// --expect, Error(input) for a file naming no output.
std::vector<Comparison> check_outputs(const Model& model, const std::vector<Tensor>& outputs,
                                      const ExpectOptions& options);

/// kExitMismatch, after a one-line error naming the outputs that differ, when any comparison
/// failed; kExitOk otherwise.
int expect_status(const std::vector<Comparison>& comparisons);

/// Prints the comparisons as text, one line per output.
void print_comparisons(const std::vector<Comparison>& comparisons);

/// The comparisons as a JSON array.
nlohmann::json comparisons_json(const std::vector<Comparison>& comparisons);

/// A finite number as a JSON number, NaN and infinities as "nan", "inf" and "-inf".
nlohmann::json json_number(double value);

}  // namespace irlite::cli
