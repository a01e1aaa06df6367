// The NumPy .npy file format, read and written as opkit Tensors: what
// `opkit run` uses for --feed files and --out results.
//
//   OPKIT_ASSIGN_OR_RETURN(Tensor x, ReadNpyFile("x.npy"));
//   OPKIT_RETURN_IF_ERROR(WriteNpyFile(y, "out/y.npy"));
//
// Reading accepts format versions 1.0, 2.0 and 3.0 (header in latin-1 or,
// for 3.0, UTF-8), C order only, and the dtypes bool, int8/16/32/64,
// uint8/16/32/64, float16/32/64 and complex64/128 in either byte order (a
// big-endian file is converted). Everything else is refused with
// InvalidArgument naming the file, the offending value and what to do:
// Fortran order, object or structured dtypes, other dtypes, a malformed or
// truncated header, a shape whose size overflows, data shorter or longer than
// the header says. Writing produces version 1.0, little-endian, C order, as
// numpy.save does.
//
// Thread-compatible: free functions without shared state.
#ifndef OPKIT_TOOLS_OPKIT_NPY_H_
#define OPKIT_TOOLS_OPKIT_NPY_H_

#include <string>
#include <string_view>

#include "opkit/core/status.h"
#include "opkit/core/statusor.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/types.h"

namespace opkit {
namespace cli {

// Decodes the contents of a .npy file. `what` names the data in messages
// (normally the file's path).
StatusOr<Tensor> ParseNpy(std::string_view bytes, std::string_view what);

// Reads and decodes the .npy file at `path`; NotFound etc. from the file
// system, InvalidArgument for a bad file.
StatusOr<Tensor> ReadNpyFile(const std::string& path);

// Encodes `tensor` as a version 1.0 .npy file. InvalidArgument for a dtype
// .npy cannot hold (string, bfloat16, quantized, resource, variant).
StatusOr<std::string> SerializeNpy(const Tensor& tensor);

// SerializeNpy() then writes the file at `path`.
Status WriteNpyFile(const Tensor& tensor, const std::string& path);

// The numpy descr of `dtype` ("<f4", "|b1"), or "" if .npy cannot hold it.
std::string NpyDescr(DataType dtype);

// numpy's name for `dtype` ("float32", "int64", "bool"), or opkit's name
// (DataTypeString) for a dtype numpy lacks.
std::string NumpyDtypeName(DataType dtype);

}  // namespace cli
}  // namespace opkit

#endif  // OPKIT_TOOLS_OPKIT_NPY_H_
