// The Python module `irlite`: models loaded and run from Python, NumPy arrays in and out without
// copies, the GIL released while a model loads or runs, and every irlite::Error raised as an
// irlite.Error subclass that carries the problem's location.

#include <pybind11/eval.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "irlite/irlite.hpp"

namespace py = pybind11;

namespace {

// Text usable as a template argument.
template <std::size_t N>
struct Text {
  char chars[N];
  constexpr Text(const char (&s)[N]) { std::copy_n(s, N, chars); }  // NOLINT: implicit on purpose
};

// Any Python object, which the function that takes it sorts out itself (as a py::handle would
// be), shown in help()'s signatures as `Name` (what it accepts) rather than as "handle".
template <Text Name>
struct Shown : py::object {
  using py::object::object;
  static bool check_(py::handle h) { return h.ptr() != nullptr; }
};

using InputsArg = Shown<"dict[str, ArrayLike] | list[ArrayLike] | None">;
using OutputsDict = Shown<"dict[str, numpy.ndarray]">;
using OptionalIntArg = Shown<"int | None">;
using XmlArg = Shown<"str | bytes">;
using BufferArg = Shown<"Buffer | None">;

}  // namespace

template <Text Name>
struct pybind11::detail::handle_type_name<Shown<Name>> {
  static constexpr auto name = const_name(Name.chars);
};

namespace {

using irlite::Dimension;
using irlite::ElementType;
using irlite::Error;
using irlite::ErrorCode;
using irlite::Model;
using irlite::PartialShape;
using irlite::PortInfo;
using irlite::Tensor;

constexpr std::size_t kElementTypes = static_cast<std::size_t>(ElementType::u64) + 1;
constexpr std::size_t kErrorCodes = static_cast<std::size_t>(ErrorCode::usage) + 1;

py::object none_object() {
  return py::none();
}

// Python text from bytes that should be UTF-8 (names and messages come from files): bytes that
// are not become backslash escapes instead of a UnicodeDecodeError.
py::str text(std::string_view s) {
  PyObject* o =
      PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "backslashreplace");
  if (!o) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(o);
}

// ---- element types and NumPy dtypes ----------------------------------------------------------

// The NumPy dtype name of an element type: bf16 is carried as its uint16 bit patterns, as the
// command's .npy files carry it. nullptr for undefined.
const char* numpy_name(ElementType type) {
  switch (type) {
    case ElementType::boolean:
      return "bool_";  // numpy.bool is not an attribute of NumPy 1.24
    case ElementType::f16:
      return "float16";
    case ElementType::bf16:
      return "uint16";
    case ElementType::f32:
      return "float32";
    case ElementType::f64:
      return "float64";
    case ElementType::i8:
      return "int8";
    case ElementType::i16:
      return "int16";
    case ElementType::i32:
      return "int32";
    case ElementType::i64:
      return "int64";
    case ElementType::u8:
      return "uint8";
    case ElementType::u16:
      return "uint16";
    case ElementType::u32:
      return "uint32";
    case ElementType::u64:
      return "uint64";
    case ElementType::undefined:
      break;
  }
  return nullptr;
}

// The NumPy dtype of an element type (None for undefined), made once per type and kept for the
// life of the process.
py::object dtype_of(ElementType type) {
  static std::array<PyObject*, kElementTypes> cache{};
  const char* name = numpy_name(type);
  if (!name) return py::none();
  PyObject*& slot = cache[static_cast<std::size_t>(type)];
  if (!slot) slot = py::dtype::from_args(py::str(name)).release().ptr();
  return py::reinterpret_borrow<py::object>(slot);
}

// The element type a buffer's struct-module format holds ("f", "<f", "=q", "?"), undefined for a
// format irlite has no type for (or of the wrong byte order).
ElementType format_type(const char* format, Py_ssize_t itemsize) {
  std::string_view f = format ? format : "B";
  if (!f.empty() && (f[0] == '@' || f[0] == '=')) {
    f.remove_prefix(1);
  } else if (!f.empty() && f[0] == '<') {
    if (std::endian::native != std::endian::little && itemsize != 1) return ElementType::undefined;
    f.remove_prefix(1);
  } else if (!f.empty() && (f[0] == '>' || f[0] == '!')) {
    if (std::endian::native != std::endian::big && itemsize != 1) return ElementType::undefined;
    f.remove_prefix(1);
  }
  if (f.size() != 1) return ElementType::undefined;
  auto by_size = [itemsize](ElementType s32, ElementType s64) {
    return itemsize == 4 ? s32 : itemsize == 8 ? s64 : ElementType::undefined;
  };
  switch (f[0]) {
    case '?':
      return itemsize == 1 ? ElementType::boolean : ElementType::undefined;
    case 'e':
      return ElementType::f16;
    case 'f':
      return ElementType::f32;
    case 'd':
      return ElementType::f64;
    case 'b':
      return ElementType::i8;
    case 'B':
      return ElementType::u8;
    case 'h':
      return ElementType::i16;
    case 'H':
      return ElementType::u16;
    case 'i':
      return by_size(ElementType::i32, ElementType::i64);
    case 'I':
      return by_size(ElementType::u32, ElementType::u64);
    case 'l':
      return by_size(ElementType::i32, ElementType::i64);
    case 'L':
      return by_size(ElementType::u32, ElementType::u64);
    case 'q':
      return ElementType::i64;
    case 'Q':
      return ElementType::u64;
    default:
      return ElementType::undefined;
  }
}

// Whether data of type `given` feeds an input of type `wanted` as it is.
bool feeds(ElementType given, ElementType wanted) {
  return given == wanted || (wanted == ElementType::bf16 && given == ElementType::u16);
}

// ---- shapes ----------------------------------------------------------------------------------

// A dimension as Python sees it: an int when static, None when fully dynamic, else (lo, hi) with
// hi None when unbounded.
py::object dimension_to_py(const Dimension& d) {
  if (d.is_static()) return py::int_(d.value());
  if (d.min() == 0 && !d.has_upper_bound()) return py::none();
  return py::make_tuple(d.min(),
                        d.has_upper_bound() ? py::object(py::int_(d.max())) : none_object());
}

