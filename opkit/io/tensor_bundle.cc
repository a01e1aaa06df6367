// BundleWriter, BundleReader and MergeBundles (Note [TensorBundle format]).
// The index table goes through LevelDB's TableBuilder and Table over the
// small file adapters below; the data files are plain POSIX files.
#include "opkit/io/tensor_bundle.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <limits>
#include <new>
#include <random>
#include <utility>

#include "leveldb/env.h"
#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "leveldb/table.h"
#include "leveldb/table_builder.h"
#include "opkit/core/errors.h"
#include "opkit/core/str_util.h"
#include "opkit/io/crc32c.h"
#include "opkit/tensor/allocation_limit.h"
#include "opkit/tensor/types.h"

namespace opkit {
namespace {

// LevelDB's table footer: two block handles padded to 40 bytes, then the
// 8-byte magic number.
constexpr size_t kFooterSize = 48;
constexpr uint64_t kTableMagic = 0xdb4775248b80fb57ull;
constexpr size_t kBlockTrailerSize = 5;
// TensorFlow's table block size, so that a bundle's index has the same
// blocks as TensorFlow's for the same entries.
constexpr size_t kIndexBlockSize = 256 * 1024;
// The data file's write buffer.
constexpr size_t kWriteBufferSize = 8 << 20;

std::string ErrnoText(int err) { return std::strerror(err); }

std::string Dirname(std::string_view path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return "";
  if (slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

// Flushes the directory entry of renamed files to disk (best effort).
void SyncDirectory(const std::string& dir) {
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

std::string TempSuffix() {
  static thread_local std::mt19937_64 gen(std::random_device{}() ^
                                          static_cast<uint64_t>(::getpid()));
  char buf[40];
  std::snprintf(buf, sizeof(buf), ".tempstate%llu",
                static_cast<unsigned long long>(gen()));
  return buf;
}

void PutVarint64(std::string* dst, uint64_t v) {
  while (v >= 0x80) {
    dst->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  dst->push_back(static_cast<char>(v));
}

// Decodes a varint64 from [*p, limit); false when it is cut off or longer
// than 10 bytes.
bool GetVarint64(const char** p, const char* limit, uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift <= 63 && *p < limit; shift += 7) {
    const uint64_t byte = static_cast<unsigned char>(**p);
    ++*p;
    result |= (byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *v = result;
      return true;
    }
  }
  return false;
}

uint32_t DecodeFixed32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof(v));  // little-endian hosts only (checked below)
  return v;
}

// Reads exactly [offset, offset + n) of `fd` into `dst`; false on a short
// read (with *err set, 0 for end of file).
bool PreadFully(int fd, uint64_t offset, size_t n, char* dst, int* err) {
  while (n > 0) {
    const size_t chunk = std::min<size_t>(n, size_t{1} << 30);
    const ssize_t got = ::pread(fd, dst, chunk, static_cast<off_t>(offset));
    if (got < 0) {
      if (errno == EINTR) continue;
      *err = errno;
      return false;
    }
    if (got == 0) {
      *err = 0;
      return false;
    }
    dst += got;
    offset += static_cast<uint64_t>(got);
    n -= static_cast<size_t>(got);
  }
  return true;
}

// A read-only file for leveldb::Table.
class IndexFile : public leveldb::RandomAccessFile {
 public:
  explicit IndexFile(int fd) : fd_(fd) {}
  ~IndexFile() override { ::close(fd_); }
  leveldb::Status Read(uint64_t offset, size_t n, leveldb::Slice* result,
                       char* scratch) const override {
    size_t done = 0;
    while (done < n) {
      const ssize_t got = ::pread(fd_, scratch + done, n - done,
                                  static_cast<off_t>(offset + done));
      if (got < 0) {
        if (errno == EINTR) continue;
        *result = leveldb::Slice(scratch, 0);
        return leveldb::Status::IOError("pread", ErrnoText(errno));
      }
      if (got == 0) break;  // end of file: Table reports the short block
      done += static_cast<size_t>(got);
    }
    *result = leveldb::Slice(scratch, done);
    return leveldb::Status::OK();
  }
  int fd() const { return fd_; }

 private:
  int fd_;
};

Status ParseEntry(std::string_view index_path, std::string_view key,
                  std::string_view value, BundleEntryProto* entry) {
  if (!entry->ParseFromArray(value.data(), static_cast<int>(value.size()))) {
    return errors::DataLoss("The entry of tensor '", key, "' in checkpoint index ",
                            index_path,
                            " does not parse as a BundleEntryProto; the file is "
                            "corrupted");
  }
  return OkStatus();
}

// Checks a version triple as TensorFlow's CheckVersions does.
Status CheckBundleVersion(const VersionDef& v, const std::string& index_path) {
  if (v.producer() < kTensorBundleMinProducer) {
    return errors::InvalidArgument(
        "Checkpoint ", index_path, " has format version ", v.producer(),
        ", older than the oldest supported (", kTensorBundleMinProducer,
        "); re-save it with a newer writer");
  }
  if (v.min_consumer() > kTensorBundleVersion) {
    return errors::InvalidArgument(
        "Checkpoint ", index_path, " needs a reader of format version ",
        v.min_consumer(), " or newer, this one is version ", kTensorBundleVersion,
        "; upgrade opkit to read it");
  }
  for (int bad : v.bad_consumers()) {
    if (bad == kTensorBundleVersion) {
      return errors::InvalidArgument("Checkpoint ", index_path,
                                     " disallows readers of format version ",
                                     bad, "; use another version to read it");
    }
  }
  return OkStatus();
}

// Writes `contents` into a new index table file at `path` through LevelDB.
class IndexSink : public leveldb::WritableFile {
 public:
  leveldb::Status Append(const leveldb::Slice& data) override {
    bytes_.append(data.data(), data.size());
    return leveldb::Status::OK();
  }
  leveldb::Status Close() override { return leveldb::Status::OK(); }
  leveldb::Status Flush() override { return leveldb::Status::OK(); }
  leveldb::Status Sync() override { return leveldb::Status::OK(); }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

leveldb::Options TableOptions() {
  leveldb::Options o;
  o.compression = leveldb::kNoCompression;
  o.block_size = kIndexBlockSize;
  o.paranoid_checks = true;  // Table::Open verifies the index block's CRC
  return o;
}

// Writes all of `data` to `fd` (the file `path`), retrying short writes.
Status WriteFully(int fd, const std::string& path, std::string_view data) {
  const char* p = data.data();
  size_t left = data.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errors::Unavailable("Cannot write checkpoint file ", path, ": ",
                                 ErrnoText(errno));
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  return OkStatus();
}

// Syncs and closes `fd` (the file `path`); closes it on failure too.
Status SyncAndClose(int fd, const std::string& path) {
  if (::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    return errors::Unavailable("Cannot sync ", path, ": ", ErrnoText(err));
  }
  if (::close(fd) != 0) {
    return errors::Unavailable("Cannot close ", path, ": ", ErrnoText(errno));
  }
  return OkStatus();
}

// Writes `bytes` to `path` and syncs it; removes a partial file on error.
Status WriteAndSync(const std::string& path, std::string_view bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return errors::Unavailable("Cannot create ", path, ": ", ErrnoText(errno));
  }
  Status s = WriteFully(fd, path, bytes);
  if (!s.ok()) {
    ::close(fd);
  } else {
    s = SyncAndClose(fd, path);
  }
  if (!s.ok()) ::unlink(path.c_str());
  return s;
}

// Builds the index table of `header` and `entries` (sorted by key).
Status BuildIndex(const BundleHeaderProto& header,
                  const std::map<std::string, BundleEntryProto>& entries,
                  std::string* out) {
  IndexSink sink;
  leveldb::TableBuilder builder(TableOptions(), &sink);
  builder.Add(leveldb::Slice(), header.SerializeAsString());
  for (const auto& [key, entry] : entries) {
    builder.Add(key, entry.SerializeAsString());
  }
  const leveldb::Status s = builder.Finish();
  if (!s.ok()) {
    return errors::Internal("Building a checkpoint index failed: ", s.ToString());
  }
  *out = sink.bytes();
  return OkStatus();
}

Status RenameInto(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) {
    return errors::Unavailable("Cannot rename ", from, " to ", to, ": ",
                               ErrnoText(errno));
  }
  return OkStatus();
}

}  // namespace

std::string MetaFilename(std::string_view prefix) {
  return StrCat(prefix, ".index");
}

std::string DataFilename(std::string_view prefix, int32_t shard_id,
                         int32_t num_shards) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), ".data-%05d-of-%05d", shard_id, num_shards);
  return StrCat(prefix, buf);
}

