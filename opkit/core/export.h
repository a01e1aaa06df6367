// Symbol visibility for libopkit_framework.so.
//
// opkit builds with -fvisibility=hidden; a declaration that plugins or
// programs use from the shared library is marked OPKIT_EXPORT:
//
//   class OPKIT_EXPORT OpRegistry { ... };
//   OPKIT_EXPORT Status LoadOpLibrary(const std::string& path);
#ifndef OPKIT_CORE_EXPORT_H_
#define OPKIT_CORE_EXPORT_H_

#define OPKIT_EXPORT [[gnu::visibility("default")]]

#endif  // OPKIT_CORE_EXPORT_H_