// A partial shape as a tuple of dimensions; None for a dynamic rank.
py::object shape_to_py(const PartialShape& shape) {
  if (!shape.rank_is_static()) return py::none();
  py::tuple t(static_cast<std::size_t>(shape.rank()));
  for (std::size_t i = 0; i < shape.dims().size(); ++i) t[i] = dimension_to_py(shape[i]);
  return t;
}

py::tuple concrete_shape_to_py(const irlite::Shape& shape) {
  py::tuple t(shape.size());
  for (std::size_t i = 0; i < shape.size(); ++i) t[i] = py::int_(shape[i]);
  return t;
}

// A partial shape from Python: a string as the command takes it ("[1,3..5,?]"), None (dynamic
// rank), or a sequence whose items are ints (-1 dynamic), None, or (lo, hi) pairs (hi None for
// unbounded).
PartialShape shape_from_py(py::handle value, const std::string& input) {
  auto bad = [&](const std::string& why) {
    return Error(ErrorCode::usage, "reshape: the shape of '" + input + "' " + why);
  };
  if (value.is_none()) return PartialShape::dynamic_rank();
  if (py::isinstance<py::str>(value)) {
    std::string why;
    auto parsed = irlite::parse_partial_shape(value.cast<std::string>(), &why);
    if (!parsed) throw bad("cannot be read: " + why);
    return *parsed;
  }
  if (!py::isinstance<py::sequence>(value))
    throw bad("must be a sequence of dimensions, a string such as '[1,3..5,?]' or None");
  std::vector<Dimension> dims;
  for (py::handle item : py::reinterpret_borrow<py::sequence>(value)) {
    if (item.is_none()) {
      dims.emplace_back();
    } else if (py::isinstance<py::int_>(item)) {
      dims.emplace_back(item.cast<std::int64_t>());
    } else if (py::isinstance<py::sequence>(item) && py::len(item) == 2) {
      auto pair = py::reinterpret_borrow<py::sequence>(item);
      const std::int64_t lo = pair[0].is_none() ? 0 : pair[0].cast<std::int64_t>();
      const std::int64_t hi =
          pair[1].is_none() ? Dimension::unbounded : pair[1].cast<std::int64_t>();
      dims.emplace_back(lo, hi);
    } else {
      throw bad("has a dimension that is not an int, None or a (lo, hi) pair: " +
                py::repr(item).cast<std::string>());
    }
  }
  return PartialShape(std::move(dims));
}

// ---- errors ----------------------------------------------------------------------------------

// irlite.Error and one subclass per ErrorCode, defined in Python so that they read as ordinary
// exception classes in help() and tracebacks.
constexpr const char* kErrorClasses = R"(
class Error(Exception):
    """An error reported by irlite: a model, an input or a call that is wrong.

    str(error) is the whole one-line diagnostic, as the irlite command prints it:
    ``model.xml:57:5: layer 12 'scores' (TopK-11), input port 1: k must be a scalar, got [2]``.
    The attributes hold its parts; those that do not apply are None.

    Attributes:
        code: the kind of problem ("io", "xml", "format", "unsupported", "graph", "weights",
            "shape", "value", "input", "usage"); each has its subclass.
        message: the message alone, without the location.
        file: the file the problem is in (the model's .xml, or its .bin).
        line, column: 1-based position in that file.
        layer: the layer's name; layer_id its IR id, layer_type its "Type-version".
        port: the IR port id; port_kind "input" or "output".
    """

    code = None

    def __init__(self, text="", *, code=None, message=None, file=None, line=None, column=None,
                 layer=None, layer_id=None, layer_type=None, port=None, port_kind=None):
        super().__init__(text)
        if code is not None:
            self.code = code
        self.message = text if message is None else message
        self.file = file
        self.line = line
        self.column = column
        self.layer = layer
        self.layer_id = layer_id
        self.layer_type = layer_type
        self.port = port
        self.port_kind = port_kind


class IoError(Error):
    """A file is missing or cannot be read."""
    code = "io"


class XmlError(Error):
    """The model's XML is not well formed."""
    code = "xml"


class FormatError(Error):
    """The XML is not a valid IR: its root, version, attributes, ports or edges."""
    code = "format"


class UnsupportedError(Error):
    """An op type or version irlite does not run (irlite.supported_ops() lists those it does)."""
    code = "unsupported"


class GraphError(Error):
    """The graph is inconsistent: a cycle, an unfed port, a duplicate layer id."""
    code = "graph"


class WeightsError(Error):
    """A Const does not fit the weights."""
    code = "weights"


class ShapeError(Error):
    """Shape or element-type inference rejected a layer."""
    code = "shape"


class RangeError(Error):
    """A value met while running is out of range (an index, k, a segment id), or a run would go
    over its memory budget."""
    code = "value"


class InputError(Error):
    """An input given to Session.run is missing, unknown, of the wrong shape, or of a dtype
    irlite does not convert to the input's (see Session.run)."""
    code = "input"


class UsageError(Error):
    """The API was called wrongly."""
    code = "usage"
)";

// The classes, in ErrorCode order; set when the module is initialised and kept for the life of
// the process.
std::array<PyObject*, kErrorCodes> error_classes{};

py::object optional_int(const std::optional<std::int64_t>& v) {
  return v ? py::object(py::int_(*v)) : none_object();
}

py::object optional_text(const std::string& s) {
  return s.empty() ? none_object() : py::object(text(s));
}

