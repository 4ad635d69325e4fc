// The Redis client of the remote cache: hiredis, one blocking connection; each operation
// bounded by one deadline and each reply by a size, both checked by this file's own loop around
// hiredis' reader (hiredis' blocking calls restart their timeout at every byte and read a reply
// of any size whole).
#include "cache/RemoteStorage.h"

#include "support/Error.h"

#include <hiredis/hiredis.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <new>
#include <pthread.h>
#include <sys/time.h>

namespace tlc {
namespace {

using Clock = std::chrono::steady_clock;

timeval toTimeval(std::chrono::milliseconds duration) {
  timeval value;
  value.tv_sec = static_cast<time_t>(duration.count() / 1000);
  value.tv_usec = static_cast<suseconds_t>((duration.count() % 1000) * 1000);
  return value;
}

// hiredis writes with write(2): to a server that died, that raises SIGPIPE, which would end
// tlc. The signal is blocked in this thread around each command and one it raised discarded;
// ignoring it process-wide instead would pass SIG_IGN on to nvcc and every tool tlc runs.
class BlockSigpipe {
public:
  BlockSigpipe() {
    sigemptyset(&Pipe);
    sigaddset(&Pipe, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    AlreadyPending = sigismember(&pending, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &Pipe, &Previous);
  }
  ~BlockSigpipe() {
    sigset_t pending;
    sigpending(&pending);
    if (!AlreadyPending && sigismember(&pending, SIGPIPE)) {
      timespec now = {0, 0};
      sigtimedwait(&Pipe, nullptr, &now);
    }
    pthread_sigmask(SIG_SETMASK, &Previous, nullptr);
  }

private:
  sigset_t Pipe, Previous;
  bool AlreadyPending;
};

// A command's arguments as hiredis takes them: binary-safe, each with its length.
struct Arguments {
  explicit Arguments(const std::vector<std::string>& arguments) {
    for (const std::string& argument : arguments) {
      argv.push_back(argument.data());
      lengths.push_back(argument.size());
    }
  }
  int count() const { return static_cast<int>(argv.size()); }
  std::vector<const char*> argv;
  std::vector<size_t> lengths;
};

struct ReplyDeleter {
  void operator()(redisReply* reply) const { freeReplyObject(reply); }
};
using Reply = std::unique_ptr<redisReply, ReplyDeleter>;

class RedisStorage : public RemoteStorage {
public:
  explicit RedisStorage(RemoteUrl url) : RemoteStorage(std::move(url)) {}
  ~RedisStorage() override {
    if (Context)
      redisFree(Context);
  }

  // A value comes in pieces: hiredis reads 16 KiB at a time into one buffer it grows by
  // copying, so a single GET of a 9 MB entry took three times its transfer. The first piece is
  // asked for alone (an index or a small entry: one round trip, as a GET), the others together.
  // GETRANGE answers "" for a missing key, which is what tlc reads as missing (it stores no
  // empty value). A value replaced between two pieces comes back mixed and fails its entry's
  // SHA-256 checks like any damaged one: a miss. A user the server refuses GETRANGE (an ACL
  // user with +get only, as docs/team-cache.md suggests for readers) gets whole values by GET.
  llvm::Expected<std::optional<std::string>> get(const std::string& key) override {
    startOperation();
    try {
      return getValue(key);
    } catch (const std::bad_alloc&) { // a value within the limit, more than the memory left
      return disconnect("not enough memory for the value of " + key);
    }
  }

  llvm::Error put(const std::string& key, const std::string& value) override {
    startOperation();
    auto reply = command({"SET", key, value});
    if (!reply)
      return reply.takeError();
    return llvm::Error::success();
  }

private:
  llvm::Expected<std::optional<std::string>> getValue(const std::string& key) {
    if (WholeValues)
      return getWhole(key);
    auto first = command(piece(key, 0), true, /*errorRepliesFail=*/false);
    if (!first)
      return first.takeError();
    if ((*first)->type == REDIS_REPLY_ERROR) {
      WholeValues = true;
      return getWhole(key);
    }
    std::string value;
    if (llvm::Error error = append(value, **first))
      return error;
    if (value.empty())
      return std::nullopt;
    if (value.size() < PieceSize)
      return value;
    auto length = command({"STRLEN", key});
    if (!length)
      return length.takeError();
    if ((*length)->type != REDIS_REPLY_INTEGER)
      return inputError("unexpected reply to STRLEN");
    if (static_cast<unsigned long long>((*length)->integer) > Url.valueLimit)
      return inputError("the value of " + key + " is " + std::to_string((*length)->integer) +
                        " bytes, more than tlc reads (" + std::to_string(Url.valueLimit) + ")");
    std::vector<std::vector<std::string>> rest;
    for (long long start = PieceSize; start < (*length)->integer; start += PieceSize)
      rest.push_back(piece(key, start));
    auto pieces = commands(rest);
    if (!pieces)
      return pieces.takeError();
    value.reserve((*length)->integer);
    for (const Reply& reply : *pieces)
      if (llvm::Error error = append(value, *reply))
        return error;
    return value;
  }