// ---------------------------------------------------------------------------
// BundleWriter

// The data file: buffered appends with a running CRC32C.
class BundleWriter::OutputFile {
 public:
  static Status Open(const std::string& path, std::unique_ptr<OutputFile>* out) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
      return errors::Unavailable("Cannot create checkpoint file ", path, ": ",
                                 ErrnoText(errno));
    }
    out->reset(new OutputFile(path, fd));
    return OkStatus();
  }
  ~OutputFile() {
    if (fd_ >= 0) ::close(fd_);
  }

  Status Append(std::string_view data) {
    crc_ = crc32c::Extend(crc_, data.data(), data.size());
    if (buffer_.size() + data.size() > kWriteBufferSize) {
      OPKIT_RETURN_IF_ERROR(FlushBuffer());
      if (data.size() > kWriteBufferSize) return WriteRaw(data);
    }
    buffer_.append(data.data(), data.size());
    return OkStatus();
  }
  void clear_crc32c() { crc_ = 0; }
  uint32_t crc32c() const { return crc_; }

  // Flushes, syncs and closes.
  Status Close() {
    OPKIT_RETURN_IF_ERROR(FlushBuffer());
    const int fd = fd_;
    fd_ = -1;
    return SyncAndClose(fd, path_);
  }

 private:
  OutputFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {
    buffer_.reserve(kWriteBufferSize);
  }
  Status FlushBuffer() {
    OPKIT_RETURN_IF_ERROR(WriteRaw(buffer_));
    buffer_.clear();
    return OkStatus();
  }
  Status WriteRaw(std::string_view data) { return WriteFully(fd_, path_, data); }

  std::string path_;
  int fd_;
  std::string buffer_;
  uint32_t crc_ = 0;
};

