// opkit._opkit.Session: a GraphDef loaded into an opkit::Session and run
// with numpy feeds. opkit/session.py adds the TensorFlow-style front
// (fetch structures, feed conversion, context manager).
#include "common.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "opkit/graph/graph.h"
#include "opkit/runtime/session.h"

namespace py = pybind11;

namespace opkit {
namespace internal {
namespace {

class PySession {
 public:
  explicit PySession(const py::bytes& graph) {
    std::string data = graph;
    ThrowIfError(ParseGraphDef(data, &graph_def_));
    SessionOptions options;
    options.intra_op_threads = 0;
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
               const std::vector<std::string>& targets) {
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
    Status s;
    {
      py::gil_scoped_release release;
      s = session_->Run(inputs, fetches, targets, &outputs);
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

  void Close() { ThrowIfError(session_->Close()); }

 private:
  GraphDef graph_def_;
  std::unique_ptr<Session> session_;
};

}  // namespace

void BindSession(py::module_& m) {
  py::class_<PySession>(m, "_Session")
      .def(py::init<const py::bytes&>(), py::arg("graph_def"))
      .def("feed_dtype", &PySession::FeedDtype)
      .def("run", &PySession::Run, py::arg("feeds"), py::arg("fetches"),
           py::arg("targets"))
      .def("close", &PySession::Close);
}

}  // namespace internal
}  // namespace opkit
