// A shared library that has nothing to do with opkit (no opkit headers, so no
// opkit_abi_version): loading it as an op library is refused.
extern "C" int not_an_op_library() { return 7; }