BundleWriter::BundleWriter(Env* env, std::string_view prefix,
                           const Options& options)
    : prefix_(prefix), options_(options) {
  if (prefix_.empty()) {
    status_ = errors::InvalidArgument(
        "A checkpoint prefix must not be empty; pass a path such as "
        "'/tmp/ckpt/model'");
    return;
  }
  if (options_.data_alignment < 1) {
    status_ = errors::InvalidArgument("data_alignment must be >= 1, got ",
                                      options_.data_alignment);
    return;
  }
  const std::string dir = Dirname(prefix_);
  if (!dir.empty()) {
    status_ = env->RecursivelyCreateDir(dir);
    if (!status_.ok()) {
      errors::AppendToMessage(&status_, "while creating the directory of checkpoint ",
                              prefix_);
      return;
    }
  }
  data_path_ = DataFilename(prefix_, 0, 1) + TempSuffix();
  metadata_path_ = MetaFilename(prefix_) + TempSuffix();
  status_ = OutputFile::Open(data_path_, &out_);
}

BundleWriter::~BundleWriter() {
  if (!finished_) AbandonTempFiles();
}

void BundleWriter::AbandonTempFiles() {
  out_.reset();
  if (!data_path_.empty()) ::unlink(data_path_.c_str());
  if (!metadata_path_.empty()) ::unlink(metadata_path_.c_str());
}

Status BundleWriter::Add(std::string_view key, const Tensor& val) {
  if (!status_.ok()) return status_;
  if (key.empty()) {
    return errors::InvalidArgument(
        "A tensor's key in a checkpoint must not be empty: the empty key holds "
        "the bundle's header");
  }
  const std::string key_string(key);
  if (entries_.count(key_string) != 0) {
    return errors::InvalidArgument("Adding duplicate key '", key,
                                   "' to checkpoint ", prefix_,
                                   "; every tensor needs its own name");
  }
  const DataType dtype = val.dtype();
  if (dtype != DT_STRING && !DataTypeCanUseMemcpy(dtype)) {
    return errors::Unimplemented("Cannot save tensor '", key, "' of dtype ",
                                 DataTypeString(dtype),
                                 ": checkpoints hold fixed-size types and strings");
  }
  if (val.NumElements() > 0 && !val.IsInitialized()) {
    return errors::InvalidArgument("Cannot save tensor '", key,
                                   "': it has shape ", val.shape().DebugString(),
                                   " but no storage");
  }

  BundleEntryProto entry;
  entry.set_dtype(dtype);
  val.shape().AsProto(entry.mutable_shape());
  entry.set_shard_id(0);
  entry.set_offset(size_);

  int64_t bytes_written = 0;
  uint32_t crc = 0;
  out_->clear_crc32c();
  if (dtype == DT_STRING) {
    const auto strings = val.flat<tstring>();
    std::string lengths;
    lengths.reserve(static_cast<size_t>(strings.size()));
    for (int64_t i = 0; i < strings.size(); ++i) {
      const uint64_t n = strings(i).size();
      PutVarint64(&lengths, n);
      if (n <= std::numeric_limits<uint32_t>::max()) {
        const uint32_t n32 = static_cast<uint32_t>(n);
        crc = crc32c::Extend(crc, reinterpret_cast<const char*>(&n32), sizeof(n32));
      } else {
        crc = crc32c::Extend(crc, reinterpret_cast<const char*>(&n), sizeof(n));
      }
    }
    const uint32_t length_checksum = crc32c::Mask(crc);
    crc = crc32c::Extend(crc, reinterpret_cast<const char*>(&length_checksum),
                         sizeof(length_checksum));
    status_ = out_->Append(lengths);
    if (status_.ok()) {
      status_ = out_->Append(std::string_view(
          reinterpret_cast<const char*>(&length_checksum), sizeof(length_checksum)));
    }
    bytes_written = static_cast<int64_t>(lengths.size() + sizeof(length_checksum));
    for (int64_t i = 0; status_.ok() && i < strings.size(); ++i) {
      status_ = out_->Append(strings(i));
      crc = crc32c::Extend(crc, strings(i).data(), strings(i).size());
      bytes_written += static_cast<int64_t>(strings(i).size());
    }
  } else {
    const std::string_view bytes = val.tensor_data();
    status_ = out_->Append(bytes);
    crc = out_->crc32c();
    bytes_written = static_cast<int64_t>(bytes.size());
  }
  if (!status_.ok()) return status_;

  entry.set_size(bytes_written);
  entry.set_crc32c(crc32c::Mask(crc));
  size_ += bytes_written;
  const int64_t over = size_ % options_.data_alignment;
  if (over != 0) {
    const std::string pad(static_cast<size_t>(options_.data_alignment - over), '\0');
    status_ = out_->Append(pad);
    if (!status_.ok()) return status_;
    size_ += static_cast<int64_t>(pad.size());
  }
  entries_.emplace(key_string, std::move(entry));
  return OkStatus();
}