// Raises `e` as the irlite.Error subclass of its code.
void raise_error(const Error& e) {
  PyObject* cls = error_classes[static_cast<std::size_t>(e.code())];
  const irlite::ErrorContext& c = e.context();
  py::dict kw;
  kw["code"] = py::str(std::string(irlite::to_string(e.code())));
  kw["message"] = text(e.message());
  kw["file"] = optional_text(c.file);
  kw["line"] = optional_int(c.line);
  kw["column"] = optional_int(c.column);
  kw["layer"] =
      c.layer_id || !c.layer_name.empty() ? py::object(text(c.layer_name)) : none_object();
  kw["layer_id"] = optional_int(c.layer_id);
  kw["layer_type"] = optional_text(c.layer_type);
  kw["port"] = c.port >= 0 ? py::object(py::int_(c.port)) : none_object();
  using PortKind = irlite::ErrorContext::PortKind;
  kw["port_kind"] = c.port_kind == PortKind::input    ? py::object(py::str("input"))
                    : c.port_kind == PortKind::output ? py::object(py::str("output"))
                                                      : none_object();
  py::object exc = py::reinterpret_borrow<py::object>(cls)(text(e.what()), **kw);
  PyErr_SetObject(cls, exc.ptr());
}

// ---- inputs ----------------------------------------------------------------------------------

// A Python buffer held for as long as a Tensor views it; released with the GIL, taken when the
// last copy of the tensor goes away on a thread that does not hold it.
struct HeldBuffer {
  Py_buffer view{};
  HeldBuffer() = default;
  HeldBuffer(const HeldBuffer&) = delete;
  HeldBuffer& operator=(const HeldBuffer&) = delete;
  ~HeldBuffer() {
    if (!view.obj || !Py_IsInitialized()) return;
    if (PyGILState_Check()) {
      PyBuffer_Release(&view);
    } else {
      const PyGILState_STATE state = PyGILState_Ensure();
      PyBuffer_Release(&view);
      PyGILState_Release(state);
    }
  }
};

// A read-only buffer handed to a run: an output that shares it must not be writable.
struct ReadOnlyRange {
  const std::byte* begin;
  const std::byte* end;
};

std::string dtype_text(ElementType type) {
  const char* name = numpy_name(type);
  return std::string(irlite::to_string(type)) + " (numpy." + (name ? name : "?") + ")";
}

// Where the Parameter of input `port` is, for an error about the value given for it.
irlite::ErrorContext input_context(const Model& model, const PortInfo& port) {
  irlite::ErrorContext c;
  c.file = model.source();
  for (const irlite::LayerInfo& layer : model.layers()) {
    if (layer.type == "Parameter" && layer.name == port.name) {
      c.line = layer.line;
      c.column = layer.column;
      c.layer_id = layer.id;
      c.layer_name = layer.name;
      c.layer_type = layer.type + "-" + std::to_string(layer.version);
      break;
    }
  }
  return c;
}

