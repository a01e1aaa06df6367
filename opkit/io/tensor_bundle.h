// TensorFlow's TensorBundle checkpoint format: BundleWriter saves named
// tensors, BundleReader reads them back, MergeBundles joins the bundles of
// several writers into one. Files written here read in TensorFlow and the
// other way round.
//
//   BundleWriter writer(Env::Default(), "/ckpt/model-1");
//   OPKIT_RETURN_IF_ERROR(writer.Add("w", w));
//   OPKIT_RETURN_IF_ERROR(writer.Add("b", b));
//   OPKIT_RETURN_IF_ERROR(writer.Finish());   // the bundle appears now
//
//   BundleReader reader(Env::Default(), "/ckpt/model-1");
//   OPKIT_RETURN_IF_ERROR(reader.status());
//   Tensor w;
//   OPKIT_RETURN_IF_ERROR(reader.Lookup("w", &w));
//
// Note [TensorBundle format]
// A bundle with prefix P is the file P.index and the data files
// P.data-00000-of-0000N ... P.data-0000(N-1)-of-0000N.
// - P.index is a LevelDB table (an SSTable: blocks with a 5-byte trailer of
//   type and masked CRC32C, a metaindex and an index block, a 48-byte
//   footer ending in the magic 0xdb4775248b80fb57 little-endian), written
//   uncompressed. Under the empty key, which sorts first, lies a serialized
//   BundleHeaderProto (number of data files, byte order, format version);
//   under every tensor name a serialized BundleEntryProto: dtype, shape,
//   data file, offset, size and the masked CRC32C of the bytes.
// - A data file holds tensors' bytes back to back. A fixed-size dtype is
//   its elements in little-endian memory order. A DT_STRING tensor is the
//   varint64 length of each element, then the masked CRC32C of the lengths
//   (each taken as a little-endian uint32, or uint64 above 2^32-1), then the
//   elements' bytes; its entry's CRC covers those lengths (as uint32/64),
//   the 4 bytes of the length checksum and the elements' bytes.
//
// Note [Atomic bundle writes]
// The writer fills "<file>.tempstate<random>" files and renames them into
// place at Finish(): data files first, the index last. Readers open the
// index first, so a process killed during a save leaves every bundle
// written before it readable, and a half-written bundle has no index. (A
// save over the same prefix killed between the two renames leaves the new
// data under the old index: the CRCs report that as DataLoss.)
//
// Note [Reading untrusted bundles]
// Every size, offset and count in a bundle is checked against the size of
// the file it points into before anything is allocated or read, so a
// truncated or corrupted bundle is a DataLoss Status naming the tensor (or
// the file) and what is wrong, never a crash, a hang or a huge allocation.
// The index table's block CRCs are verified on every read.
#ifndef OPKIT_IO_TENSOR_BUNDLE_H_
#define OPKIT_IO_TENSOR_BUNDLE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "opkit/core/env.h"
#include "opkit/core/export.h"
#include "opkit/core/status.h"
#include "opkit/tensor/tensor.h"
#include "opkit/tensor/tensor_shape.h"
#include "opkit/tensor_bundle.pb.h"

namespace opkit {

// The format version BundleWriter writes and the oldest it reads
// (TensorFlow's kTensorBundleVersion and kTensorBundleMinProducer).
inline constexpr int kTensorBundleVersion = 1;
inline constexpr int kTensorBundleMinProducer = 0;
inline constexpr int kTensorBundleMinConsumer = 0;

// The key of the BundleHeaderProto entry: the empty string, first in order.
inline constexpr std::string_view kHeaderEntryKey = "";

// "<prefix>.index".
OPKIT_EXPORT std::string MetaFilename(std::string_view prefix);
// "<prefix>.data-<shard_id>-of-<num_shards>", numbers as 5 digits.
OPKIT_EXPORT std::string DataFilename(std::string_view prefix, int32_t shard_id,
                                      int32_t num_shards);

// Writes one bundle with one data file (Note [TensorBundle format]). Add
// the tensors, then Finish(); nothing is visible under the prefix before
// Finish() returns OK (Note [Atomic bundle writes]). After the first error
// every call returns it. A writer destroyed without Finish() removes its
// temporary files. Not thread-safe.
class OPKIT_EXPORT BundleWriter {
 public:
  struct Options {
    // Each tensor's bytes start at a multiple of this many bytes (>= 1).
    int data_alignment = 1;
  };

  // Creates the prefix's directory if needed and opens a temporary data
  // file; failures show in status(). `env` is the file system to use
  // (Env::Default()).
  BundleWriter(Env* env, std::string_view prefix, const Options& options);
  BundleWriter(Env* env, std::string_view prefix)
      : BundleWriter(env, prefix, Options()) {}
  ~BundleWriter();
  BundleWriter(const BundleWriter&) = delete;
  BundleWriter& operator=(const BundleWriter&) = delete;