Status BundleWriter::Finish() {
  if (finished_) {
    return errors::FailedPrecondition("BundleWriter for ", prefix_,
                                      " is closed: Finish() was called already");
  }
  finished_ = true;
  if (status_.ok()) status_ = out_->Close();
  out_.reset();
  if (status_.ok()) status_ = RenameInto(data_path_, DataFilename(prefix_, 0, 1));
  if (status_.ok()) {
    data_path_.clear();  // renamed: nothing to clean up
    BundleHeaderProto header;
    header.set_num_shards(1);
    header.set_endianness(BundleHeaderProto::LITTLE);
    header.mutable_version()->set_producer(kTensorBundleVersion);
    header.mutable_version()->set_min_consumer(kTensorBundleMinConsumer);
    std::string index;
    status_ = BuildIndex(header, entries_, &index);
    if (status_.ok()) status_ = WriteAndSync(metadata_path_, index);
  }
  if (status_.ok()) status_ = RenameInto(metadata_path_, MetaFilename(prefix_));
  if (!status_.ok()) {
    AbandonTempFiles();
    return status_;
  }
  metadata_path_.clear();
  SyncDirectory(Dirname(prefix_));
  const Status ok = status_;
  status_ = errors::FailedPrecondition("BundleWriter for ", prefix_, " is closed");
  return ok;
}

// ---------------------------------------------------------------------------
// BundleReader

struct BundleReader::DataFile {
  std::string path;
  int fd = -1;
  uint64_t size = 0;
  ~DataFile() {
    if (fd >= 0) ::close(fd);
  }
};

struct BundleReader::TableState {
  std::unique_ptr<leveldb::RandomAccessFile> file;  // an IndexFile
  std::unique_ptr<leveldb::Table> table;
  std::unique_ptr<leveldb::Iterator> iter;
};

namespace {

// Whether [offset, offset + size + trailer) lies in the first `limit`
// bytes, computed without overflow.
bool BlockFits(uint64_t offset, uint64_t size, uint64_t limit) {
  return offset <= limit && size <= limit &&
         size + kBlockTrailerSize <= limit - offset;
}

// Checks the footer's block handles, then every data block handle of the
// index block, against the file size before LevelDB allocates a buffer for
// a block they describe (Note [Reading untrusted bundles]). The footer has
// no CRC, and LevelDB's ReadBlock adds the trailer size to a handle's size
// unchecked: a size near 2^64 wraps to a tiny buffer read past its end
// (TensorFlow's advisory TFSA-2018-004 against its copy of that code).
Status CheckTableLayout(int fd, uint64_t file_size, const std::string& path) {
  if (file_size < kFooterSize) {
    return errors::DataLoss("Checkpoint index ", path, " is ", file_size,
                            " bytes, shorter than a table footer (", kFooterSize,
                            "); the file is truncated");
  }
  const uint64_t blocks_end = file_size - kFooterSize;
  char footer[kFooterSize];
  int err = 0;
  if (!PreadFully(fd, blocks_end, kFooterSize, footer, &err)) {
    return errors::DataLoss("Cannot read the footer of checkpoint index ", path,
                            ": ", err ? ErrnoText(err) : "short read");
  }
  uint64_t magic;
  std::memcpy(&magic, footer + kFooterSize - 8, sizeof(magic));
  if (magic != kTableMagic) {
    return errors::DataLoss("Checkpoint index ", path,
                            " has a bad footer (not a table's magic number); "
                            "the file is truncated or is not a checkpoint index");
  }
  const char* p = footer;
  const char* limit = footer + kFooterSize - 8;
  uint64_t index_offset = 0, index_size = 0;
  for (const char* what : {"metaindex", "index"}) {
    uint64_t offset = 0, size = 0;
    if (!GetVarint64(&p, limit, &offset) || !GetVarint64(&p, limit, &size) ||
        !BlockFits(offset, size, blocks_end)) {
      return errors::DataLoss("Checkpoint index ", path, " has a bad footer: its ",
                              what, " block lies outside the file's ", file_size,
                              " bytes; the file is corrupted");
    }
    index_offset = offset;
    index_size = size;
  }

  // The index block: entries of (last key of a data block, its handle),
  // then the restart array and its length.
  const auto bad_index = [&](const char* what) {
    return errors::DataLoss("Checkpoint index ", path, " has a corrupted index "
                            "block (", what, ")");
  };
  std::string block(index_size + kBlockTrailerSize, '\0');
  if (!PreadFully(fd, index_offset, block.size(), block.data(), &err)) {
    return errors::DataLoss("Cannot read the index block of ", path, ": ",
                            err ? ErrnoText(err) : "short read");
  }
  const uint32_t stored_crc = DecodeFixed32(block.data() + index_size + 1);
  if (crc32c::Unmask(stored_crc) != crc32c::Value(block.data(), index_size + 1)) {
    return bad_index("block checksum mismatch");
  }
  if (index_size < 4) return bad_index("too short");
  const uint64_t num_restarts = DecodeFixed32(block.data() + index_size - 4);
  if (num_restarts > (index_size - 4) / 4) return bad_index("bad restart count");
  p = block.data();
  limit = block.data() + (index_size - 4 - 4 * num_restarts);
  while (p < limit) {
    uint64_t shared = 0, unshared = 0, value_size = 0;
    if (!GetVarint64(&p, limit, &shared) || !GetVarint64(&p, limit, &unshared) ||
        !GetVarint64(&p, limit, &value_size) ||
        unshared > static_cast<uint64_t>(limit - p) ||
        value_size > static_cast<uint64_t>(limit - p) - unshared) {
      return bad_index("an entry runs past the block");
    }
    p += unshared;
    const char* value = p;
    const char* value_end = p + value_size;
    p = value_end;
    uint64_t offset = 0, size = 0;
    if (!GetVarint64(&value, value_end, &offset) ||
        !GetVarint64(&value, value_end, &size)) {
      return bad_index("an unreadable block handle");
    }
    if (!BlockFits(offset, size, blocks_end)) {
      return errors::DataLoss("Checkpoint index ", path, " refers to a block of ",
                              size, " bytes at offset ", offset,
                              ", outside the file's ", file_size,
                              " bytes; the file is corrupted");
    }
  }
  return OkStatus();
}

}  // namespace