  // One get() or put(): its replies come by one deadline, the operation timeout from now (or
  // from when the connection it makes is open).
  void startOperation() {
    Deadline = Clock::now() + Url.operationTimeout;
    ArmedAt.reset();
  }

  llvm::Error connect() {
    Context = redisConnectWithTimeout(Url.host.c_str(), Url.port, toTimeval(Url.connectTimeout));
    if (!Context)
      return inputError("cannot allocate a Redis connection");
    if (Context->err)
      return inputError(std::string("cannot connect: ") + Context->errstr);
    startOperation();
    if (!Url.password.empty()) {
      std::vector<std::string> auth = {"AUTH"};
      if (!Url.user.empty())
        auth.push_back(Url.user);
      auth.push_back(Url.password);
      if (auto reply = command(auth, false); !reply)
        return reply.takeError();
    }
    if (Url.database != 0)
      if (auto reply = command({"SELECT", std::to_string(Url.database)}, false); !reply)
        return reply.takeError();
    return llvm::Error::success();
  }

  static constexpr long long PieceSize = 1 << 20;

  static std::vector<std::string> piece(const std::string& key, long long start) {
    return {"GETRANGE", key, std::to_string(start), std::to_string(start + PieceSize - 1)};
  }

  static llvm::Error append(std::string& value, const redisReply& reply) {
    if (reply.type != REDIS_REPLY_STRING)
      return inputError("unexpected reply to GETRANGE");
    value.append(reply.str, reply.len);
    return llvm::Error::success();
  }

  llvm::Expected<std::optional<std::string>> getWhole(const std::string& key) {
    auto reply = command({"GET", key});
    if (!reply)
      return reply.takeError();
    if ((*reply)->type == REDIS_REPLY_NIL)
      return std::nullopt;
    if ((*reply)->type != REDIS_REPLY_STRING)
      return inputError("unexpected reply to GET");
    return std::string((*reply)->str, (*reply)->len);
  }

  // Runs one command (its arguments binary-safe); a Redis error reply is an error too, unless
  // `errorRepliesFail` is false.
  llvm::Expected<Reply> command(const std::vector<std::string>& arguments, bool connecting = true,
                                bool errorRepliesFail = true) {
    auto replies = commands({arguments}, connecting, errorRepliesFail);
    if (!replies)
      return replies.takeError();
    return std::move((*replies)[0]);
  }

  // Sends the commands together, then reads their replies in order (one round trip), all by the
  // operation's deadline. A Redis error reply fails the whole unless `errorRepliesFail` is false.
  llvm::Expected<std::vector<Reply>> commands(const std::vector<std::vector<std::string>>& list,
                                              bool connecting = true,
                                              bool errorRepliesFail = true) {
    if (connecting && !Context)
      if (llvm::Error error = connect())
        return error;
    if (Context->err)
      return inputError(std::string("connection lost: ") + Context->errstr);
    if (list.empty()) // a value of exactly one piece has no more
      return std::vector<Reply>();
    BlockSigpipe guard;
    for (const std::vector<std::string>& arguments : list) {
      Arguments argv(arguments);
      if (redisAppendCommandArgv(Context, argv.count(), argv.argv.data(), argv.lengths.data()) !=
          REDIS_OK)
        return disconnect(arguments.front() + " failed: " + failureReason());
    }
    if (llvm::Error error = send(list.front().front()))
      return error;
    std::vector<Reply> replies;
    for (const std::vector<std::string>& arguments : list) {
      auto reply = receive(arguments.front());
      if (!reply)
        return reply.takeError();
      // The replies still to come would answer the next command: the connection is dropped.
      if (errorRepliesFail && (*reply)->type == REDIS_REPLY_ERROR)
        return disconnect(arguments.front() +
                          " failed: " + std::string((*reply)->str, (*reply)->len));
      replies.push_back(std::move(*reply));
    }
    return replies;
  }

  // Writes the commands hiredis holds, by the deadline.
  llvm::Error send(const std::string& command) {
    for (int done = 0; !done;) {
      if (llvm::Error error = armTimeout(command))
        return error;
      if (redisBufferWrite(Context, &done) != REDIS_OK)
        return disconnect(command + " failed: " + failureReason());
    }
    return llvm::Error::success();
  }