// A view of `value` as input `port` when it is a C-contiguous buffer of the input's dtype: the
// tensor holds the buffer and nothing is copied. nullopt for any other value.
std::optional<Tensor> view_in_place(py::handle value, ElementType wanted,
                                    std::vector<ReadOnlyRange>& read_only) {
  if (!PyObject_CheckBuffer(value.ptr())) return std::nullopt;
  auto held = std::make_shared<HeldBuffer>();
  if (PyObject_GetBuffer(value.ptr(), &held->view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0) {
    PyErr_Clear();  // another layout, or no struct-module format: NumPy reads it instead
    return std::nullopt;
  }
  const Py_buffer& v = held->view;
  if (!feeds(format_type(v.format, v.itemsize), wanted) ||
      static_cast<std::size_t>(v.itemsize) != irlite::element_size(wanted))
    return std::nullopt;
  irlite::Shape shape(static_cast<std::size_t>(v.ndim));
  for (int i = 0; i < v.ndim; ++i)
    shape[static_cast<std::size_t>(i)] = v.shape ? v.shape[i] : v.len / v.itemsize;
  void* data = v.buf;
  std::shared_ptr<const void> keep(held, held.get());
  if (v.readonly) {
    const auto* b = static_cast<const std::byte*>(data);
    read_only.push_back({b, b + v.len});
    return Tensor::view(wanted, std::move(shape), static_cast<const void*>(data), std::move(keep));
  }
  return Tensor::view(wanted, std::move(shape), data, std::move(keep));
}

py::module_ numpy_module() {
  static PyObject* np = py::module_::import("numpy").release().ptr();
  return py::reinterpret_borrow<py::module_>(np);
}

// A NumPy dtype in words: irlite's name and NumPy's for the types irlite has ("f64
// (numpy.float64)"), NumPy's spelling for the others ("dtype complex128", "dtype <U3").
std::string dtype_words(py::handle dtype) {
  for (std::size_t i = 1; i < kElementTypes; ++i) {
    const auto type = static_cast<ElementType>(i);
    if (type != ElementType::bf16 && dtype_of(type).equal(dtype)) return dtype_text(type);
  }
  return "dtype " + std::string(py::str(dtype));
}

// Whether every value of `array` (integers or booleans) fits the integer dtype `want`: always
// when the given dtype's whole range does, else by the array's least and greatest values.
bool integers_fit(const py::object& array, const py::object& want) {
  const py::object given = array.attr("dtype");
  if (given.attr("kind").cast<std::string>() == "b") return true;
  const py::module_ np = numpy_module();
  const py::object to = np.attr("iinfo")(want);
  const py::object from = np.attr("iinfo")(given);
  const py::object least = to.attr("min"), greatest = to.attr("max");
  if (least <= py::object(from.attr("min")) && py::object(from.attr("max")) <= greatest)
    return true;
  if (array.attr("size").cast<std::size_t>() == 0) return true;
  // As Python ints: NumPy compares a uint64 with a negative int in float64, which rounds.
  return least <= py::int_(array.attr("min")()) && py::int_(array.attr("max")()) <= greatest;
}

// `value` as a C-contiguous NumPy array of input `port`'s dtype, for the values view_in_place
// does not take: made with at most one copy of an array's elements. The rule:
// - the input's dtype in another layout (steps, Fortran order): one ascontiguousarray;
// - another dtype that NumPy's casting='same_kind' allows (booleans to anything; unsigned
//   integers to integers and floats; signed integers to signed integers and floats; floats to
//   floats; the other byte order of a dtype too): one astype, rounding floats as NumPy does;
//   integers must fit the input's type, never wrapped;
// - anything else (floats to integers, signed to unsigned, numbers to booleans, complex, object,
//   strings, structured, dates) is refused, as is any dtype but uint16 for a bf16 input, whose
//   bit patterns NumPy has no type for.
// Lists and scalars become an array first (numpy.asarray), then follow the same rule.
py::object contiguous_array(py::handle value, const Model& model, const PortInfo& port) {
  const ElementType wanted = port.element_type;
  const py::object want = dtype_of(wanted);
  auto refuse = [&](const std::string& why) {
    return Error(ErrorCode::input,
                 "input '" + port.name + "' is " + dtype_text(wanted) + ", " + why,
                 input_context(model, port));
  };
  if (want.is_none()) throw refuse("a type that has no NumPy dtype");
  const py::module_ np = numpy_module();
  const bool is_array = PyObject_CheckBuffer(value.ptr());
  py::object array;
  try {
    array = np.attr("asarray")(value);
  } catch (py::error_already_set& e) {
    if (!e.matches(PyExc_ValueError) && !e.matches(PyExc_TypeError)) throw;
    throw refuse("got a value NumPy does not make an array of: " + std::string(e.what()));
  }
  const py::object given = array.attr("dtype");
  if (given.equal(want)) return np.attr("ascontiguousarray")(array);

  const std::string got = is_array
                              ? "got an array of " + dtype_words(given)
                              : "got " + dtype_words(given) + " values (from a " +
                                    std::string(py::str(value.get_type().attr("__name__"))) + ")";
  if (wanted == ElementType::bf16)
    throw refuse(got +
                 "; bf16 inputs take their bit patterns as numpy.uint16 (the high half of "
                 "each float32's bits), which irlite does not make from other dtypes");
  if (!np.attr("can_cast")(given, want, "same_kind").cast<bool>())
    throw refuse(got +
                 ", which is not converted (NumPy's casting rule 'same_kind' refuses it); "
                 "convert it with .astype(numpy." +
                 numpy_name(wanted) + ")");
  const std::string kind = want.attr("kind").cast<std::string>();
  if ((kind == "i" || kind == "u") && !integers_fit(array, want))
    throw refuse(got + " with values from " + std::string(py::str(array.attr("min")())) + " to " +
                 std::string(py::str(array.attr("max")())) +
                 ", which do not fit it (integers are never wrapped)");
  return array.attr("astype")(want, py::arg("order") = "C");
}

// The tensor for input `port` from a Python value: a view when the value is a C-contiguous
// buffer of the input's dtype, else a view of the array contiguous_array makes (and the tensor
// then holds).
Tensor to_tensor(py::handle value, const Model& model, const PortInfo& port,
                 std::vector<ReadOnlyRange>& read_only) {
  if (auto tensor = view_in_place(value, port.element_type, read_only)) return std::move(*tensor);
  const py::object array = contiguous_array(value, model, port);
  if (auto tensor = view_in_place(array, port.element_type, read_only)) return std::move(*tensor);
  throw Error(ErrorCode::usage, "input '" + port.name + "': NumPy gave an array irlite cannot view",
              input_context(model, port));
}

// ---- outputs ---------------------------------------------------------------------------------

// A NumPy array over an output tensor's memory: the array's base holds the tensor, so the memory
// lives as long as the array, whatever happens to the session. Writable, unless it shares a
// read-only input's buffer.
py::object to_array(Tensor tensor, const std::vector<ReadOnlyRange>& read_only) {
  const ElementType type = tensor.element_type();
  const py::object dt = dtype_of(type);
  if (dt.is_none()) throw Error(ErrorCode::usage, "an output has no element type");
  const std::size_t rank = tensor.rank();
  std::vector<Py_intptr_t> shape(rank), strides(rank);
  auto stride = static_cast<Py_intptr_t>(irlite::element_size(type));
  for (std::size_t i = rank; i-- > 0;) {
    shape[i] = static_cast<Py_intptr_t>(tensor.shape()[i]);
    strides[i] = stride;
    stride *= shape[i] > 0 ? shape[i] : 1;
  }
  if (tensor.size() == 0 || tensor.data() == nullptr)
    return py::array(py::reinterpret_borrow<py::dtype>(dt), shape, strides);
  void* data = tensor.data();
  bool writable = true;
  const auto* b = static_cast<const std::byte*>(data);
  for (const ReadOnlyRange& r : read_only)
    if (b >= r.begin && b < r.end) writable = false;
  // NumPy's C API straight (as pybind11's py::array does, without its checks and copies of the
  // shape): the array views the tensor's memory and its base, a capsule, owns the tensor.
  auto& api = py::detail::npy_api::get();
  const int flags = writable ? py::detail::npy_api::NPY_ARRAY_WRITEABLE_ : 0;
  auto array = py::reinterpret_steal<py::object>(
      api.PyArray_NewFromDescr_(api.PyArray_Type_, dt.inc_ref().ptr(), static_cast<int>(rank),
                                shape.data(), strides.data(), data, flags, nullptr));
  if (!array) throw py::error_already_set();
  auto* holder = new Tensor(std::move(tensor));
  py::capsule base(holder, [](void* p) { delete static_cast<Tensor*>(p); });
  if (api.PyArray_SetBaseObject_(array.ptr(), base.release().ptr()) != 0)
    throw py::error_already_set();
  return array;
}

// ---- the session -----------------------------------------------------------------------------

// A Session as Python holds it, with a flag that refuses a second thread running it at once.
class PySession {
 public:
  PySession(const Model& model, irlite::SessionOptions options) : session_(model, options) {
    for (const PortInfo& p : model.outputs()) output_names_.push_back(text(p.name));
  }

  OutputsDict run(const InputsArg& inputs);
  const irlite::Session& session() const { return session_; }

 private:
  irlite::Session session_;
  std::atomic<bool> busy_{false};
  // The outputs' names as Python strings, made once: the keys of every run's dict.
  std::vector<py::object> output_names_;
};

OutputsDict PySession::run(const InputsArg& inputs) {
  const Model& model = session_.model();
  std::map<std::string, Tensor> feed;
  std::vector<ReadOnlyRange> read_only;
  auto add = [&](std::string name, py::handle value) {
    const auto index = model.find_input(name);
    if (!index) {
      std::string names;
      for (const PortInfo& p : model.inputs()) names += (names.empty() ? "" : ", ") + p.name;
      throw Error(ErrorCode::input,
                  "the model has no input '" + name + "' (inputs: " + names + ")");
    }
    feed.insert_or_assign(std::move(name),
                          to_tensor(value, model, model.inputs()[*index], read_only));
  };
  if (PyDict_Check(inputs.ptr())) {
    for (auto item : py::reinterpret_borrow<py::dict>(inputs)) {
      if (!py::isinstance<py::str>(item.first))
        throw py::type_error("Session.run: input names must be str, got " +
                             py::repr(item.first).cast<std::string>());
      add(item.first.cast<std::string>(), item.second);
    }
  } else if (PyList_Check(inputs.ptr()) || PyTuple_Check(inputs.ptr())) {
    auto seq = py::reinterpret_borrow<py::sequence>(inputs);
    const std::size_t n = py::len(seq);
    if (n != model.inputs().size())
      throw Error(ErrorCode::input, "Session.run was given " + std::to_string(n) +
                                        " inputs, the model has " +
                                        std::to_string(model.inputs().size()));
    for (std::size_t i = 0; i < n; ++i) add(model.inputs()[i].name, seq[i]);
  } else if (!inputs.is_none()) {
    throw py::type_error(
        "Session.run takes a dict {name: array} or a list of arrays in Model.inputs order");
  }

  bool idle = false;
  if (!busy_.compare_exchange_strong(idle, true))
    throw Error(ErrorCode::usage,
                "this Session is running on another thread: give each thread its own Session "
                "(Model.session())");
  irlite::Outputs outputs;
  try {
    py::gil_scoped_release release;
    outputs = session_.run(feed);
  } catch (...) {
    busy_.store(false);
    throw;
  }
  busy_.store(false);
  py::dict result;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    py::object array = to_array(std::move(outputs[i].second), read_only);
    if (PyDict_SetItem(result.ptr(), output_names_[i].ptr(), array.ptr()) != 0)
      throw py::error_already_set();
  }
  return py::reinterpret_steal<OutputsDict>(result.release());
}