BundleReader::BundleReader(Env* env, std::string_view prefix)
    : prefix_(prefix), index_path_(MetaFilename(prefix)) {
  (void)env;
  const int fd = ::open(index_path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    status_ = err == ENOENT
                  ? errors::NotFound("Checkpoint index ", index_path_,
                                     " not found: no checkpoint was written under "
                                     "prefix ", prefix_)
                  : errors::Unavailable("Cannot open checkpoint index ",
                                        index_path_, ": ", ErrnoText(err));
    return;
  }
  table_ = std::make_unique<TableState>();
  table_->file = std::make_unique<IndexFile>(fd);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    status_ = errors::Unavailable("Cannot stat ", index_path_, ": ", ErrnoText(errno));
    return;
  }
  const uint64_t file_size = static_cast<uint64_t>(st.st_size);
  status_ = CheckTableLayout(fd, file_size, index_path_);
  if (!status_.ok()) return;

  try {
    leveldb::Table* table = nullptr;
    const leveldb::Status s =
        leveldb::Table::Open(TableOptions(), table_->file.get(), file_size, &table);
    if (!s.ok()) {
      status_ = errors::DataLoss("Cannot read checkpoint index ", index_path_, ": ",
                                 s.ToString(), "; the file is truncated or corrupted");
      return;
    }
    table_->table.reset(table);
    leveldb::ReadOptions read_options;
    read_options.verify_checksums = true;
    read_options.fill_cache = false;
    table_->iter.reset(table_->table->NewIterator(read_options));
  } catch (const std::bad_alloc&) {
    status_ = errors::DataLoss("Checkpoint index ", index_path_,
                               " describes a block larger than memory; the file is "
                               "corrupted");
    return;
  }

  Seek(kHeaderEntryKey);  // catches a bad_alloc from a corrupted block
  if (!table_->iter->Valid() || !table_->iter->key().empty()) {
    status_ = IterationStatus();
    status_ = errors::DataLoss("Checkpoint index ", index_path_,
                               " has no header entry (the empty key)",
                               status_.ok() ? "" : ": ", status_.message(),
                               "; the file is corrupted or not a checkpoint index");
    return;
  }
  const leveldb::Slice header_bytes = table_->iter->value();
  if (!header_.ParseFromArray(header_bytes.data(),
                              static_cast<int>(header_bytes.size()))) {
    status_ = errors::DataLoss("The header of checkpoint index ", index_path_,
                               " does not parse as a BundleHeaderProto; the file "
                               "is corrupted");
    return;
  }
  if (header_.num_shards() < 1) {
    status_ = errors::DataLoss("The header of checkpoint index ", index_path_,
                               " says it has ", header_.num_shards(),
                               " data files; a bundle has at least one");
    return;
  }
  if (header_.endianness() != BundleHeaderProto::LITTLE) {
    status_ = errors::Unimplemented(
        "Checkpoint ", prefix_, " was written on a big-endian machine; reading "
        "byte-swapped bundles is not supported. Re-save it on a little-endian one");
    return;
  }
  status_ = CheckBundleVersion(header_.version(), index_path_);
}

BundleReader::~BundleReader() = default;