  // Reads the reply to `command` by the deadline, refused as soon as it shows more bytes than
  // such a reply may have: the size a value announces is checked before any of it is read.
  llvm::Expected<Reply> receive(const std::string& command) {
    uint64_t limit = replyLimit(command);
    while (true) {
      // hiredis' reader at a reply's start (ridx -1) has parsed none of it yet.
      bool starting = Context->reader->ridx == -1;
      auto size = starting ? announcedSize(command, limit) : std::optional<uint64_t>(0);
      if (!size)
        return disconnect(Problem);
      if (Context->reader->len - Context->reader->pos > limit + LineLimit)
        return disconnect("the reply to " + command + " is larger than tlc reads (" +
                          std::to_string(limit) + " bytes)");
      // A reply whose first line is complete (or one begun) is parsed; otherwise more is read.
      if (!starting || *size != Incomplete) {
        void* raw = nullptr;
        if (redisGetReplyFromReader(Context, &raw) != REDIS_OK)
          return disconnect(command + " failed: " + failureReason());
        if (raw)
          return Reply(static_cast<redisReply*>(raw));
      }
      if (llvm::Error error = armTimeout(command))
        return error;
      if (redisBufferRead(Context) != REDIS_OK)
        return disconnect(command + " failed: " + failureReason());
    }
  }

  // The size of the reply starting in hiredis' buffer, from its first line: a value's announced
  // length, 0 for a line, Incomplete while the line is still coming; nullopt (Problem saying
  // why) when it is no reply tlc asked for or larger than `limit`.
  std::optional<uint64_t> announcedSize(const std::string& command, uint64_t limit) {
    const redisReader& reader = *Context->reader;
    llvm::StringRef pending(reader.buf + reader.pos, reader.len - reader.pos);
    if (pending.empty())
      return Incomplete;
    // A value, a status, an error or an integer: never an array, which hiredis would allocate
    // from the count it announces.
    if (!llvm::StringRef("$+-:").contains(pending.front())) {
      Problem = "unexpected reply to " + command;
      return std::nullopt;
    }
    size_t end = pending.find("\r\n");
    if (end == llvm::StringRef::npos)
      return Incomplete;
    if (pending.front() != '$')
      return 0;
    long long length = 0;
    if (pending.slice(1, end).getAsInteger(10, length)) {
      Problem = "unexpected reply to " + command;
      return std::nullopt;
    }
    if (length > 0 && static_cast<unsigned long long>(length) > limit) {
      Problem = "the reply to " + command + " announces " + std::to_string(length) +
                " bytes, more than tlc reads (" + std::to_string(limit) + ")";
      return std::nullopt;
    }
    return length > 0 ? length : 0;
  }

  // The most a reply to `command` may hold: a piece, a whole value, or a line.
  uint64_t replyLimit(const std::string& command) const {
    if (command == "GETRANGE")
      return PieceSize;
    if (command == "GET")
      return Url.valueLimit;
    return LineLimit;
  }

  // Bounds the next read or write by the time left: the socket's timeout is set to it, again
  // once it is 10 ms old, so no call outlives the deadline by more than that.
  llvm::Error armTimeout(const std::string& command) {
    Clock::time_point now = Clock::now();
    if (now >= Deadline)
      return disconnect(command + " failed: " + timeoutReason());
    if (ArmedAt && now - *ArmedAt < std::chrono::milliseconds(10))
      return llvm::Error::success();
    auto left = std::chrono::ceil<std::chrono::milliseconds>(Deadline - now);
    if (redisSetTimeout(Context, toTimeval(std::max(left, std::chrono::milliseconds(1)))) !=
        REDIS_OK)
      return disconnect(std::string("cannot set the timeout: ") + Context->errstr);
    ArmedAt = now;
    return llvm::Error::success();
  }

  // Closes the connection (the next command opens another) and returns `reason` as an error.
  llvm::Error disconnect(const std::string& reason) {
    if (Context)
      redisFree(Context);
    Context = nullptr;
    return inputError(reason);
  }

  // hiredis reports a read that timed out as the socket's EAGAIN.
  std::string failureReason() const {
    std::string reason = Context->errstr[0] ? Context->errstr : "no reply";
    if (Context->err == REDIS_ERR_IO && reason == std::strerror(EAGAIN))
      return timeoutReason();
    return reason;
  }

  std::string timeoutReason() const {
    return "no reply within " + std::to_string(Url.operationTimeout.count()) + " ms";
  }

  static constexpr uint64_t LineLimit = 1 << 16; // a status, an error, an integer
  static constexpr uint64_t Incomplete = ~uint64_t(0);

  redisContext* Context = nullptr;
  bool WholeValues = false; // the server refused GETRANGE
  Clock::time_point Deadline;
  std::optional<Clock::time_point> ArmedAt; // when the socket's timeout was last set
  std::string Problem;                      // why announcedSize() refused a reply
};

} // namespace

std::unique_ptr<RemoteStorage> createRedisStorage(RemoteUrl url) {
  return std::make_unique<RedisStorage>(std::move(url));
}

} // namespace tlc