// ---- loading ---------------------------------------------------------------------------------

irlite::InferencePrecision precision_from(const std::string& precision) {
  if (precision == "f32") return irlite::InferencePrecision::f32;
  if (precision == "declared") return irlite::InferencePrecision::declared;
  throw Error(ErrorCode::usage, "precision must be 'f32' or 'declared', got '" + precision + "'");
}

irlite::LoadOptions load_options(const std::string& precision, bool fuse_layers, bool keep_going) {
  irlite::LoadOptions o;
  o.inference_precision = precision_from(precision);
  o.fuse_layers = fuse_layers;
  o.keep_going = keep_going;
  return o;
}

Model load(const std::filesystem::path& xml, const std::optional<std::filesystem::path>& weights,
           const std::string& weights_mode, const std::string& precision, bool fuse_layers,
           bool keep_going) {
  irlite::LoadOptions o = load_options(precision, fuse_layers, keep_going);
  if (weights) o.weights = *weights;
  if (weights_mode == "auto")
    o.weights_mode = irlite::WeightsMode::automatic;
  else if (weights_mode == "copy")
    o.weights_mode = irlite::WeightsMode::copy;
  else if (weights_mode == "map")
    o.weights_mode = irlite::WeightsMode::map;
  else
    throw Error(ErrorCode::usage,
                "weights_mode must be 'auto', 'copy' or 'map', got '" + weights_mode + "'");
  py::gil_scoped_release release;
  return Model::load(xml, o);
}

Model load_from_memory(const XmlArg& xml, const BufferArg& weights, const std::string& name,
                       const std::string& precision, bool fuse_layers, bool keep_going) {
  std::string xml_text;
  if (py::isinstance<py::str>(xml))
    xml_text = xml.cast<std::string>();
  else if (py::isinstance<py::bytes>(xml))
    xml_text = xml.cast<std::string>();
  else if (PyObject_CheckBuffer(xml.ptr()))
    xml_text = py::module_::import("builtins").attr("bytes")(xml).cast<std::string>();
  else
    throw py::type_error("load_from_memory: xml must be str or bytes");
  const irlite::LoadOptions o = load_options(precision, fuse_layers, keep_going);
  auto held = std::make_shared<HeldBuffer>();
  std::span<const std::byte> bytes;
  if (!weights.is_none()) {
    if (PyObject_GetBuffer(weights.ptr(), &held->view, PyBUF_C_CONTIGUOUS) != 0)
      throw py::error_already_set();
    bytes = {static_cast<const std::byte*>(held->view.buf),
             static_cast<std::size_t>(held->view.len)};
  }
  std::shared_ptr<const void> keep(held, held.get());
  py::gil_scoped_release release;
  return Model::load_from_memory(xml_text, std::move(keep), bytes, o, name);
}

// ---- descriptions ----------------------------------------------------------------------------

std::string type_name(ElementType type) {
  return std::string(irlite::to_string(type));
}

// repr() of a Python object, for the reprs built here.
std::string repr_of(py::handle o) {
  return py::repr(o).cast<std::string>();
}

// A Python list of `to_py(item)` for each item.
template <typename Items, typename ToPy>
py::list list_of(const Items& items, ToPy to_py) {
  py::list l;
  for (const auto& item : items) l.append(to_py(item));
  return l;
}

py::list names_to_py(const std::vector<std::string>& names) {
  return list_of(names, [](const std::string& n) { return text(n); });
}

py::list errors_to_py(const std::vector<Error>& errors) {
  return list_of(errors, [](const Error& e) { return text(e.what()); });
}

// An op's inputs or outputs as (name, (element type, ...)) pairs.
py::list op_ports_to_py(const std::vector<irlite::OpPortInfo>& ports) {
  return list_of(ports, [](const irlite::OpPortInfo& p) {
    return py::make_tuple(std::string(p.name), py::tuple(list_of(p.element_types, type_name)));
  });
}