void BundleReader::Seek(std::string_view key) {
  if (table_ == nullptr || table_->iter == nullptr) return;
  try {
    table_->iter->Seek(leveldb::Slice(key.data(), key.size()));
  } catch (const std::bad_alloc&) {
    // Valid() turns false; IterationStatus() says nothing more specific.
  }
}

void BundleReader::Next() {
  if (!Valid()) return;
  try {
    table_->iter->Next();
  } catch (const std::bad_alloc&) {
  }
}

bool BundleReader::Valid() const {
  return status_.ok() && table_ != nullptr && table_->iter != nullptr &&
         table_->iter->Valid();
}

std::string_view BundleReader::key() const {
  const leveldb::Slice k = table_->iter->key();
  return std::string_view(k.data(), k.size());
}

std::string_view BundleReader::value() const {
  const leveldb::Slice v = table_->iter->value();
  return std::string_view(v.data(), v.size());
}

Status BundleReader::IterationStatus() const {
  if (table_ == nullptr || table_->iter == nullptr) return status_;
  const leveldb::Status s = table_->iter->status();
  if (s.ok()) return OkStatus();
  return errors::DataLoss("Reading checkpoint index ", index_path_, " failed: ",
                          s.ToString(), "; the file is corrupted");
}

Status BundleReader::GetBundleEntryProto(std::string_view key,
                                         BundleEntryProto* entry) {
  OPKIT_RETURN_IF_ERROR(status_);
  if (key.empty()) {
    return errors::InvalidArgument(
        "The empty key holds the checkpoint's header, not a tensor");
  }
  Seek(key);
  if (!Valid() || this->key() != key) {
    OPKIT_RETURN_IF_ERROR(IterationStatus());
    return errors::NotFound("Key ", key, " not found in checkpoint ", prefix_);
  }
  return ParseEntry(index_path_, key, value(), entry);
}

bool BundleReader::Contains(std::string_view key) {
  BundleEntryProto entry;
  return GetBundleEntryProto(key, &entry).ok();
}

Status BundleReader::LookupDtypeAndShape(std::string_view key, DataType* dtype,
                                         TensorShape* shape) {
  BundleEntryProto entry;
  OPKIT_RETURN_IF_ERROR(GetBundleEntryProto(key, &entry));
  const Status s = TensorShape::FromProto(entry.shape(), shape);
  if (!s.ok()) {
    return errors::DataLoss("Tensor '", key, "' in checkpoint ", prefix_,
                            " has an invalid shape: ", s.message());
  }
  if (!DataType_IsValid(entry.dtype())) {
    return errors::DataLoss("Tensor '", key, "' in checkpoint ", prefix_,
                            " has an unknown dtype number ",
                            static_cast<int>(entry.dtype()));
  }
  *dtype = entry.dtype();
  return OkStatus();
}

Status BundleReader::LookupTensorShape(std::string_view key, TensorShape* shape) {
  DataType unused;
  return LookupDtypeAndShape(key, &unused, shape);
}

Status BundleReader::Lookup(std::string_view key, Tensor* val) {
  BundleEntryProto entry;
  OPKIT_RETURN_IF_ERROR(GetBundleEntryProto(key, &entry));
  return ReadTensor(key, entry, val);
}

Status BundleReader::ReadCurrent(Tensor* val) {
  OPKIT_RETURN_IF_ERROR(status_);
  if (!Valid()) {
    return errors::FailedPrecondition("ReadCurrent() needs Valid() to be true");
  }
  const std::string key_copy(key());
  BundleEntryProto entry;
  OPKIT_RETURN_IF_ERROR(ParseEntry(index_path_, key_copy, value(), &entry));
  return ReadTensor(key_copy, entry, val);
}

Status BundleReader::OpenDataFile(std::string_view key, int32_t shard_id,
                                  DataFile** out) {
  auto it = data_.find(shard_id);
  if (it != data_.end()) {
    *out = it->second.get();
    return OkStatus();
  }
  auto file = std::make_unique<DataFile>();
  file->path = DataFilename(prefix_, shard_id, header_.num_shards());
  file->fd = ::open(file->path.c_str(), O_RDONLY | O_CLOEXEC);
  if (file->fd < 0) {
    return errors::DataLoss("Tensor '", key, "' lies in data file ", file->path,
                            ", which cannot be opened (", ErrnoText(errno),
                            "); the checkpoint is incomplete");
  }
  struct stat st;
  if (::fstat(file->fd, &st) != 0) {
    return errors::DataLoss("Cannot stat data file ", file->path, ": ",
                            ErrnoText(errno));
  }
  file->size = static_cast<uint64_t>(st.st_size);
  *out = file.get();
  data_.emplace(shard_id, std::move(file));
  return OkStatus();
}

