// A plain shared library, not built against opkit, standing for a runtime
// an op library links (a BLAS, OpenMP): the loader must keep it loaded
// after the op library is unloaded.
extern "C" __attribute__((visibility("default"))) int libtest_runtime_value() {
  return 7;
}