// The repr of a Port or a LayerOutput: `what` opens it ("name='x'", "port=2").
std::string port_repr(const char* cls, const std::string& what, ElementType type,
                      const PartialShape& shape) {
  return std::string(cls) + "(" + what + ", element_type='" + type_name(type) +
         "', shape=" + repr_of(shape_to_py(shape)) + ")";
}

// The repr of a Layer or a LayerProfile: its id, name and type-version, then `more`.
template <typename Layer>
std::string layer_repr(const char* cls, const Layer& l, const std::string& more = "") {
  return std::string(cls) + "(id=" + std::to_string(l.id) + ", name=" + repr_of(text(l.name)) +
         ", type='" + l.type + "-" + std::to_string(l.version) + "'" + more + ")";
}

// The properties a Port and a LayerOutput share, from their members of the same names.
template <typename Port>
void def_port_properties(py::class_<Port>& cls, const char* shape_doc) {
  cls.def_property_readonly(
         "tensor_names", [](const Port& p) { return names_to_py(p.tensor_names); },
         "Every tensor name of the port, possibly none (an input may be named by any of them).")
      .def_property_readonly(
          "element_type", [](const Port& p) { return type_name(p.element_type); },
          "The IR element type: 'f32', 'i64', 'boolean', 'bf16'...")
      .def_property_readonly(
          "dtype", [](const Port& p) { return dtype_of(p.element_type); },
          "The NumPy dtype of its arrays (bf16: uint16 bit patterns); None when unknown.")
      .def_property_readonly(
          "shape", [](const Port& p) { return shape_to_py(p.shape); }, shape_doc);
}

std::size_t memory_from_py(py::handle value) {
  if (value.is_none()) return 0;
  if (!PyIndex_Check(value.ptr()))
    throw py::type_error("max_memory must be an int (bytes) or None, got " +
                         std::string(py::str(value.get_type().attr("__name__"))));
  std::int64_t n = 0;
  try {
    n = value.cast<std::int64_t>();
  } catch (const py::cast_error&) {
    n = -1;  // beyond int64
  }
  if (n <= 0)
    throw Error(ErrorCode::usage, "max_memory must be a positive number of bytes, at most 2**63-1");
  return static_cast<std::size_t>(n);
}

std::unique_ptr<PySession> make_session(const Model& model, int threads,
                                        const OptionalIntArg& max_memory, bool profile) {
  if (threads < 0) throw Error(ErrorCode::usage, "threads must be 0 (one per CPU) or more");
  irlite::SessionOptions o;
  o.num_threads = static_cast<unsigned>(threads);
  o.max_memory_bytes = memory_from_py(max_memory);
  o.profile = profile;
  return std::make_unique<PySession>(model, o);
}

}  // namespace