Status BundleReader::ReadTensor(std::string_view key, const BundleEntryProto& entry,
                                Tensor* val) {
  const auto loss = [&](const auto&... what) {
    return errors::DataLoss("Tensor '", key, "' in checkpoint ", prefix_, ": ",
                            what...);
  };
  TensorShape shape;
  {
    const Status s = TensorShape::FromProto(entry.shape(), &shape);
    if (!s.ok()) return loss("invalid shape: ", s.message());
  }
  const DataType dtype = entry.dtype();
  if (!DataType_IsValid(dtype) ||
      (dtype != DT_STRING && !DataTypeCanUseMemcpy(dtype))) {
    return loss("stored dtype ", static_cast<int>(dtype),
                " (", DataTypeString(dtype), ") has no byte form in a checkpoint");
  }
  if (!entry.slices().empty()) {
    return errors::Unimplemented("Tensor '", key, "' in checkpoint ", prefix_,
                                 " is stored in ", entry.slices_size(),
                                 " slices; reading sliced tensors is not supported");
  }
  if (entry.shard_id() < 0 || entry.shard_id() >= header_.num_shards()) {
    return loss("data file number ", entry.shard_id(), " is not below the bundle's ",
                header_.num_shards(), " data files");
  }
  if (entry.offset() < 0 || entry.size() < 0) {
    return loss("negative offset ", entry.offset(), " or size ", entry.size());
  }
  const uint64_t offset = static_cast<uint64_t>(entry.offset());
  const uint64_t size = static_cast<uint64_t>(entry.size());

  const int64_t num_elements = shape.num_elements();
  if (dtype != DT_STRING) {
    const int64_t elem = DataTypeSize(dtype);
    int64_t expected = 0;
    if (elem <= 0 || __builtin_mul_overflow(num_elements, elem, &expected) ||
        static_cast<uint64_t>(expected) != size) {
      return loss("the index records ", size, " bytes, but shape ",
                  shape.DebugString(), " of ", DataTypeString(dtype), " needs ",
                  num_elements, " x ", elem);
    }
  } else if (static_cast<uint64_t>(num_elements) > size) {
    // Each string takes at least the one byte of its length.
    return loss("the index records ", size, " bytes for ", num_elements,
                " strings; each needs at least one");
  }

  DataFile* file = nullptr;
  OPKIT_RETURN_IF_ERROR(OpenDataFile(key, entry.shard_id(), &file));
  if (offset > file->size || size > file->size - offset) {
    return loss("its bytes [", offset, ", ", offset + size,
                ") run past the end of data file ", file->path, " (", file->size,
                " bytes); the file is truncated");
  }

  // The destination: `*val` if it has room of the right kind.
  Tensor out;
  if (val->IsInitialized() && val->NumElements() > 0) {
    if (val->dtype() != dtype || val->shape() != shape) {
      return errors::InvalidArgument(
          "Tensor '", key, "' in checkpoint ", prefix_, " is ", DataTypeString(dtype),
          " ", shape.DebugString(), ", but the tensor to fill is ",
          DataTypeString(val->dtype()), " ", val->shape().DebugString());
    }
    out = *val;
  } else {
    OPKIT_RETURN_IF_ERROR(Tensor::Allocate(dtype, shape, &out));
  }

  int err = 0;
  uint32_t crc = 0;
  if (dtype != DT_STRING) {
    if (size > 0) {
      char* dst = const_cast<char*>(out.tensor_data().data());
      if (!PreadFully(file->fd, offset, size, dst, &err)) {
        return loss("reading ", file->path, " failed: ",
                    err ? ErrnoText(err) : "short read");
      }
      crc = crc32c::Value(dst, size);
    }
  } else if (size > 0) {  // even 0 strings have their length checksum
    OPKIT_RETURN_IF_ERROR(CheckAllocationLimit(
        static_cast<int64_t>(size), StrCat("the bytes of string tensor '", key, "'")));
    std::string buf(size, '\0');
    if (!PreadFully(file->fd, offset, size, buf.data(), &err)) {
      return loss("reading ", file->path, " failed: ",
                  err ? ErrnoText(err) : "short read");
    }
    const char* p = buf.data();
    const char* limit = p + buf.size();
    std::vector<uint64_t> lengths(static_cast<size_t>(num_elements));
    uint64_t total = 0;
    for (uint64_t& n : lengths) {
      if (!GetVarint64(&p, limit, &n)) {
        return loss("the string lengths are cut off or malformed");
      }
      if (n <= std::numeric_limits<uint32_t>::max()) {
        const uint32_t n32 = static_cast<uint32_t>(n);
        crc = crc32c::Extend(crc, reinterpret_cast<const char*>(&n32), sizeof(n32));
      } else {
        crc = crc32c::Extend(crc, reinterpret_cast<const char*>(&n), sizeof(n));
      }
      if (n > size) return loss("a string length of ", n, " exceeds the entry");
      total += n;  // at most num_elements * size: no overflow
      if (total > size) return loss("the string lengths add up past the entry");
    }
    if (limit - p < 4) return loss("the length checksum is cut off");
    const uint32_t length_checksum = DecodeFixed32(p);
    if (crc32c::Unmask(length_checksum) != crc) {
      return loss("the checksum of the string lengths does not match (stored ",
                  crc32c::Unmask(length_checksum), ", computed ", crc,
                  "); the data file is corrupted");
    }
    crc = crc32c::Extend(crc, p, 4);
    p += 4;
    if (static_cast<uint64_t>(limit - p) != total) {
      return loss("the strings take ", total, " bytes but the entry has ",
                  limit - p, " after their lengths");
    }
    auto flat = out.flat<tstring>();
    for (int64_t i = 0; i < num_elements; ++i) {
      const size_t n = static_cast<size_t>(lengths[static_cast<size_t>(i)]);
      flat(i).assign(p, n);
      crc = crc32c::Extend(crc, p, n);
      p += n;
    }
  }
  if (crc32c::Unmask(entry.crc32c()) != crc) {
    return loss("checksum mismatch: stored ", crc32c::Unmask(entry.crc32c()),
                ", computed on the bytes read ", crc, "; the data file ", file->path,
                " is corrupted");
  }
  *val = std::move(out);
  return OkStatus();
}