  // Appends `val`'s bytes to the data file under `key`. InvalidArgument for
  // an empty or repeated key or a tensor without storage; Unimplemented for
  // a dtype without a byte form here (resource, variant).
  Status Add(std::string_view key, const Tensor& val);

  // Syncs and renames the data file, then writes, syncs and renames the
  // index. Once it returned, the writer is closed.
  Status Finish();

  // The first error so far, or OK.
  Status status() const { return status_; }

 private:
  class OutputFile;

  void AbandonTempFiles();

  std::string prefix_;
  Options options_;
  Status status_;
  std::string data_path_;      // the temporary data file
  std::string metadata_path_;  // the temporary index file
  std::unique_ptr<OutputFile> out_;
  int64_t size_ = 0;  // bytes written to the data file so far
  std::map<std::string, BundleEntryProto> entries_;
  bool finished_ = false;
};

// Reads a bundle (Note [TensorBundle format]) that TensorFlow or
// BundleWriter wrote. The constructor opens the index and checks its
// header; status() says whether that worked (NotFound for a missing index,
// DataLoss for a corrupted one). Data files open when first needed.
// Not thread-safe: give each thread its own reader.
class OPKIT_EXPORT BundleReader {
 public:
  BundleReader(Env* env, std::string_view prefix);
  ~BundleReader();
  BundleReader(const BundleReader&) = delete;
  BundleReader& operator=(const BundleReader&) = delete;

  // OK when the index opened and its header is valid and supported.
  Status status() const { return status_; }

  // The header read from the index; meaningful when status() is OK.
  const BundleHeaderProto& header() const { return header_; }
  int num_shards() const { return header_.num_shards(); }

  // Whether a tensor is stored under `key`.
  bool Contains(std::string_view key);

  // The dtype and shape stored for `key` without reading the data.
  // NotFound for an unknown key; DataLoss for an unreadable entry.
  Status LookupDtypeAndShape(std::string_view key, DataType* dtype,
                             TensorShape* shape);
  Status LookupTensorShape(std::string_view key, TensorShape* shape);

  // Reads the tensor stored under `key` into `*val`, checking its CRC. If
  // `*val` has elements it must have the stored dtype and shape
  // (InvalidArgument otherwise) and is filled in place; otherwise it is
  // replaced by a new tensor. NotFound for an unknown key, DataLoss naming
  // the key for every kind of damage (Note [Reading untrusted bundles]),
  // Unimplemented for a tensor stored in slices.
  Status Lookup(std::string_view key, Tensor* val);

  // The entry stored under `key`: NotFound, or DataLoss when unparsable.
  Status GetBundleEntryProto(std::string_view key, BundleEntryProto* entry);

  // Iteration in key order, TensorFlow's way: the first entry is the header
  // under kHeaderEntryKey.
  //   for (reader.Seek(""), reader.Next(); reader.Valid(); reader.Next())
  //     use(reader.key());
  // Seek positions at the first key >= `key`.
  void Seek(std::string_view key);
  void Next();
  bool Valid() const;
  // The current key and serialized BundleEntryProto; require Valid().
  std::string_view key() const;
  std::string_view value() const;
  // Reads the tensor at the current position (as Lookup does).
  Status ReadCurrent(Tensor* val);
  // The error that stopped the iteration (a corrupted block), or OK.
  Status IterationStatus() const;

 private:
  struct DataFile;
  struct TableState;

  Status ReadTensor(std::string_view key, const BundleEntryProto& entry,
                    Tensor* val);
  Status OpenDataFile(std::string_view key, int32_t shard_id, DataFile** out);

  std::string prefix_;
  std::string index_path_;
  Status status_;
  BundleHeaderProto header_;
  std::unique_ptr<TableState> table_;
  std::map<int32_t, std::unique_ptr<DataFile>> data_;
};

// Merges the bundles under `prefixes` (each from one BundleWriter) into one
// bundle under `merged_prefix`: renames their data files to the merged
// bundle's names, writes the merged index (atomically) and deletes the old
// indexes. InvalidArgument when two bundles hold the same key or differ in
// byte order or version; the errors of BundleReader for a bad input, and
// then nothing has been renamed.
OPKIT_EXPORT Status MergeBundles(Env* env,
                                 const std::vector<std::string>& prefixes,
                                 std::string_view merged_prefix);

}  // namespace opkit

#endif  // OPKIT_IO_TENSOR_BUNDLE_H_
