// opkit._opkit.Session: a GraphDef loaded into an opkit::Session and run
// with numpy feeds. opkit/session.py adds the TensorFlow-style front
// (fetch structures, feed conversion, context manager).
// opkit._opkit._read_graph_file: a graph file (GraphDef or TF.js model) as
// GraphDef bytes and its signature, for opkit.load_graph (opkit/graph.py).
#include "common.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "opkit/core/errors.h"
#include "opkit/graph/graph.h"
#include "opkit/graph/tfjs_model.h"
#include "opkit/runtime/session.h"

namespace py = pybind11;

namespace opkit {
namespace internal {
namespace {

class PySession {
 public:
  // Thread counts as SessionOptions' (0: one per CPU).
  PySession(const py::bytes& graph, int intra_op_threads,
            int inter_op_threads) {
    std::string data = graph;
    ThrowIfError(ParseGraphDef(data, &graph_def_));
    SessionOptions options;
    options.intra_op_threads = intra_op_threads;
    options.inter_op_threads = inter_op_threads;
    auto session = Session::New(options);
    ThrowIfError(session.status());
    session_ = std::move(session).value();
    ThrowIfError(session_->Create(graph_def_));
  }

  // The dtype a Placeholder feed named `name` ("x" or "x:0") expects, or
  // -1 when the node is not a placeholder with a dtype.
  int FeedDtype(const std::string& name) const {
    const std::string node = name.substr(0, name.find(':'));
    for (const NodeDef& n : graph_def_.node()) {
      if (n.name() != node) continue;
      auto it = n.attr().find("dtype");
      if (it != n.attr().end() && it->second.value_case() == AttrValue::kType) {
        return it->second.type();
      }
      return -1;
    }
    return -1;
  }

  py::list Run(const std::vector<std::pair<std::string, py::object>>& feeds,
               const std::vector<std::string>& fetches,
               const std::vector<std::string>& targets, int64_t timeout_in_ms) {
    std::vector<std::pair<std::string, Tensor>> inputs;
    for (const auto& [name, value] : feeds) {
      if (!PyArray_Check(value.ptr())) {
        throw py::type_error("feed '" + name + "' must be a numpy array here");
      }
      Tensor t;
      if (!NdarrayToTensorCopy(reinterpret_cast<PyArrayObject*>(value.ptr()),
                               name.c_str(), &t)) {
        throw py::error_already_set();
      }
      inputs.emplace_back(name, std::move(t));
    }
    std::vector<Tensor> outputs;
    RunOptions options;
    options.timeout_in_ms = timeout_in_ms;
    Status s;
    {
      py::gil_scoped_release release;
      s = session_->Run(options, inputs, fetches, targets, &outputs, nullptr);
    }
    ThrowIfError(s);
    py::list out;
    for (const Tensor& t : outputs) {
      PyObject* a = TensorToNdarray(t, /*readonly=*/false);
      if (a == nullptr) throw py::error_already_set();
      out.append(py::reinterpret_steal<py::object>(a));
    }
    return out;
  }

  // Adds the nodes of GraphDef `graph` (bytes) to the session's graph, for
  // a Python-built opkit.Graph that grew since the session saw it.
  void Extend(const py::bytes& graph) {
    std::string data = graph;
    GraphDef more;
    ThrowIfError(ParseGraphDef(data, &more));
    ThrowIfError(session_->Extend(more));
    for (const NodeDef& n : more.node()) *graph_def_.add_node() = n;
  }

  void Close() { ThrowIfError(session_->Close()); }

 private:
  GraphDef graph_def_;
  std::unique_ptr<Session> session_;
};

// [{"key", "name", "dtype" (DataType number), "shape" (list, -1 for an
// unknown dimension; None for an unknown rank)}].
py::list TensorInfosToPy(const std::vector<TfjsTensorInfo>& infos) {
  py::list out;
  for (const TfjsTensorInfo& t : infos) {
    py::dict d;
    d["key"] = t.key;
    d["name"] = t.tensor_name;
    d["dtype"] = static_cast<int>(t.dtype);
    if (t.shape.unknown_rank()) {
      d["shape"] = py::none();
    } else {
      py::list dims;
      for (const auto& dim : t.shape.dim()) dims.append(dim.size());
      d["shape"] = dims;
    }
    out.append(d);
  }
  return out;
}

// (serialized GraphDef, info dict) for ReadGraphDefFromFile(path).
py::tuple ReadGraphFile(const std::string& path) {
  GraphDef graph_def;
  TfjsSignature signature;
  Status status;
  {
    py::gil_scoped_release release;
    status = ReadGraphDefFromFile(path, &graph_def, &signature);
  }
  ThrowIfError(status);
  std::string bytes;
  if (!graph_def.SerializeToString(&bytes)) {
    ThrowIfError(errors::InvalidArgument(
        "The graph read from '", path, "' is ", graph_def.ByteSizeLong(),
        " bytes; a GraphDef can be passed on only up to 2 GiB"));
  }
  py::dict info;
  info["inputs"] = TensorInfosToPy(signature.inputs);
  info["outputs"] = TensorInfosToPy(signature.outputs);
  info["format"] = signature.format;
  info["generated_by"] = signature.generated_by;
  info["converted_by"] = signature.converted_by;
  return py::make_tuple(py::bytes(bytes), info);
}

}  // namespace

void BindSession(py::module_& m) {
  m.def("_read_graph_file", &ReadGraphFile, py::arg("path"));
  // opkit.config.threading: the eager context's intra-op threads.
  m.def("_eager_context_initialized", &PyEagerContextInitialized);
  m.def("_set_eager_intra_op_threads", [](int threads) {
    ThrowIfError(SetPyEagerIntraOpThreads(threads));
  });
  py::class_<PySession>(m, "_Session")
      .def(py::init<const py::bytes&, int, int>(), py::arg("graph_def"),
           py::arg("intra_op_threads") = 0, py::arg("inter_op_threads") = 0)
      .def("feed_dtype", &PySession::FeedDtype)
      .def("run", &PySession::Run, py::arg("feeds"), py::arg("fetches"),
           py::arg("targets"), py::arg("timeout_in_ms") = 0)
      .def("extend", &PySession::Extend, py::arg("graph_def"))
      .def("close", &PySession::Close);
}

}  // namespace internal
}  // namespace opkit