// ---------------------------------------------------------------------------
// MergeBundles

Status MergeBundles(Env* env, const std::vector<std::string>& prefixes,
                    std::string_view merged_prefix) {
  BundleHeaderProto merged_header;
  bool seen_first = false;
  int num_shards = 0;
  std::map<std::string, BundleEntryProto> entries;
  // Old data file -> its number in the merged bundle.
  std::vector<std::pair<std::string, int32_t>> renames;

  for (const std::string& prefix : prefixes) {
    BundleReader reader(env, prefix);
    OPKIT_RETURN_IF_ERROR(reader.status());
    const BundleHeaderProto& header = reader.header();
    if (!seen_first) {
      seen_first = true;
      merged_header = header;
    } else {
      if (header.endianness() != merged_header.endianness()) {
        return errors::InvalidArgument("Merging bundles with different byte orders: ",
                                       prefix, " differs from ", prefixes[0]);
      }
      if (header.version().SerializeAsString() !=
          merged_header.version().SerializeAsString()) {
        return errors::InvalidArgument("Merging bundles with different format "
                                       "versions: ", prefix, " differs from ",
                                       prefixes[0]);
      }
    }
    const int base = num_shards;
    if (header.num_shards() > std::numeric_limits<int32_t>::max() - base) {
      return errors::InvalidArgument("Merging bundles of too many data files");
    }
    num_shards += header.num_shards();
    for (int i = 0; i < header.num_shards(); ++i) {
      renames.emplace_back(DataFilename(prefix, i, header.num_shards()), base + i);
    }
    for (reader.Seek(kHeaderEntryKey), reader.Next(); reader.Valid(); reader.Next()) {
      const std::string key(reader.key());
      BundleEntryProto entry;
      OPKIT_RETURN_IF_ERROR(ParseEntry(MetaFilename(prefix), key, reader.value(), &entry));
      if (entries.count(key) != 0) {
        return errors::InvalidArgument("Duplicate tensor keyed by ", key,
                                       " encountered, when merging prefix: ", prefix);
      }
      if (entry.shard_id() < 0 || entry.shard_id() >= header.num_shards()) {
        return errors::DataLoss("Tensor '", key, "' in checkpoint ", prefix,
                                ": data file number ", entry.shard_id(),
                                " is not below the bundle's ", header.num_shards());
      }
      entry.set_shard_id(base + entry.shard_id());
      entries.emplace(key, std::move(entry));
    }
    OPKIT_RETURN_IF_ERROR(reader.IterationStatus());
  }
  if (!seen_first) {
    return errors::InvalidArgument("MergeBundles needs at least one prefix");
  }
  merged_header.set_num_shards(num_shards);

  // Every data file must be there before any is renamed.
  for (const auto& [path, unused] : renames) {
    if (::access(path.c_str(), F_OK) != 0) {
      return errors::DataLoss("Data file ", path,
                              " of a bundle to merge is missing; the bundle is "
                              "incomplete");
    }
  }
  const std::string dir = Dirname(merged_prefix);
  if (!dir.empty()) OPKIT_RETURN_IF_ERROR(env->RecursivelyCreateDir(dir));
  for (const auto& [path, shard] : renames) {
    OPKIT_RETURN_IF_ERROR(RenameInto(path, DataFilename(merged_prefix, shard, num_shards)));
  }

  std::string index;
  OPKIT_RETURN_IF_ERROR(BuildIndex(merged_header, entries, &index));
  const std::string final_index = MetaFilename(merged_prefix);
  const std::string temp_index = final_index + TempSuffix();
  OPKIT_RETURN_IF_ERROR(WriteAndSync(temp_index, index));
  Status s = RenameInto(temp_index, final_index);
  if (!s.ok()) {
    ::unlink(temp_index.c_str());
    return s;
  }
  SyncDirectory(dir);
  for (const std::string& prefix : prefixes) {
    const std::string old_index = MetaFilename(prefix);
    if (old_index != final_index) (void)::unlink(old_index.c_str());
  }
  return OkStatus();
}

}  // namespace opkit
