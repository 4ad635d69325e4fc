// The Redis client of the remote cache: hiredis, one blocking connection with bounded timeouts.
#include "cache/RemoteStorage.h"

#include "support/Error.h"

#include <hiredis/hiredis.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <pthread.h>
#include <sys/time.h>

namespace tlc {
namespace {

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
    if (static_cast<unsigned long long>((*length)->integer) > MaxRemoteValue)
      return inputError("the value of " + key + " is " + std::to_string((*length)->integer) +
                        " bytes, more than tlc reads (" + std::to_string(MaxRemoteValue) + ")");
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

  llvm::Error put(const std::string& key, const std::string& value) override {
    auto reply = command({"SET", key, value});
    if (!reply)
      return reply.takeError();
    return llvm::Error::success();
  }

private:
  llvm::Error connect() {
    Context = redisConnectWithTimeout(Url.host.c_str(), Url.port, toTimeval(Url.connectTimeout));
    if (!Context)
      return inputError("cannot allocate a Redis connection");
    if (Context->err)
      return inputError(std::string("cannot connect: ") + Context->errstr);
    if (redisSetTimeout(Context, toTimeval(Url.operationTimeout)) != REDIS_OK)
      return inputError(std::string("cannot set the timeout: ") + Context->errstr);
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

  // Sends the commands together, then reads their replies in order (one round trip). A Redis
  // error reply fails the whole unless `errorRepliesFail` is false.
  llvm::Expected<std::vector<Reply>> commands(const std::vector<std::vector<std::string>>& list,
                                              bool connecting = true,
                                              bool errorRepliesFail = true) {
    if (connecting && !Context)
      if (llvm::Error error = connect())
        return error;
    if (Context->err)
      return inputError(std::string("connection lost: ") + Context->errstr);
    BlockSigpipe guard;
    for (const std::vector<std::string>& arguments : list) {
      Arguments argv(arguments);
      if (redisAppendCommandArgv(Context, argv.count(), argv.argv.data(), argv.lengths.data()) !=
          REDIS_OK)
        return disconnect(arguments.front() + " failed: " + failureReason());
    }
    std::vector<Reply> replies;
    for (const std::vector<std::string>& arguments : list) {
      void* raw = nullptr;
      if (redisGetReply(Context, &raw) != REDIS_OK || !raw)
        return disconnect(arguments.front() + " failed: " + failureReason());
      Reply reply(static_cast<redisReply*>(raw));
      // The replies still to come would answer the next command: the connection is dropped.
      if (errorRepliesFail && reply->type == REDIS_REPLY_ERROR)
        return disconnect(arguments.front() + " failed: " + std::string(reply->str, reply->len));
      replies.push_back(std::move(reply));
    }
    return replies;
  }

  // Closes the connection (the next command opens another) and returns `reason` as an error.
  llvm::Error disconnect(const std::string& reason) {
    redisFree(Context);
    Context = nullptr;
    return inputError(reason);
  }

  // hiredis reports a read that timed out as the socket's EAGAIN.
  std::string failureReason() const {
    std::string reason = Context->errstr[0] ? Context->errstr : "no reply";
    if (Context->err == REDIS_ERR_IO && reason == std::strerror(EAGAIN))
      return "no reply within " + std::to_string(Url.operationTimeout.count()) + " ms";
    return reason;
  }

  redisContext* Context = nullptr;
  bool WholeValues = false; // the server refused GETRANGE
};

} // namespace

std::unique_ptr<RemoteStorage> createRedisStorage(RemoteUrl url) {
  return std::make_unique<RedisStorage>(std::move(url));
}

} // namespace tlc