PYBIND11_MODULE(irlite, m) {
  m.doc() = R"(irlite: run OpenVINO IR models (.xml + .bin) from Python, with NumPy arrays.

    model = irlite.load("model.xml")
    session = model.session(threads=4)
    outputs = session.run({"x": numpy.zeros((1, 3), numpy.float32)})   # {name: ndarray}

Inputs that are C-contiguous and of the input's dtype are read in place, without a copy.
Other layouts are copied once; other dtypes are converted by one astype when NumPy's casting
rule 'same_kind' allows it (float64 to float32, int64 to int32, integers and booleans to
floats; integers must fit, never wrapped) and refused with irlite.InputError otherwise (floats
to integers, signed to unsigned, complex, object, strings: convert them with .astype()).
Outputs are NumPy arrays over irlite's own memory: no copy, writable, and valid for as long as
they are referenced. f16 is numpy.float16, bf16 is numpy.uint16 holding the bit patterns (only
uint16 feeds a bf16 input), boolean is numpy.bool_. The GIL is released while a model loads and
while a session runs, so threads that each have a session run in parallel. Every problem raises
an irlite.Error subclass carrying its file, line, column, layer and port.)";

  // The exception classes, from Python source, then their translation.
  {
    py::dict scope;
    scope["__builtins__"] = py::module_::import("builtins");
    scope["__name__"] = py::str("irlite");
    py::exec(kErrorClasses, scope);
    const char* names[kErrorCodes] = {
        "IoError",      "XmlError",   "FormatError", "UnsupportedError", "GraphError",
        "WeightsError", "ShapeError", "RangeError",  "InputError",       "UsageError"};
    m.attr("Error") = scope["Error"];
    for (std::size_t i = 0; i < kErrorCodes; ++i) {
      py::object cls = scope[names[i]];
      m.attr(names[i]) = cls;
      error_classes[i] = cls.release().ptr();
    }
  }
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      raise_error(e);
    }
  });

  m.attr("__version__") = py::str(std::string(irlite::version()));

  py::class_<PortInfo> port(m, "Port", "A model input (a Parameter) or output (a Result).");
  port.def_property_readonly(
          "name", [](const PortInfo& p) { return text(p.name); },
          "Inputs: the Parameter layer's name. Outputs: the first tensor name of the port that "
          "feeds the Result, or the Result's name.")
      .def("__repr__", [](const PortInfo& p) {
        return port_repr("Port", "name=" + repr_of(text(p.name)), p.element_type, p.shape);
      });
  def_port_properties(port,
                      "The partial shape: a tuple whose items are ints (static), None (dynamic) "
                      "or (lo, hi) intervals (hi None when unbounded); None for a dynamic rank.");

  using irlite::LayerOutput;
  py::class_<LayerOutput> layer_output(m, "LayerOutput", "One output of a layer, as inferred.");
  layer_output.def_readonly("port", &LayerOutput::port, "The IR port id.")
      .def_property_readonly(
          "declared_shape",
          [](const LayerOutput& o) {
            return py::tuple(list_of(o.declared_dims, [](std::int64_t d) {
              return d < 0 ? none_object() : py::object(py::int_(d));
            }));
          },
          "The dims written in the IR, None for dynamic ones.")
      .def_readonly("declared_differs", &LayerOutput::declared_differs,
                    "Whether the IR's dims or precision contradict the inferred ones.")
      .def("__repr__", [](const LayerOutput& o) {
        return port_repr("LayerOutput", "port=" + std::to_string(o.port), o.element_type, o.shape);
      });
  def_port_properties(layer_output, "The inferred partial shape (see Port.shape).");

  using irlite::LayerInfo;
  py::class_<LayerInfo>(m, "Layer", "One layer of a model with its inferred outputs.")
      .def_readonly("id", &LayerInfo::id, "The IR layer id.")
      .def_property_readonly(
          "name", [](const LayerInfo& l) { return text(l.name); }, "The layer's name.")
      .def_readonly("type", &LayerInfo::type, "The op's name: 'TopK', 'Constant'.")
      .def_readonly("version", &LayerInfo::version, "The op version: 11 for TopK-11.")
      .def_readonly("opset", &LayerInfo::opset, "As written: 'opset11'.")
      .def_readonly("line", &LayerInfo::line, "The 1-based line of its <layer> in the .xml.")
      .def_readonly("column", &LayerInfo::column, "The 1-based column of its <layer>.")
      .def_property_readonly(
          "attributes",
          [](const LayerInfo& l) {
            py::dict d;
            for (const auto& [k, v] : l.attributes) d[text(k)] = text(v);
            return d;
          },
          "Key attributes as text (small Const values as 'value').")
      .def_property_readonly(
          "inputs",
          [](const LayerInfo& l) {
            return list_of(l.inputs, [](const irlite::LayerInput& in) {
              return py::make_tuple(in.port, in.from_layer, in.from_port);
            });
          },
          "One (port, from_layer, from_port) tuple per input: the IR port and the output feeding "
          "it.")
      .def_readonly("outputs", &LayerInfo::outputs, "The LayerOutput of each output port.")
      .def_readonly("reaches_result", &LayerInfo::reaches_result,
                    "False when no Result depends on the layer (it does not run).")
      .def_readonly("folded", &LayerInfo::folded,
                    "Computed while loading, its inputs being all known.")
      .def_readonly("fused_into", &LayerInfo::fused_into,
                    "The index in Model.layers() of the layer whose kernel runs this one, or None.")
      .def("__repr__", [](const LayerInfo& l) { return layer_repr("Layer", l); });

  using irlite::LayerProfile;
  auto shapes_to_py = [](const std::vector<irlite::Shape>& shapes) {
    return list_of(shapes, concrete_shape_to_py);
  };
  py::class_<LayerProfile>(m, "LayerProfile", "One layer of a profiled run.")
      .def_readonly("layer", &LayerProfile::layer, "The index into Model.layers().")
      .def_readonly("id", &LayerProfile::id, "The IR layer id.")
      .def_property_readonly(
          "name", [](const LayerProfile& l) { return text(l.name); }, "The layer's name.")
      .def_readonly("type", &LayerProfile::type, "The op's name: 'TopK'.")
      .def_readonly("version", &LayerProfile::version, "The op version: 11 for TopK-11.")
      .def_readonly("start_ns", &LayerProfile::start_ns, "From the start of the run.")
      .def_readonly("duration_ns", &LayerProfile::duration_ns,
                    "Its shape rule, the allocation of its outputs and its kernel.")
      .def_readonly("input_bytes", &LayerProfile::input_bytes, "The bytes of every input read.")
      .def_readonly("output_bytes", &LayerProfile::output_bytes,
                    "The bytes of every output written.")
      .def_property_readonly(
          "input_shapes", [=](const LayerProfile& l) { return shapes_to_py(l.input_shapes); },
          "The shape of each input, a tuple of ints.")
      .def_property_readonly(
          "output_shapes", [=](const LayerProfile& l) { return shapes_to_py(l.output_shapes); },
          "The shape of each output, a tuple of ints.")
      .def_readonly("fused_layers", &LayerProfile::fused_layers,
                    "Indices into Model.layers() of the layers that ran inside this one's kernel.")
      .def("__repr__", [](const LayerProfile& l) {
        return layer_repr("LayerProfile", l, ", duration_ns=" + std::to_string(l.duration_ns));
      });

  py::class_<irlite::RunProfile>(m, "RunProfile",
                                 "A profiled run: its compute layers in run order and its time.")
      .def_readonly("layers", &irlite::RunProfile::layers,
                    "A LayerProfile per compute layer (Parameters, Consts and Results do no work).")
      .def_readonly("total_ns", &irlite::RunProfile::total_ns,
                    "The whole run, from the first layer to the last.")
      .def("__repr__", [](const irlite::RunProfile& p) {
        return "RunProfile(layers=" + std::to_string(p.layers.size()) +
               ", total_ns=" + std::to_string(p.total_ns) + ")";
      });

  using irlite::OpInfo;
  py::class_<OpInfo>(m, "OpInfo", "One op version irlite runs.")
      .def_property_readonly(
          "type", [](const OpInfo& o) { return std::string(o.type); }, "The op's name: 'TopK'.")
      .def_readonly("version", &OpInfo::version, "11 for TopK-11.")
      .def_readonly("since_opset", &OpInfo::since_opset, "The first opset that has it.")
      .def_readonly("until_opset", &OpInfo::until_opset,
                    "The last opset irlite knows that still holds this version.")
      .def_readonly("min_inputs", &OpInfo::min_inputs, "The inputs it needs.")
      .def_property_readonly(
          "max_inputs",
          [](const OpInfo& o) {
            return o.max_inputs == INT_MAX ? none_object() : py::object(py::int_(o.max_inputs));
          },
          "The inputs it takes at most; None for a variadic op (Concat).")
      .def_property_readonly(
          "inputs", [](const OpInfo& o) { return op_ports_to_py(o.inputs); },
          "One (name, element types) pair per input.")
      .def_property_readonly(
          "outputs", [](const OpInfo& o) { return op_ports_to_py(o.outputs); },
          "One (name, element types) pair per output.")
      .def("__repr__", [](const OpInfo& o) {
        return "OpInfo('" + std::string(o.type) + "-" + std::to_string(o.version) + "')";
      });

  py::class_<PySession>(m, "Session",
                        "Running state for one thread; make one per thread with Model.session().")
      .def("run", &PySession::run, py::arg("inputs") = py::none(),
           R"(Runs the model and returns {output name: numpy.ndarray}, in Model.outputs order.

`inputs` is a dict {name: array} (a Parameter's name or one of its tensor names) or a list of
arrays in Model.inputs order. An array that is C-contiguous and of the input's dtype is read in
place, without a copy. Any other array is copied once into a C-contiguous array of the input's
dtype: another layout as it is, another dtype by astype when
numpy.can_cast(given, wanted, "same_kind") is true (booleans to anything, unsigned integers to
integers and floats, signed integers to signed integers and floats, floats to floats; integer
values must fit the input's type). Other dtypes raise InputError naming the .astype() to call;
a bf16 input takes numpy.uint16 bit patterns only. Lists and scalars go through numpy.asarray
first, then the same rule. The returned arrays own irlite's memory: no copy is made, they are
writable and outlive the session. The GIL is released while the model runs.)")
      .def(
          "profile", [](const PySession& s) { return s.session().profile(); },
          "The last run's layers and times (a RunProfile); empty unless the session was made with "
          "profile=True.")
      .def_property_readonly(
          "model", [](const PySession& s) { return s.session().model(); }, "The model it runs.")
      .def_property_readonly(
          "threads", [](const PySession& s) { return s.session().options().num_threads; },
          "The threads each layer may use (resolved: never 0).")
      .def_property_readonly(
          "max_memory", [](const PySession& s) { return s.session().options().max_memory_bytes; },
          "The memory budget of a run in bytes (resolved: never 0).")
      .def("__repr__", [](const PySession& s) {
        return "Session(model=" + repr_of(text(s.session().model().name())) +
               ", threads=" + std::to_string(s.session().options().num_threads) + ")";
      });

  py::class_<Model>(m, "Model",
                    "A loaded model: immutable, and safe to share between threads (each thread "
                    "runs it with its own Session).")
      .def_property_readonly(
          "name", [](const Model& mo) { return text(mo.name()); }, "The name of <net>.")
      .def_property_readonly("ir_version", &Model::ir_version, "10 or 11.")
      .def_property_readonly(
          "source", [](const Model& mo) { return text(mo.source()); },
          "The .xml path, or the name given to load_from_memory.")
      .def_property_readonly("inputs", &Model::inputs, "The inputs (Port), in document order.")
      .def_property_readonly("outputs", &Model::outputs, "The outputs (Port), in document order.")
      .def("layers", &Model::layers,
           "Every layer (Layer) in run order with its inferred output types and shapes, as "
           "`irlite inspect` shows them.")
      .def_property_readonly(
          "warnings", [](const Model& mo) { return errors_to_py(mo.warnings()); },
          "Things worth knowing that do not stop the model, one line each.")
      .def_property_readonly(
          "problems", [](const Model& mo) { return errors_to_py(mo.problems()); },
          "Every problem found when loaded with keep_going=True, one line each.")
      .def_property_readonly("is_dynamic", &Model::is_dynamic, "Whether some shape is not static.")
      .def(
          "reshape",
          [](const Model& mo, const py::dict& shapes) {
            std::map<std::string, PartialShape> s;
            for (auto item : shapes) {
              const auto name = item.first.cast<std::string>();
              s[name] = shape_from_py(item.second, name);
            }
            py::gil_scoped_release release;
            return mo.reshape(s);
          },
          py::arg("shapes"),
          R"(A copy of the model with new input shapes, inferred again.

`shapes` maps an input (or tensor) name to a shape: a sequence of ints, None (dynamic) and
(lo, hi) pairs, or a string such as "[1,3..5,?]".)")
      .def("session", &make_session, py::kw_only(), py::arg("threads") = 0,
           py::arg("max_memory") = py::none(), py::arg("profile") = false,
           R"(A new Session for running the model.

threads: the threads each layer may use (0: one per CPU). max_memory: the bytes one run may
allocate (outputs, values between layers, kernel scratch; inputs are not counted); a run that
would go over raises RangeError. None: half the machine's memory. profile: record each run's
layers and times for Session.profile().)")
      .def("__repr__", [](const Model& mo) {
        return "Model(name=" + repr_of(text(mo.name())) +
               ", inputs=" + std::to_string(mo.inputs().size()) +
               ", outputs=" + std::to_string(mo.outputs().size()) + ")";
      });

  m.def("load", &load, py::arg("path"), py::arg("weights") = py::none(), py::kw_only(),
        py::arg("weights_mode") = "auto", py::arg("precision") = "f32",
        py::arg("fuse_layers") = true, py::arg("keep_going") = false,
        R"(Loads an IR model from its .xml path; the weights are the .bin beside it unless given.

weights_mode: 'auto' (copy below 64 MiB, map above), 'copy' or 'map' (the file must then stay
unchanged while the model lives). precision: what f16/bf16 layers compute in, 'f32' (as
OpenVINO's CPU plugin) or 'declared'. fuse_layers: run element-wise layers after a convolution
inside its kernel. keep_going: collect every problem in Model.problems instead of raising the
first (such a model cannot run). Raises an irlite.Error subclass naming the file, line and layer.)");
  m.def("load_from_memory", &load_from_memory, py::arg("xml"), py::arg("weights") = py::none(),
        py::kw_only(), py::arg("name") = "<memory>", py::arg("precision") = "f32",
        py::arg("fuse_layers") = true, py::arg("keep_going") = false,
        R"(Loads a model from its XML text (str or bytes) and its weights (any buffer: bytes,
memoryview, numpy array). The weights are not copied: the model keeps a reference to the buffer,
which must not change while the model lives. `name` names the model in errors.)");
  m.def("supported_ops", &irlite::supported_ops,
        "Every op version irlite runs (OpInfo), in the order `irlite ops` lists them.");
}
